"""Lesson 17's input-pipeline figure: each rank's median step split into waiting for data and computing."""
import pytest

from ddp_lessons.plots import pipeline
from ddp_lessons.plots.figures import png_bytes


def run(num_workers, wait, compute):
    return {"num_workers": num_workers, "wait_s": wait, "compute_s": compute}


RANKS = [[run(0, [9.0, 0.03, 0.05, 0.04], [0.01] * 4), run(2, [9.0, 0.001, 0.003, 0.002], [0.02] * 4)],
         [run(0, [9.0, 0.06, 0.06, 0.06], [0.01] * 4), run(2, [9.0, 0.0, 0.0, 0.0], [0.03] * 4)]]


def test_the_split_is_the_median_after_the_first_step_which_starts_the_workers():
    split = pipeline.step_split(RANKS[0][0])
    assert split == {"num_workers": 0, "wait_s": 0.04, "compute_s": 0.01, "waiting_share": pytest.approx(0.8)}
    assert pipeline.step_split(RANKS[1][1])["waiting_share"] == 0.0


def test_each_rank_has_a_waiting_bar_under_its_computing_bar_for_each_setting():
    fig = pipeline.plot_data_wait(RANKS)
    bars = fig.axes[0].patches
    assert len(bars) == 2 * 2 * 2  # ranks x settings x (waiting, computing)
    heights = sorted(round(bar.get_height(), 6) for bar in bars)
    assert heights == sorted([40.0, 10.0, 2.0, 20.0, 60.0, 10.0, 0.0, 30.0])
    computing = [bar for bar in bars if not bar.get_hatch()]
    assert sorted(round(bar.get_y(), 6) for bar in computing) == [0.0, 2.0, 40.0, 60.0]  # stacked on the wait
    assert [t.get_text() for t in fig.axes[0].get_xticklabels()] == ["num_workers=0", "num_workers=2"]
    assert png_bytes(fig)[:4] == b"\x89PNG"


def test_ranks_with_different_settings_are_refused():
    with pytest.raises(ValueError, match="same loader settings"):
        pipeline.plot_data_wait([RANKS[0], RANKS[1][:1]])
    with pytest.raises(ValueError, match="as many waiting times"):
        pipeline.step_split(run(0, [1.0], [1.0]))
