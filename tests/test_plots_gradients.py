"""The gradient-agreement figure shows every rank's entries against the single-process gradient."""
import pytest

from ddp_lessons.plots import gradients
from ddp_lessons.plots.figures import png_bytes

SINGLE_MEAN = [0.5, -1.0, 2.0]
SINGLE_SUM = [8.0, -16.0, 32.0]


def figure(world_size=2):
    ddp_sum = [[x / world_size for x in SINGLE_SUM]] * world_size
    return gradients.plot_gradient_agreement(SINGLE_MEAN, SINGLE_SUM, [SINGLE_MEAN] * world_size, ddp_sum)


def points(ax, gid):
    """The (x, y) points of the scatter with this gid."""
    (collection,) = [c for c in ax.collections if c.get_gid() == gid]
    return [tuple(xy) for xy in collection.get_offsets().tolist()]


@pytest.mark.parametrize("world_size", [2, 3])
def test_each_rank_is_plotted_against_the_single_process_gradient(world_size):
    mean_ax, sum_ax = figure(world_size).axes
    for rank in range(world_size):
        assert points(mean_ax, f"rank:{rank}") == list(zip(SINGLE_MEAN, SINGLE_MEAN))
        assert points(sum_ax, f"rank:{rank}") == [(x, x / world_size) for x in SINGLE_SUM]


@pytest.mark.parametrize("world_size", [2, 4])
def test_dashed_line_is_y_equals_x_for_mean_and_x_over_world_size_for_sum(world_size):
    for ax, slope in zip(figure(world_size).axes, (1.0, 1.0 / world_size)):
        (line,) = [line for line in ax.lines if line.get_gid() == "relation"]
        xs, ys = line.get_data()
        assert list(ys) == pytest.approx([slope * x for x in xs])
    assert figure(world_size).axes[1].get_legend().texts[-1].get_text() == f"y = x / {world_size}"


def test_gradients_of_different_lengths_are_refused():
    with pytest.raises(ValueError, match="rank 1 has 2 gradient entries, expected 3"):
        gradients.plot_gradient_agreement(SINGLE_MEAN, SINGLE_SUM, [SINGLE_MEAN, [1.0, 2.0]],
                                          [SINGLE_SUM, SINGLE_SUM])


def test_figure_is_labelled_and_renders_headless():
    fig = figure()
    assert all(ax.get_title() and ax.get_xlabel() and ax.get_ylabel() for ax in fig.axes)
    assert png_bytes(fig).startswith(b"\x89PNG")
