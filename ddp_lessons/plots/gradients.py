"""Gradients compared entry by entry: DDP ranks vs one process on the whole batch (lesson 4).

Each panel puts the single-process gradient on x and every rank's DDP gradient on y, one point per
parameter entry, and draws the relation the lesson proves as a dashed line: y = x for a mean
loss, y = x / world_size for a summed loss.
"""

from __future__ import annotations

from typing import Sequence

from matplotlib.axes import Axes
from matplotlib.figure import Figure

from ddp_lessons.i18n import tr
from ddp_lessons.plots.figures import new_figure

Gradient = Sequence[float]


def plot_gradient_agreement(single_mean: Gradient, single_sum: Gradient,
                            ddp_mean: Sequence[Gradient], ddp_sum: Sequence[Gradient]) -> Figure:
    """Two scatter panels, mean and summed loss: each rank's DDP gradient against one process's."""
    world_size = len(ddp_mean)
    if len(ddp_sum) != world_size:
        raise ValueError(tr("{mean} ranks' mean-loss gradients but {summed} sum-loss ones", mean=world_size,
                            summed=len(ddp_sum)))
    fig, [[mean_ax, sum_ax]] = new_figure(11, 4.6, 1, 2, layout="constrained")
    _draw_panel(mean_ax, single_mean, ddp_mean, 1.0, "y = x", tr("loss = mean over the batch"))
    _draw_panel(sum_ax, single_sum, ddp_sum, 1.0 / world_size, f"y = x / {world_size}",
                tr("loss = sum over the batch"))
    fig.suptitle(tr("Gradient after backward(): {world} DDP ranks vs one process on the whole batch",
                    world=world_size))
    return fig


def _draw_panel(ax: Axes, single: Gradient, per_rank: Sequence[Gradient], slope: float, relation: str,
                title: str) -> None:
    """One rank per marker; the dashed line is the relation the gradients should follow."""
    for rank, gradient in enumerate(per_rank):
        if len(gradient) != len(single):
            raise ValueError(tr("rank {rank} has {got} gradient entries, expected {expected}", rank=rank,
                                got=len(gradient), expected=len(single)))
        style = (dict(s=60, marker="o", facecolors="none", edgecolors="C0") if rank == 0
                 else dict(s=18, marker="x", color=f"C{rank}"))  # rank 0 hollow, so others show through
        ax.scatter(single, gradient, label=tr("DDP rank {rank}", rank=rank), gid=f"rank:{rank}", **style)
    low, high = min(single), max(single)
    ax.plot([low, high], [slope * low, slope * high], "k--", linewidth=1, label=relation, gid="relation")
    ax.set_xlabel(tr("one process, whole batch: gradient entry"))
    ax.set_ylabel(tr("DDP rank after backward(): gradient entry"))
    ax.set_title(title)
    ax.legend()
