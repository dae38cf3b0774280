"""The learner's progress as a figure (``python -m ddp_lessons progress --figure``, lesson 00).

Three panels from a report card's plain data (`ddp_lessons.report_card.Card.as_json`): per lesson,
the quick checks answered and those right the first time; per confidence level, how often the answer
was right; each numeric prediction's factor off the measurement (log scale, 1× = exact). Every word
through `tr`, in the card's language.
"""

from __future__ import annotations

from typing import Any

from matplotlib.figure import Figure
from matplotlib.ticker import FixedLocator, FuncFormatter, MaxNLocator, NullLocator

from ddp_lessons.base.quiz_forms import CONFIDENCE as LEVELS, confidence_words
from ddp_lessons.i18n import tr
from ddp_lessons.plots.figures import new_figure



def plot_report_card(card: dict[str, Any]) -> Figure:
    """Quick checks per lesson, calibration, and numeric predictions' error factors."""
    lang = card.get("lang") or None
    fig, axes = new_figure(12, 3.6, cols=3, gridspec_kw={"width_ratios": [2.2, 1.3, 1.2]})
    lessons, by_level, guesses = axes[0]
    rows = card["lessons"]
    positions = range(len(rows))
    lessons.bar(positions, [r["questions"] for r in rows], color="#e4e4e4", label=tr("asked", lang=lang))
    lessons.bar(positions, [r["answered"] for r in rows], color="#9ecae1", label=tr("answered", lang=lang))
    lessons.bar(positions, [r["right_first_time"] for r in rows], color="#3182bd",
                label=tr("right the first time", lang=lang))
    lessons.set_xticks(list(positions), [r["lesson"] for r in rows])
    lessons.set_xlabel(tr("lesson", lang=lang))
    lessons.set_ylabel(tr("quick checks", lang=lang))
    lessons.set_title(tr("Quick checks per lesson", lang=lang))
    lessons.legend(loc="upper left", fontsize="small", frameon=False)
    lessons.set_ylim(0, max([r["questions"] for r in rows] + [1]) + 1.5)
    lessons.yaxis.set_major_locator(MaxNLocator(integer=True))

    counts = [card["calibration"].get(level, {"right": 0, "answered": 0}) for level in LEVELS]
    shares = [100 * c["right"] / c["answered"] if c["answered"] else 0 for c in counts]
    by_level.bar(range(3), shares, color=["#31a354", "#fdae6b", "#bdbdbd"])
    for i, c in enumerate(counts):
        by_level.text(i, shares[i] + 2, f"{c['right']}/{c['answered']}" if c["answered"] else "-", ha="center")
    by_level.set_xticks(range(3), [confidence_words(lang)[level] for level in LEVELS], fontsize="small")
    by_level.set_ylim(0, 110)
    by_level.set_ylabel(tr("% right", lang=lang))
    by_level.set_title(tr("How sure you were", lang=lang))

    predictions = card["predictions"]
    factors = [p["off_by"] if p["off_by"] is not None else float("nan") for p in predictions]
    signed = [f if p["predicted"] >= p["measured"] else 1 / f for f, p in zip(factors, predictions)]
    guesses.axhline(1, color="#636363", linewidth=1, linestyle="--")
    guesses.scatter(range(len(signed)), signed, color="#756bb1", zorder=3)
    guesses.set_yscale("log")
    guesses.set_xticks(range(len(predictions)), [f"{p['lesson']}-{p['question']}" for p in predictions])
    guesses.set_xlim(-0.7, max(len(predictions), 1) - 0.3)
    top = max([max(s, 1 / s) for s in signed if s == s] + [2]) * 1.5
    guesses.set_ylim(1 / top, top)
    ticks = [2.0 ** k for k in range(-8, 9) if 1 / top <= 2.0 ** k <= top]
    guesses.yaxis.set_major_locator(FixedLocator(ticks))
    guesses.yaxis.set_minor_locator(NullLocator())
    guesses.yaxis.set_major_formatter(FuncFormatter(lambda v, _: f"{v:g}×" if v >= 1 else f"1/{1 / v:g}×"))
    guesses.set_ylabel(tr("predicted / measured", lang=lang))
    guesses.set_title(tr("Numeric predictions", lang=lang))
    if not predictions:
        guesses.text(0.5, 0.75, tr("none revealed yet", lang=lang), ha="center", va="center",
                     transform=guesses.transAxes, color="#636363")
    fig.tight_layout()
    return fig
