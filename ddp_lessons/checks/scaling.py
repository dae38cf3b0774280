"""Checks of exercise 9: speedup and efficiency under strong scaling and under weak scaling."""

from __future__ import annotations

from typing import Callable, Sequence

from ddp_lessons.checks.common import close, passed, recorded
from ddp_lessons.i18n import tr


def _scaling_hint(got: tuple[float, float], speedup: float, efficiency: float, ratio: float,
                  world: int) -> str:
    """What the (speedup, efficiency) `got` most likely got wrong, as a hint."""
    if close(got, (efficiency, speedup)):
        return tr("speedup and efficiency are swapped: return (speedup, efficiency)")
    if close(got[0], 1 / speedup):
        return tr("speedup is inverted: it is above 1 when W ranks are faster than one")
    if close(got[0], ratio) and not close(ratio, speedup):
        return tr("in weak scaling W ranks process W times the samples of one rank per step: speedup "
                  "is the throughput ratio W * T(1) / T(W), not T(1) / T(W)")
    if close(got[1], speedup * world):
        return tr("efficiency is speedup / W (1.0 = perfect scaling), not speedup * W")
    return tr("speedup = throughput(W) / throughput(1); efficiency = speedup / W")


def _scaling(student_fn: Callable, cases: Sequence[dict[int, float]], weak: bool) -> None:
    """Assert `student_fn(seconds)` gives each world size's (speedup, efficiency) in every case."""
    for seconds in cases:
        got = student_fn(dict(seconds))
        assert sorted(got) == sorted(seconds), tr(
            "return one (speedup, efficiency) per world size {expected}, got keys {got}",
            expected=sorted(seconds), got=sorted(got))
        for world, t in seconds.items():
            ratio = seconds[1] / t
            speedup = world * ratio if weak else ratio
            expected = (speedup, speedup / world)
            assert close(got[world], expected), tr(
                "seconds {seconds}, world size {world}: expected (speedup, efficiency) "
                "({speedup:.4g}, {efficiency:.4g}), got {got}. {hint}",
                seconds=seconds, world=world, speedup=expected[0], efficiency=expected[1],
                got=tuple(got[world]), hint=_scaling_hint(tuple(got[world]), *expected, ratio, world))


@recorded("09")
def strong_scaling(student_fn: Callable) -> None:
    """Fixed total work: speedup T(1) / T(W), efficiency speedup / W."""
    _scaling(student_fn, [{1: 12.0, 2: 6.6, 4: 4.0, 8: 2.5}, {1: 4.0, 2: 4.4}, {1: 1.0}], weak=False)
    passed(tr("strong-scaling speedup and efficiency are right, slowdowns included"))


@recorded("09")
def weak_scaling(student_fn: Callable) -> None:
    """Fixed batch per rank: speedup W * T(1) / T(W) (samples/s ratio), efficiency T(1) / T(W)."""
    _scaling(student_fn, [{1: 0.05, 2: 0.055, 4: 0.08, 16: 0.11}, {1: 2.0, 3: 2.0}], weak=True)
    passed(tr("weak-scaling speedup and efficiency are right"))
