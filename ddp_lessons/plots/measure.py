"""Lesson 11's figures: accuracy counted four ways, the logged loss, loss against steps and samples.

They take what the lesson's scripts recorded (`records.load` rows or one rank's dict) and return
the Figure.
"""

from __future__ import annotations

import math
from typing import Any, Mapping, Sequence

from matplotlib.figure import Figure

from ddp_lessons.i18n import tr
from ddp_lessons.plots.figures import new_figure, rank_color

RIGHT, WRONG = "tab:green", "tab:red"


def plot_accuracy_methods(accuracy: Mapping[str, Mapping[str, float]], single_process: float,
                          wrong: Sequence[str] = ("padded", "drop_last"),
                          title: str | None = None) -> Figure:
    """One bar per way of counting (red: wrong, green: right), labelled correct/seen, and the
    single-process accuracy as a dashed line."""
    fig, axes = new_figure(7.0, 3.2)
    ax = axes[0][0]
    names = list(accuracy)
    values = [100 * accuracy[name]["accuracy"] for name in names]
    bars = ax.bar(names, values, color=[WRONG if name in wrong else RIGHT for name in names])
    for bar, name in zip(bars, names):
        ax.annotate(f"{accuracy[name]['correct']:g}/{accuracy[name]['seen']:g}",
                    (bar.get_x() + bar.get_width() / 2, bar.get_height()), ha="center", va="bottom")
    ax.axhline(100 * single_process, color="black", linestyle="--",
               label=tr("single process: {accuracy:.1f} %", accuracy=100 * single_process))
    low = min(values + [100 * single_process])
    ax.set_ylim(max(0.0, low - 5), min(100.0, max(values) + 3))
    ax.set_ylabel(tr("accuracy (%)"))
    ax.legend(loc="lower right")
    ax.set_title(title or tr("Validation accuracy, counted four ways"))
    return fig


def plot_logged_loss(rows: Sequence[Mapping[str, Any]], log_every: int,
                     title: str | None = None) -> Figure:
    """Per-step loss of each rank (thin), the all-reduced mean (black) and the k-step window means."""
    fig, axes = new_figure(8.0, 3.6)
    ax = axes[0][0]
    for row in rows:
        local = row["log"]["local"]
        ax.plot(range(1, len(local) + 1), local, color=rank_color(row["rank"]),
                linewidth=2.0 if row["rank"] == 0 else 0.8, alpha=1.0 if row["rank"] == 0 else 0.5,
                label=tr("rank {rank}'s own batch (what rank 0 prints)", rank=row["rank"]) if row["rank"] == 0
                else tr("rank {rank}'s own batch", rank=row["rank"]))
    mean = rows[0]["log"]["global"]
    ax.plot(range(1, len(mean) + 1), mean, color="black", linewidth=1.5, label=tr("all-reduced mean (every step)"))
    windows = rows[0]["log"]["windows"]
    for i, value in enumerate(windows):  # each window's mean, drawn over the steps it averages
        ax.hlines(value, log_every * i + 1, log_every * (i + 1), color="black", linestyle=":")
    ax.plot([log_every * (i + 1) for i in range(len(windows))], windows, "o", color="black",
            label=tr("mean of the last {k} steps (1 all-reduce per {k})", k=log_every))
    ax.set(xlabel=tr("step"), ylabel=tr("training loss"),
           title=title or tr("What gets logged: rank 0's loss vs the global mean"))
    ax.grid(True, alpha=0.3)
    ax.legend(fontsize="small")
    return fig


def plot_loss_vs_steps_and_samples(curves: Mapping[str, Mapping[str, Any]], eval_every: int,
                                   title: str | None = None) -> Figure:
    """Two panels: held-out loss against optimizer steps, and against samples seen (steps x global batch)."""
    fig, axes = new_figure(11.0, 3.8, cols=2)
    by_steps, by_samples = axes[0]
    most = 0
    for name, curve in curves.items():
        steps = [eval_every * i for i in range(len(curve["loss"]))]
        loss = [value if math.isfinite(value) else float("nan") for value in curve["loss"]]
        style = {"linestyle": "--" if curve.get("accumulate", 1) > 1 else "-", "marker": ".", "label": name}
        by_steps.plot(steps, loss, **style)
        by_samples.plot([s * curve["global_batch"] for s in steps], loss, **style)
        if loss[-1] < 10:  # a diverged curve would stretch the axis
            most = max(most, steps[-1] * curve["global_batch"])
    by_steps.set(xlabel=tr("optimizer steps"), ylabel=tr("held-out loss (log scale)"), yscale="log")
    by_samples.set(xlabel=tr("samples seen (steps x global batch)"), yscale="log")
    if most:
        by_samples.set_xlim(0, most * 1.05)
    for ax in (by_steps, by_samples):
        ax.set_ylim(top=10)
        ax.grid(True, which="both", alpha=0.3)
    by_steps.legend(fontsize="small")
    fig.suptitle(title or tr("Held-out loss of each setup"))
    fig.tight_layout()
    return fig
