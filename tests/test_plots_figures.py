"""Figures from the plot modules show once in Jupyter and render headless to PNG."""
import matplotlib.pyplot as plt

from ddp_lessons.plots.figures import new_figure, png_bytes


def test_new_figure_is_closed_so_jupyter_draws_it_once():
    fig, axes = new_figure(4, 3, rows=2)
    assert axes.shape == (2, 1)
    assert fig.number not in plt.get_fignums()


def test_png_bytes_renders_a_png():
    fig, axes = new_figure(2, 2)
    axes[0, 0].plot([0, 1], [1, 0])
    assert png_bytes(fig).startswith(b"\x89PNG\r\n\x1a\n")


def test_a_figure_shows_itself_as_matplotlibs_figure_in_a_stored_output():
    fig, _ = new_figure(7, 4)
    assert repr(fig) == "<Figure size 700x400 with 1 Axes>"  # a lesson's stored text/plain, in either language
