"""Loss curves from the ranks' training records (taught in lessons 7 and 8).

Each rank of a training script records ``{"epochs": [...], "loss": [...]}`` (the mean loss of
its own shard in each epoch) with `ddp_lessons.records.write`; these functions take the list
`records.load` returns, one dict per rank. The loss axis is logarithmic, so a steady decrease
reads as a straight-ish line and a restart from scratch stands out as a jump.
"""

from __future__ import annotations

from typing import Any, Mapping, Sequence

from matplotlib.axes import Axes
from matplotlib.figure import Figure
from matplotlib.ticker import MaxNLocator

from ddp_lessons.i18n import tr
from ddp_lessons.plots.figures import new_figure, rank_color

Rows = Sequence[Mapping[str, Any]]
"""One training record per rank, as `records.load` returns them: keys rank, epochs, loss."""


def plot_loss_per_rank(rows: Rows, reference: Mapping[str, Any] | None = None,
                       reference_label: str | None = None, title: str | None = None) -> Figure:
    """Loss against epoch, one line per rank; `reference` (a record) is drawn dashed black."""
    fig, axes = new_figure(7.0, 4.0)
    ax = axes[0][0]
    for row in rows:
        ax.plot(row["epochs"], row["loss"], marker="o", color=rank_color(row["rank"]),
                label=tr("rank {rank}", rank=row["rank"]))
    if reference is not None:
        ax.plot(reference["epochs"], reference["loss"], "k--", marker="x",
                label=reference_label or tr("single process"))
    _label(ax, title or tr("Training loss of each rank's shard"))
    return fig


def plot_resumed_loss(first: Rows, resumed: Rows,
                      title: str | None = None) -> Figure:
    """Both runs' loss per rank on one epoch axis, with a dotted line where the second run began."""
    if [row["rank"] for row in first] != [row["rank"] for row in resumed]:
        raise ValueError(tr("both runs need a record from the same ranks, in the same order"))
    fig, axes = new_figure(7.0, 4.0)
    ax = axes[0][0]
    for before, after in zip(first, resumed):
        color = rank_color(before["rank"])
        ax.plot(before["epochs"], before["loss"], marker="o", color=color,
                label=tr("rank {rank}, run 1", rank=before["rank"]))
        ax.plot(after["epochs"], after["loss"], marker="s", linestyle="--", color=color,
                label=tr("rank {rank}, run 2 (resumed)", rank=after["rank"]))
    start = resumed[0]["epochs"][0]
    ax.axvline(start - 0.5, color="grey", linestyle=":", label=tr("checkpoint loaded (epoch {epoch})", epoch=start))
    _label(ax, title or tr("Training resumed from a checkpoint"))
    return fig


def _label(ax: Axes, title: str) -> None:
    """Log-scale loss axis, whole-number epochs, a grid, a legend and the title."""
    ax.set_yscale("log")
    ax.set_xlabel(tr("epoch"))
    ax.set_ylabel(tr("mean loss of the epoch (log scale)"))
    ax.xaxis.set_major_locator(MaxNLocator(integer=True))
    ax.grid(True, which="both", alpha=0.3)
    ax.legend()
    ax.set_title(title)
