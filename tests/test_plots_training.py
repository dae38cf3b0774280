"""Loss-curve figures draw each rank's recorded losses where they belong."""
import pytest
from matplotlib.colors import to_rgba

from ddp_lessons.plots import training
from ddp_lessons.plots.figures import rank_color
from ddp_lessons.plots.figures import png_bytes

RUN1 = [{"rank": 0, "epochs": [0, 1, 2], "loss": [8.0, 2.0, 0.5]},
        {"rank": 1, "epochs": [0, 1, 2], "loss": [9.0, 2.5, 0.6]}]
RUN2 = [{"rank": 0, "epochs": [3, 4], "loss": [0.3, 0.2]},
        {"rank": 1, "epochs": [3, 4], "loss": [0.35, 0.25]}]


def lines_by_label(fig):
    return {line.get_label(): line for line in fig.axes[0].get_lines()}


def test_each_rank_is_one_line_of_its_losses_in_its_colour():
    fig = training.plot_loss_per_rank(RUN1)
    lines = lines_by_label(fig)
    assert set(lines) == {"rank 0", "rank 1"}
    for row in RUN1:
        line = lines[f"rank {row['rank']}"]
        assert list(line.get_xdata()) == row["epochs"] and list(line.get_ydata()) == row["loss"]
        assert to_rgba(line.get_color()) == to_rgba(rank_color(row["rank"]))


def test_reference_curve_is_drawn_dashed_with_its_label():
    reference = {"epochs": [0, 1, 2], "loss": [7.0, 1.0, 0.4]}
    lines = lines_by_label(training.plot_loss_per_rank(RUN1, reference, reference_label="one GPU"))
    assert list(lines["one GPU"].get_ydata()) == reference["loss"]
    assert lines["one GPU"].get_linestyle() == "--"


def test_axes_are_labelled_log_scale_and_it_renders_headless():
    fig = training.plot_loss_per_rank(RUN1, title="my title")
    ax = fig.axes[0]
    assert ax.get_yscale() == "log" and ax.get_xlabel() == "epoch" and "loss" in ax.get_ylabel()
    assert ax.get_title() == "my title"
    assert png_bytes(fig)[:4] == b"\x89PNG"


def test_resumed_run_continues_on_the_same_epoch_axis_after_a_marker():
    fig = training.plot_resumed_loss(RUN1, RUN2)
    lines = lines_by_label(fig)
    assert list(lines["rank 1, run 1"].get_xdata()) == [0, 1, 2]
    assert list(lines["rank 1, run 2 (resumed)"].get_xdata()) == [3, 4]
    assert list(lines["rank 1, run 2 (resumed)"].get_ydata()) == [0.35, 0.25]
    assert lines["rank 0, run 2 (resumed)"].get_linestyle() == "--"
    assert list(lines["checkpoint loaded (epoch 3)"].get_xdata()) == [2.5, 2.5]
    assert fig.axes[0].get_yscale() == "log" and fig.axes[0].get_title()


def test_runs_from_different_ranks_are_refused():
    with pytest.raises(ValueError, match="same ranks"):
        training.plot_resumed_loss(RUN1, RUN2[:1])
