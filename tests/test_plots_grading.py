"""The class report figure shows every student's score and every check's pass rate, misses in red."""
from matplotlib.colors import to_rgba

from ddp_lessons.plots import grading


def test_every_score_is_a_point_and_every_check_a_bar_red_when_most_missed_it():
    scores = {"05_sampler": [1.0, 0.75, 0.0], "08_checkpoint": [0.0, 1.0]}
    rates = [("05: shards match", 2 / 3), ("05: coverage", 1 / 3), ("08: resume", 0.5)]
    fig = grading.plot_class_report(scores, rates)
    left, right = fig.axes
    points = [tuple(xy) for collection in left.collections for xy in collection.get_offsets()]
    assert sorted(x for x, _ in points) == [0, 0, 75, 100, 100]
    assert [label.get_text() for label in left.get_yticklabels()] == list(scores)
    bars = right.patches
    assert [bar.get_width() for bar in bars] == [100 * rate for _, rate in rates]
    assert [to_rgba(bar.get_facecolor()) == to_rgba("tab:red") for bar in bars] == [False, True, False]
    assert [label.get_text() for label in right.get_yticklabels()] == [label for label, _ in rates]
