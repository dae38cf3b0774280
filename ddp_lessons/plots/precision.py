"""Mixed precision under DDP, measured: loss curves, step times and all-reduce bytes (lesson 13).

The lesson's script trains the same model once per precision setting and records, per run,
``{"name", "losses": [per step], "step_ms": [per step], "bytes_per_step": [per step]}``. Step
times are summarised as a median after `warmup` steps (the first steps build DDP's buckets and
warm caches).
"""

from __future__ import annotations

import statistics
from typing import Any, Mapping, Sequence

from matplotlib.figure import Figure

from ddp_lessons.i18n import tr
from ddp_lessons.plots.figures import new_figure

_STYLES = ["-", "--", "-.", ":"]
Run = Mapping[str, Any]
"""One precision setting's record: name, losses, step_ms and bytes_per_step (one value per step)."""


def median_step_ms(run: Run, warmup: int = 3) -> float:
    """The run's median step time in milliseconds, leaving out the first `warmup` steps."""
    times = list(run["step_ms"])
    if not times:
        raise ValueError(tr("run {name!r} recorded no step times", name=run["name"]))
    return statistics.median(times[warmup:] or times)


def plot_precision_runs(runs: Sequence[Run], warmup: int = 3,
                        title: str | None = None) -> Figure:
    """Four panels: loss per step, its difference from the first run's, median step time, bytes per step.

    The first run is the reference (full precision); curves that overlap it exactly are drawn
    dashed on top of it, so the difference panel shows what the eye cannot.
    """
    if not runs:
        raise ValueError(tr("no runs to plot"))
    fig, axes = new_figure(16.0, 3.8, cols=4)
    curves, gaps, times, traffic = axes[0]
    names = [run["name"] for run in runs]
    reference = runs[0]["losses"]
    for i, run in enumerate(runs):
        style = {"linestyle": _STYLES[i % len(_STYLES)], "linewidth": 2.5 if i == 0 else 1.5}
        curves.plot(range(len(run["losses"])), run["losses"], label=run["name"], **style)
        gaps.plot(range(len(run["losses"])), [a - b for a, b in zip(run["losses"], reference)],
                  label=run["name"], **style)
    curves.set(xlabel=tr("step"), ylabel=tr("loss (mean over ranks)"), title=tr("loss curves"))
    gaps.set(xlabel=tr("step"), ylabel=tr("loss - loss of {name}", name=runs[0]["name"]),
             title=tr("difference from the first"))
    for ax in (curves, gaps):
        ax.legend(fontsize="small")
        ax.grid(alpha=0.3)
    positions = range(len(runs))
    times.barh(positions, [median_step_ms(run, warmup) for run in runs], color="tab:orange")
    times.set(yticks=list(positions), yticklabels=names, xlabel=tr("ms per step (median)"),
              title=tr("step time on this machine"))
    times.invert_yaxis()
    traffic.barh(positions, [max(run["bytes_per_step"]) / 2**20 for run in runs], color="tab:blue")
    traffic.set(yticks=list(positions), yticklabels=names, xlabel=tr("MiB per step"),
                title=tr("handed to all_reduce"))
    traffic.invert_yaxis()
    fig.suptitle(title or tr("Same model, same data: precision settings compared"))
    fig.tight_layout()
    return fig
