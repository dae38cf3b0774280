"""The precision figure draws each run's recorded losses, median step time and bytes per step."""
import pytest

from ddp_lessons.plots import precision
from ddp_lessons.plots.figures import png_bytes

RUNS = [{"name": "fp32", "losses": [2.0, 1.5, 1.0], "step_ms": [50.0, 9.0, 10.0, 11.0, 12.0],
         "bytes_per_step": [4096, 4096, 4096]},
        {"name": "fp16 all-reduce", "losses": [2.0, 1.6, 1.1], "step_ms": [40.0, 8.0, 8.0, 9.0, 30.0],
         "bytes_per_step": [2048, 2048, 2048]}]


def test_median_step_time_leaves_out_the_warmup_steps():
    assert precision.median_step_ms(RUNS[0], warmup=1) == 10.5
    assert precision.median_step_ms(RUNS[0], warmup=3) == 11.5
    assert precision.median_step_ms({"name": "short", "step_ms": [5.0, 7.0]}, warmup=3) == 6.0


def test_a_run_without_step_times_is_an_error_naming_it():
    with pytest.raises(ValueError, match="'empty'"):
        precision.median_step_ms({"name": "empty", "step_ms": []})


def test_each_run_is_one_loss_curve_one_difference_curve_and_one_bar_per_panel():
    fig = precision.plot_precision_runs(RUNS, warmup=1)
    curves, gaps, times, traffic = fig.axes
    lines = {line.get_label(): list(line.get_ydata()) for line in curves.get_lines()}
    assert lines == {run["name"]: run["losses"] for run in RUNS}
    differences = {line.get_label(): list(line.get_ydata()) for line in gaps.get_lines()}
    assert differences["fp32"] == [0.0, 0.0, 0.0]
    assert differences["fp16 all-reduce"] == pytest.approx([0.0, 0.1, 0.1])
    assert [bar.get_width() for bar in times.patches] == [10.5, 8.5]
    assert [bar.get_width() for bar in traffic.patches] == [4096 / 2**20, 2048 / 2**20]
    assert [label.get_text() for label in traffic.get_yticklabels()] == ["fp32", "fp16 all-reduce"]
    assert png_bytes(fig).startswith(b"\x89PNG")


def test_no_runs_is_an_error():
    with pytest.raises(ValueError):
        precision.plot_precision_runs([])
