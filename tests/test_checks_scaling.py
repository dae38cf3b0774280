"""`checks.scaling` (exercise 9) passes the speedup and efficiency formulas and hints at wrong ones."""
import pytest

from ddp_lessons import checks


def strong(seconds):
    return {w: (seconds[1] / t, seconds[1] / t / w) for w, t in seconds.items()}


def weak(seconds):
    return {w: (w * seconds[1] / t, seconds[1] / t) for w, t in seconds.items()}


def test_scaling_passes_the_formulas():
    checks.strong_scaling(strong)
    checks.weak_scaling(weak)


@pytest.mark.parametrize("wrong, hint", [
    (lambda s: {w: v[::-1] for w, v in strong(s).items()}, "speedup and efficiency are swapped"),
    (lambda s: {w: (t / s[1], t / s[1] / w) for w, t in s.items()}, "speedup is inverted"),
    (lambda s: {w: (s[1] / t, s[1] / t * w) for w, t in s.items()}, "efficiency is speedup / W"),
])
def test_strong_scaling_catches(wrong, hint, fails_with):
    with fails_with(hint):
        checks.strong_scaling(wrong)


def test_weak_scaling_catches_a_time_ratio_as_speedup(fails_with):
    with fails_with("speedup is the throughput ratio W * T(1) / T(W), not T(1) / T(W)"):
        checks.weak_scaling(strong)
