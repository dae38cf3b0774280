"""Lesson 11's figures draw the recorded numbers where they belong (and render)."""
import math

from ddp_lessons.plots import measure
from ddp_lessons.plots.figures import png_bytes

ACCURACY = {"padded": {"correct": 75, "seen": 102, "accuracy": 75 / 102},
            "drop_last": {"correct": 72, "seen": 99, "accuracy": 72 / 99},
            "all_reduce": {"correct": 73, "seen": 100, "accuracy": 0.73}}


def test_accuracy_bars_are_red_when_wrong_green_when_right_with_the_single_process_line():
    fig = measure.plot_accuracy_methods(ACCURACY, 0.73)
    ax = fig.axes[0]
    bars = ax.patches
    assert [round(bar.get_height(), 2) for bar in bars] == [73.53, 72.73, 73.0]
    assert [bar.get_facecolor()[:3] for bar in bars][0] != [bar.get_facecolor()[:3] for bar in bars][2]
    assert [text.get_text() for text in ax.texts] == ["75/102", "72/99", "73/100"]
    assert ax.get_lines()[0].get_ydata()[0] == 73.0
    assert png_bytes(fig).startswith(b"\x89PNG")


def test_logged_loss_draws_each_rank_the_mean_and_one_point_per_window():
    rows = [{"rank": r, "log": {"local": [1.0 + r, 2.0 + r, 3.0 + r, 4.0 + r], "global": [2, 3, 4, 5],
                                "windows": [2.5, 4.5]}} for r in range(3)]
    fig = measure.plot_logged_loss(rows, log_every=2)
    lines = {line.get_label(): line for line in fig.axes[0].get_lines()}
    assert list(lines["rank 2's own batch"].get_ydata()) == [3.0, 4.0, 5.0, 6.0]
    assert list(lines["all-reduced mean (every step)"].get_ydata()) == [2, 3, 4, 5]
    windows = lines["mean of the last 2 steps (1 all-reduce per 2)"]
    assert list(windows.get_xdata()) == [2, 4] and list(windows.get_ydata()) == [2.5, 4.5]


def test_loss_against_samples_is_steps_times_global_batch_and_diverged_curves_do_not_stretch_it():
    curves = {"small": {"loss": [3.0, 1.0, 0.5], "global_batch": 32},
              "big": {"loss": [3.0, 0.5, float("inf")], "global_batch": 1024}}
    fig = measure.plot_loss_vs_steps_and_samples(curves, eval_every=5)
    by_steps, by_samples = fig.axes
    small = by_samples.get_lines()[0]
    assert list(small.get_xdata()) == [0, 160, 320]
    assert list(by_steps.get_lines()[0].get_xdata()) == [0, 5, 10]
    assert math.isnan(by_samples.get_lines()[1].get_ydata()[-1])
    assert by_samples.get_xlim()[1] < 1024 * 5


def test_an_accumulating_setup_is_dashed_whatever_its_name_says():
    """The style follows the record (accumulate), not the name, which a Spanish notebook shows translated."""
    curves = {"2 ranks x 32 x 2 acumulados": {"loss": [3.0, 1.0], "global_batch": 128, "accumulate": 2},
              "1 rank x 32": {"loss": [3.0, 1.0], "global_batch": 32, "accumulate": 1}}
    by_steps, _ = measure.plot_loss_vs_steps_and_samples(curves, eval_every=5).axes
    assert [line.get_linestyle() for line in by_steps.get_lines()] == ["--", "-"]
    assert [text.get_text() for text in by_steps.get_legend().get_texts()] == list(curves)
