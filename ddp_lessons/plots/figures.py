"""Figure plumbing shared by the plot modules: a Figure that Jupyter shows once, PNG bytes, and
the colour each rank has in every figure.

A figure made with pyplot and left open is drawn twice in Jupyter (once by the inline backend at
the end of the cell, once as the returned value); a bare ``matplotlib.figure.Figure`` is not drawn
at all unless pyplot was imported. `new_figure` makes it through pyplot and closes it at once, so
returning it shows it exactly once, and nothing piles up in pyplot's figure list.

A figure speaks the language of the notebook that drew it (`ddp_lessons.i18n.language()` when the
plot function runs): its words come from `ddp_lessons.i18n.tr`, and its tick numbers are written in
the language's notation (decimal comma in Spanish) whenever it is drawn (`CourseFigure`).
"""

from __future__ import annotations

import io

import matplotlib.pyplot as plt
from matplotlib import colormaps
from matplotlib.colors import to_rgb
from matplotlib.figure import Figure
from matplotlib.ticker import FixedFormatter, Formatter, NullFormatter

from ddp_lessons import i18n


class CourseFigure(Figure):
    """A Figure that writes its axes' tick numbers in the language it was made in, every time it is
    drawn (a tick formatter set after the plot function returned is localized too)."""

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self.language = i18n.language()

    def __repr__(self) -> str:  # as matplotlib's Figure shows itself in a notebook: <Figure size 700x400 with 1 Axes>
        return super().__repr__().replace(type(self).__name__, "Figure", 1)

    def draw(self, renderer):
        if self.language in i18n.NUMBER_MARKS:
            for ax in self.axes:
                for axis in (ax.xaxis, ax.yaxis):
                    for get, put in ((axis.get_major_formatter, axis.set_major_formatter),
                                     (axis.get_minor_formatter, axis.set_minor_formatter)):
                        found = get()
                        if not isinstance(found, (LocalizedFormatter, FixedFormatter, NullFormatter)):
                            put(LocalizedFormatter(found, self.language))
        super().draw(renderer)


class LocalizedFormatter(Formatter):
    """Another tick formatter's labels, their numbers in `language`'s notation (`i18n.localize_numbers`)."""

    def __init__(self, inner: Formatter, language: str):
        self.inner, self.language = inner, language

    def set_axis(self, axis):
        super().set_axis(axis)
        self.inner.set_axis(axis)

    def set_locs(self, locs):
        self.inner.set_locs(locs)

    def __call__(self, x, pos=None):
        return i18n.localize_numbers(self.inner(x, pos), lang=self.language)

    def format_ticks(self, values):
        return [i18n.localize_numbers(text, lang=self.language) for text in self.inner.format_ticks(values)]

    def get_offset(self):
        return i18n.localize_numbers(self.inner.get_offset(), lang=self.language)

    def format_data(self, value):
        return i18n.localize_numbers(self.inner.format_data(value), lang=self.language)

    def format_data_short(self, value):
        return i18n.localize_numbers(self.inner.format_data_short(value), lang=self.language)


def new_figure(width: float, height: float, rows: int = 1, cols: int = 1, **subplot_kw):
    """A closed pyplot figure (a `CourseFigure`) of `width` x `height` inches and its axes (as `plt.subplots`)."""
    fig, axes = plt.subplots(rows, cols, figsize=(width, height), squeeze=False, FigureClass=CourseFigure,
                             **subplot_kw)
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
