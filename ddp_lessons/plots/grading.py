"""The class report's figure (`python -m ddp_lessons grade`, docs/INSTRUCTORS.md): how the class
scored on each exercise, and which checks, that is which concepts, the class missed.

It takes plain numbers (`ddp_lessons.grading.report` computes them from the grades), never runs
anything.
"""

from __future__ import annotations

from statistics import median
from typing import Mapping, Sequence

from matplotlib.figure import Figure

from ddp_lessons.i18n import tr
from ddp_lessons.plots.figures import new_figure

MISSED = 0.5
"""Checks passed by fewer than this share of the class are drawn red: the concepts to teach again."""


def plot_class_report(scores: Mapping[str, Sequence[float]], pass_rates: Sequence[tuple[str, float]],
                      title: str | None = None) -> Figure:
    """Left: every student's score (share of the points) per exercise, with the median; right: the
    share of the class passing each check (red below `MISSED`)."""
    height = max(3.5, 0.32 * len(pass_rates) + 1.5, 0.45 * len(scores) + 1.5)
    fig, axes = new_figure(13.0, height, 1, 2, gridspec_kw={"width_ratios": [1, 1.4]})
    left, right = axes[0]
    names = list(scores)
    for row, name in enumerate(names):
        values = [100 * value for value in scores[name]]
        jitter = [row + 0.25 * ((i * 0.618) % 1 - 0.5) for i in range(len(values))]  # deterministic
        left.scatter(values, jitter, s=18, alpha=0.6, color="tab:blue",
                     label=tr("a student") if row == 0 else None)
        if values:
            middle = median(values)
            left.plot([middle, middle], [row - 0.35, row + 0.35], color="black", lw=2,
                      label=tr("median") if row == 0 else None)
    left.set_yticks(range(len(names)), names)
    left.set_ylim(len(names) - 0.5, -0.5)
    left.set_xlim(-5, 105)
    left.set_xlabel(tr("score (% of the exercise's points)"))
    left.set_title(tr("Score distribution per exercise"))
    if names:
        left.legend(loc="lower left", fontsize=8)
    labels = [label for label, _ in pass_rates]
    rates = [100 * rate for _, rate in pass_rates]
    colors = ["tab:red" if rate < 100 * MISSED else "tab:green" for rate in rates]
    right.barh(range(len(rates)), rates, color=colors)
    for row, rate in enumerate(rates):
        right.text(min(rate + 1, 92), row, f"{rate:.0f} %", va="center", fontsize=8)
    right.set_yticks(range(len(labels)), labels, fontsize=8)
    right.set_ylim(len(labels) - 0.5, -0.5)
    right.set_xlim(0, 100)
    right.set_xlabel(tr("students passing the check (%); red: under {share:.0f} %", share=100 * MISSED))
    right.set_title(tr("Pass rate of every check"))
    fig.suptitle(title or tr("Class report"))
    fig.tight_layout()
    return fig
