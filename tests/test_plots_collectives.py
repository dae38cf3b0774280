"""Lesson 2's playground figures: per-rank values around a collective, and barrier waits."""
import pytest

from ddp_lessons.plots import collectives


def gids(fig, prefix):
    return sorted(a.get_gid() for a in fig.findobj() if (a.get_gid() or "").startswith(prefix))


def test_every_rank_and_value_of_every_panel_gets_a_cell():
    fig = collectives.plot_rank_values({"before": [[1.0], [2.0]], "after": [[3.0, 4.0], [3.0, 4.0]]})
    assert gids(fig, "value:before") == ["value:before:0:0", "value:before:1:0"]
    assert len(gids(fig, "value:after")) == 4
    texts = [t.get_text() for t in fig.axes[1].texts]
    assert texts == ["3", "4", "3", "4"]


def test_a_panel_without_ranks_is_refused():
    with pytest.raises(ValueError):
        collectives.plot_rank_values({"before": []})


def test_barrier_bars_run_from_each_arrival_to_its_departure():
    fig = collectives.plot_barrier(arrived=[10.0, 10.5], left=[10.6, 10.6])
    bars = {a.get_gid(): a for a in fig.findobj() if (a.get_gid() or "").startswith("wait:")}
    assert sorted(bars) == ["wait:0", "wait:1"]
    assert bars["wait:0"].get_x() == pytest.approx(0.0) and bars["wait:0"].get_width() == pytest.approx(0.6)
    assert bars["wait:1"].get_x() == pytest.approx(0.5) and bars["wait:1"].get_width() == pytest.approx(0.1)
