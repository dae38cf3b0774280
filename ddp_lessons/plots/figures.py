"""Figure plumbing shared by the plot modules: a Figure that Jupyter shows once, and PNG bytes.

A figure made with pyplot and left open is drawn twice in Jupyter (once by the inline backend at
the end of the cell, once as the returned value); a bare ``matplotlib.figure.Figure`` is not drawn
at all unless pyplot was imported. `new_figure` makes it through pyplot and closes it at once, so
returning it shows it exactly once, and nothing piles up in pyplot's figure list.
"""

from __future__ import annotations

import io

import matplotlib.pyplot as plt
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
