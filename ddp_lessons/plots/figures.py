"""Figure plumbing shared by the plot modules: a Figure that Jupyter shows once, PNG bytes, and
the colour each rank has in every figure.

A figure made with pyplot and left open is drawn twice in Jupyter (once by the inline backend at
the end of the cell, once as the returned value); a bare ``matplotlib.figure.Figure`` is not drawn
at all unless pyplot was imported. `new_figure` makes it through pyplot and closes it at once, so
returning it shows it exactly once, and nothing piles up in pyplot's figure list.
"""

from __future__ import annotations

import io

import matplotlib.pyplot as plt
from matplotlib import colormaps
from matplotlib.colors import to_rgb
from matplotlib.figure import Figure


def new_figure(width: float, height: float, rows: int = 1, cols: int = 1, **subplot_kw):
    """A closed pyplot figure of `width` x `height` inches and its axes (as `plt.subplots`)."""
    fig, axes = plt.subplots(rows, cols, figsize=(width, height), squeeze=False, **subplot_kw)
    plt.close(fig)
    return fig, axes


def png_bytes(fig: Figure, dpi: int = 90) -> bytes:
    """The figure rendered as PNG (for ipywidgets.Image and tests)."""
    buffer = io.BytesIO()
    fig.savefig(buffer, format="png", dpi=dpi, bbox_inches="tight")
    return buffer.getvalue()


def rank_color(rank: int):
    """The colour rank `rank` has in every figure (matplotlib's tab10 cycle)."""
    return colormaps["tab10"](rank % 10)


def repeat_color(rank: int) -> tuple[float, float, float]:
    """The lighter colour of rank `rank`'s padding repeats (its colour mixed half with white)."""
    return tuple(0.5 + 0.5 * c for c in to_rgb(rank_color(rank)))


def text_color(background) -> str:
    """'black' or 'white', whichever contrasts more with `background` (WCAG relative luminance)."""
    linear = [c / 12.92 if c <= 0.03928 else ((c + 0.055) / 1.055) ** 2.4 for c in to_rgb(background)]
    luminance = 0.2126 * linear[0] + 0.7152 * linear[1] + 0.0722 * linear[2]
    return "black" if (luminance + 0.05) / 0.05 > 1.05 / (luminance + 0.05) else "white"
