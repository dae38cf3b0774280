"""Each rank's input pipeline (lesson 17): time spent waiting for the next batch against time computing.

A training script records, per rank, one run per DataLoader setting: ``{"num_workers": n,
"wait_s": [...], "compute_s": [...]}`` (seconds of each step spent in ``next(loader)`` and after it).
`step_split` reduces a run to medians; `plot_data_wait` draws them, one group of bars per setting and
one bar per rank, the waiting part hatched: a rank whose bar is mostly waiting is starved by its loader.
"""

from __future__ import annotations

import statistics
from typing import Any, Mapping, Sequence

from matplotlib.figure import Figure
from matplotlib.patches import Patch

from ddp_lessons.i18n import tr
from ddp_lessons.plots.figures import new_figure, rank_color

Run = Mapping[str, Any]
"""One rank's run of one loader setting: num_workers, wait_s and compute_s (lists of seconds per step)."""


def step_split(run: Run, skip: int = 1) -> dict:
    """Median seconds per step waiting for data and computing, and the share spent waiting.

    The first `skip` steps are left out: they include starting the worker processes."""
    wait, compute = run["wait_s"][skip:], run["compute_s"][skip:]
    if not wait or len(wait) != len(compute):
        raise ValueError(tr("a run needs as many waiting times as computing times, more than {skip}", skip=skip))
    waiting, computing = statistics.median(wait), statistics.median(compute)
    return {"num_workers": run["num_workers"], "wait_s": waiting, "compute_s": computing,
            "waiting_share": waiting / (waiting + computing) if waiting + computing > 0 else 0.0}


def plot_data_wait(runs_per_rank: Sequence[Sequence[Run]], title: str | None = None) -> Figure:
    """Per step, time waiting for data (hatched) and computing, for each loader setting and each rank.

    `runs_per_rank[r]` is rank r's list of runs, in the same settings' order on every rank."""
    settings = [run["num_workers"] for run in runs_per_rank[0]]
    if any([run["num_workers"] for run in runs] != settings for runs in runs_per_rank):
        raise ValueError(tr("every rank needs a run of the same loader settings, in the same order"))
    fig, axes = new_figure(7.0, 4.0)
    ax = axes[0][0]
    ranks = len(runs_per_rank)
    width = 0.8 / ranks
    for rank, runs in enumerate(runs_per_rank):
        splits = [step_split(run) for run in runs]
        where = [i - 0.4 + width * (rank + 0.5) for i in range(len(settings))]
        waits = [s["wait_s"] * 1e3 for s in splits]
        computes = [s["compute_s"] * 1e3 for s in splits]
        ax.bar(where, waits, width, color=rank_color(rank), alpha=0.45, hatch="//", edgecolor=rank_color(rank))
        ax.bar(where, computes, width, bottom=waits, color=rank_color(rank))
    ax.set_xticks(range(len(settings)))
    ax.set_xticklabels([tr("num_workers={n}", n=n) for n in settings])
    ax.set_ylabel(tr("ms per step (median)"))
    handles = [Patch(color=rank_color(rank), label=tr("rank {rank}", rank=rank)) for rank in range(ranks)]
    handles.append(Patch(facecolor="white", edgecolor="grey", hatch="//", label=tr("waiting for data")))
    handles.append(Patch(facecolor="grey", label=tr("computing")))
    ax.legend(handles=handles, loc="upper right")
    ax.set_title(title or tr("Where each rank's step goes, per DataLoader setting"))
    ax.grid(axis="y", alpha=0.3)
    return fig
