"""Lesson 16's figures: the ring drawn from traces, the sweep with its fit, predicted steps, stragglers."""
import pytest

from ddp_lessons import comm_model
from ddp_lessons.plots import comm


def gids(fig, prefix):
    return sorted(a.get_gid() for a in fig.findobj() if (a.get_gid() or "").startswith(prefix))


def two_rank_traces():
    """A 2-rank ring on rank values 1 and 2: start, one reduce-scatter step, one all-gather step."""
    return [[{"phase": "start", "step": 0, "sent": None, "values": [1.0, 1.0]},
             {"phase": "reduce-scatter", "step": 1, "sent": 0, "values": [1.0, 3.0]},
             {"phase": "all-gather", "step": 1, "sent": 1, "values": [3.0, 3.0]}],
            [{"phase": "start", "step": 0, "sent": None, "values": [2.0, 2.0]},
             {"phase": "reduce-scatter", "step": 1, "sent": 1, "values": [3.0, 2.0]},
             {"phase": "all-gather", "step": 1, "sent": 0, "values": [3.0, 3.0]}]]


def test_a_values_binary_digits_name_its_contributors():
    assert comm.contributors(5.0, 3) == [0, 2] and comm.contributors(7.0, 3) == [0, 1, 2]


def test_the_ring_has_a_cell_per_step_rank_and_chunk_labelled_by_contributors():
    fig = comm.plot_ring(two_rank_traces())
    assert len(gids(fig, "chunk:")) == 3 * 2 * 2
    labels = [t.get_text() for t in fig.axes[1].texts]
    assert labels == ["0", "all", "all", "1"]
    sent = [a for a in fig.findobj() if a.get_gid() == "chunk:1:0:0"][0]
    assert sent.get_linewidth() == 3  # rank 0 sent chunk 0 in the first step


def test_traces_of_different_lengths_are_refused():
    traces = two_rank_traces()
    traces[1].pop()
    with pytest.raises(ValueError):
        comm.plot_ring(traces)


def test_the_sweep_shows_points_fit_and_knee_per_world_size():
    points = [(s, n, 1e-4 + 1e-9 * comm_model.moved_bytes(s, n)) for n in (2, 3) for s in (1024, 2 ** 20, 2 ** 24)]
    fig = comm.plot_sweep(comm_model.fit(points), large=comm_model.fit(points, bandwidth_from=2 ** 20))
    assert gids(fig, "knee:") == ["knee:2", "knee:3"] and gids(fig, "measured:") == ["measured:2", "measured:3"]
    assert gids(fig, "large:") == ["large:2", "large:3"]


def test_predicted_steps_draw_each_bucket_and_the_backward():
    fitted = comm_model.Fit(1e-4, 1e-9)
    predictions = {"cnn": comm_model.predict_step(fitted, 2, [(4_000_000, 0.01), (400_000, 0.2)], 0.2),
                   "mlp": comm_model.predict_step(fitted, 2, [(4_000_000, 0.005)], 0.005)}
    fig = comm.plot_step_prediction(predictions)
    assert gids(fig, "bucket:") == ["bucket:cnn:0", "bucket:cnn:1", "bucket:mlp:0"]
    assert gids(fig, "backward:") == ["backward:cnn", "backward:mlp"]


def test_predicted_vs_measured_stacks_compute_and_exposed_per_row():
    row = {"model": "mlp", "bucket_cap_mb": None, "predicted": {"compute_s": 0.01, "exposed_s": 0.004},
           "measured": {"compute_s": 0.011, "exposed_s": -0.001}}
    fig = comm.plot_predicted_vs_measured([row, row])
    bars = {a.get_gid(): a for a in fig.findobj() if (a.get_gid() or "").count(":") == 2}
    assert bars["predicted:exposed:0"].get_height() == pytest.approx(4.0)
    assert bars["measured:exposed:1"].get_height() == 0.0  # a negative difference is noise, not time


def test_stragglers_split_each_ranks_step_into_work_and_waiting():
    fig = comm.plot_stragglers([[0.11, 0.12, 0.11], [0.12, 0.12, 0.12]], [[0.01] * 3, [0.11] * 3], slow_rank=1)
    bars = {a.get_gid(): a for a in fig.findobj() if (a.get_gid() or "").startswith("rank:")}
    assert bars["rank:0:wait"].get_width() == pytest.approx(100.0)
    assert bars["rank:1:work"].get_width() == pytest.approx(110.0)
