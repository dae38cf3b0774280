"""Backward timelines draw each layer's compute and each bucket's all-reduce where they happened."""
import pytest
from matplotlib.backends.backend_agg import FigureCanvasAgg

from ddp_lessons.plots import timeline


def step_record(buckets):
    """A step record as lesson 6's ranks write it: 3 layers back to back, then optimizer.step()."""
    return {"layers": {"linear2": {"start": 0.0, "end": 2.0}, "linear0": {"start": 4.0, "end": 6.0},
                       "linear1": {"start": 2.0, "end": 4.0}},
            "buckets": buckets, "backward_end": 8.0, "step_end": 9.0}


TWO_BUCKETS = [{"index": 0, "start": 2.5, "end": 5.0, "bytes": 8, "layers": ["linear2", "linear1"]},
               {"index": 1, "start": 6.0, "end": 7.5, "bytes": 4, "layers": ["linear0"]}]
ONE_BUCKET_AT_THE_END = [{"index": 0, "start": 6.0, "end": 7.5, "bytes": 12, "layers": []}]


def test_layer_spans_are_in_the_order_backward_ran_them():
    assert [name for name, _, _ in timeline.layer_spans(step_record([]))] == ["linear2", "linear1", "linear0"]


@pytest.mark.parametrize("buckets, overlap", [
    (TWO_BUCKETS, 2.5),                 # bucket 0 in flight from 2.5 until 5.0 while layers compute
    (ONE_BUCKET_AT_THE_END, 0.0),       # launched when compute was done: nothing hidden
    ([{"index": 0, "start": 1.0, "end": 3.0}, {"index": 1, "start": 2.0, "end": 4.5}], 3.5),  # union
])
def test_overlap_counts_all_reduce_time_hidden_behind_compute(buckets, overlap):
    assert timeline.overlap_ms(step_record(buckets)) == pytest.approx(overlap)


def test_timeline_has_a_compute_lane_and_one_lane_per_bucket():
    fig = timeline.plot_backward_timeline({"rank 0": step_record(TWO_BUCKETS)})
    ax = fig.axes[0]
    assert [t.get_text() for t in ax.get_yticklabels()] == [
        "backward compute", "bucket 0 all-reduce", "bucket 1 all-reduce"]
    bars = {(round(p.get_x(), 3), round(p.get_width(), 3), round(p.get_y() + p.get_height() / 2))
            for p in ax.patches if p.get_width() > 0 and p.get_height() < 1}
    assert {(0.0, 2.0, 0), (2.0, 2.0, 0), (4.0, 2.0, 0)} <= bars   # layers on lane 0
    assert {(2.5, 2.5, 1), (6.0, 1.5, 2)} <= bars                   # buckets on their own lanes
    assert ax.get_title() == "rank 0"
    assert ax.get_xlabel() == "ms since loss.backward() was called"


def test_timeline_marks_where_backward_returns_and_step_runs():
    ax = timeline.plot_backward_timeline({"a": step_record(TWO_BUCKETS)}).axes[0]
    labels = ax.get_legend_handles_labels()[1]
    assert labels == ["loss.backward() returns", "optimizer.step(): no communication"]
    assert [line.get_xdata()[0] for line in ax.lines if line.get_linestyle() == "--"] == [8.0]


def test_one_panel_per_step_record():
    fig = timeline.plot_backward_timeline({"cap 1": step_record(TWO_BUCKETS),
                                           "cap 25": step_record(ONE_BUCKET_AT_THE_END)})
    assert [ax.get_title() for ax in fig.axes] == ["cap 1", "cap 25"]


def test_x_axis_names_the_clock_the_times_came_from():
    """On GPUs lesson 6 records CUDA events (device time); the axis says so."""
    step = {**step_record(TWO_BUCKETS), "clock": "CUDA events, device time"}
    ax = timeline.plot_backward_timeline({"gpu": step}).axes[0]
    assert ax.get_xlabel() == "ms since loss.backward() was called (CUDA events, device time)"


QUEUED = [{"index": 0, "start": 1.0, "run_start": 1.0, "end": 5.0},
          {"index": 1, "start": 2.0, "run_start": 2.5, "end": 6.0},
          {"index": 2, "start": 3.0, "run_start": 5.0, "end": 7.5}]


def test_queued_and_running_time_are_told_apart():
    step = step_record(QUEUED)
    assert timeline.queued_ms(step) == pytest.approx(0.5 + 2.0)
    assert timeline.running_ms(step) == pytest.approx(4.0 + 3.5 + 2.5)
    assert timeline.run_span(TWO_BUCKETS[0]) == (2.5, 5.0)  # not measured: launch to completion


@pytest.mark.parametrize("buckets, most", [(QUEUED, 2), (TWO_BUCKETS, 1), ([], 0),
                                           (QUEUED + [{"index": 3, "start": 4.0, "end": 4.5}], 3)])
def test_most_running_at_once_counts_concurrent_all_reduces(buckets, most):
    assert timeline.most_running_at_once(step_record(buckets)) == most


def test_overlap_counts_running_time_not_queued_time():
    """Bucket 2 is launched at 3.0 but runs from 5.0: only 5.0-6.0 of it is under compute (ends 6.0)."""
    step = step_record(QUEUED)
    assert timeline.overlap_ms(step) == pytest.approx(6.0 - 1.0)
    late = step_record([{"index": 0, "start": 1.0, "run_start": 6.5, "end": 7.0}])
    assert timeline.overlap_ms(late) == 0.0


def test_queued_time_is_a_hatched_bar_before_the_running_bar():
    ax = timeline.plot_backward_timeline({"q": step_record(QUEUED)}).axes[0]
    lane = {round(p.get_y() + p.get_height() / 2): [] for p in ax.patches}
    for p in ax.patches:
        if 0 < p.get_height() < 1:
            lane[round(p.get_y() + p.get_height() / 2)].append((p.get_x(), p.get_width(), bool(p.get_hatch())))
    assert sorted(lane[3]) == [(3.0, 2.0, True), (5.0, 2.5, False)]   # queued 3-5, running 5-7.5
    assert sorted(lane[1]) == [(1.0, 4.0, False)]                     # ran at once: no queued bar


def test_panels_share_one_x_axis_and_one_legend_above_them():
    short = {**step_record(TWO_BUCKETS), "step_end": 9.0}
    long = {**step_record(QUEUED), "backward_end": 15.0, "step_end": 20.0}
    fig = timeline.plot_backward_timeline({"short": short, "long": long})
    assert [ax.get_xlim() for ax in fig.axes] == [(0, pytest.approx(20.4))] * 2
    assert fig.axes[0].get_xlabel() == "" and fig.axes[1].get_xlabel().startswith("ms since")
    labels = [t.get_text() for t in fig.legends[0].get_texts()]
    assert any("queued" in label for label in labels) and "all-reduce running" in labels


def test_nothing_is_drawn_outside_the_saved_png():
    """The figure's legend and labels lie inside the canvas, so a plain savefig clips nothing."""
    fig = timeline.plot_backward_timeline({"a": step_record(QUEUED), "b": step_record(TWO_BUCKETS)})
    canvas = FigureCanvasAgg(fig)
    canvas.draw()
    renderer, canvas = canvas.get_renderer(), fig.bbox
    for artist in [fig.legends[0], *fig.axes]:
        box = artist.get_tightbbox(renderer)
        assert canvas.x0 - 1 <= box.x0 and box.x1 <= canvas.x1 + 1 and canvas.y0 - 1 <= box.y0 and box.y1 <= canvas.y1 + 1
