"""What each rank held before and after a collective, and when ranks left a barrier (lesson 2's
live playground; the values are gathered from the ranks with ``%ranks_gather``).

Every function returns a matplotlib Figure (via `figures.new_figure`). Value cells and barrier
bars carry a ``gid`` (``"value:after:1:0"`` = panel "after", rank 1, element 0; ``"wait:1"``), so
tests check a drawing's structure rather than its pixels.
"""

from __future__ import annotations

from typing import Mapping, Sequence

from matplotlib.figure import Figure
from matplotlib.patches import Rectangle

from ddp_lessons.i18n import number, tr
from ddp_lessons.plots.figures import new_figure, rank_color

Values = Sequence[Sequence[float]]
"""One panel: the flat values each rank holds, index 0 = rank 0 (as ``%ranks_gather t.tolist()``)."""


def plot_rank_values(panels: Mapping[str, Values], title: str = "") -> Figure:
    """One grid per panel (e.g. "before", "after"): a row per rank, a numbered cell per value."""
    if not panels or any(len(rows) == 0 for rows in panels.values()):
        raise ValueError(tr("give at least one panel with one row per rank"))
    widths = [max(len(row) for row in rows) for rows in panels.values()]
    ranks = max(len(rows) for rows in panels.values())
    fig, axes = new_figure(0.8 + 0.75 * len(panels) + 0.65 * sum(widths), 0.9 + 0.5 * ranks, 1, len(panels),
                           layout="constrained", gridspec_kw={"width_ratios": widths})
    for ax, widest, (name, rows) in zip(axes[0], widths, panels.items()):
        for rank, row in enumerate(rows):
            y = len(rows) - 1 - rank
            for column, value in enumerate(row):
                ax.add_patch(Rectangle((column, y), 1, 1, facecolor=rank_color(rank), alpha=0.25,
                                       edgecolor="white", linewidth=2, gid=f"value:{name}:{rank}:{column}"))
                ax.text(column + 0.5, y + 0.5, number(value, "g"), ha="center", va="center", fontsize=10)
        ax.set_xlim(0, widest)
        ax.set_ylim(0, len(rows))
        ax.set_yticks([len(rows) - 0.5 - r for r in range(len(rows))],
                      [tr("rank {rank}", rank=r) for r in range(len(rows))])
        ax.set_xticks([c + 0.5 for c in range(widest)], [f"[{c}]" for c in range(widest)])
        ax.tick_params(length=0)
        for side in ax.spines.values():
            side.set_visible(False)
        ax.set_title(name, fontsize=10)
    if title:
        fig.suptitle(title, fontsize=11)
    return fig


def plot_barrier(arrived: Sequence[float], left: Sequence[float]) -> Figure:
    """Each rank's wait at a barrier: a bar from its arrival to its departure (seconds after the first
    arrival), and a line at the last arrival, before which nobody can leave."""
    if len(arrived) != len(left) or not arrived:
        raise ValueError(tr("give one arrival and one departure time per rank"))
    start, last = min(arrived), max(arrived)
    fig, [[ax]] = new_figure(7, 0.9 + 0.5 * len(arrived), layout="constrained")
    for rank, (came, went) in enumerate(zip(arrived, left)):
        y = len(arrived) - 1 - rank
        ax.barh(y, went - came, left=came - start, height=0.5, color=rank_color(rank), alpha=0.6,
                gid=f"wait:{rank}")
        ax.plot([came - start], [y], "o", color=rank_color(rank))
    ax.axvline(last - start, color="black", linestyle="--", linewidth=1, label=tr("last rank arrives"))
    ax.set_yticks([len(arrived) - 1 - r for r in range(len(arrived))], [tr("rank {rank}", rank=r) for r in range(len(arrived))])
    ax.set_xlabel(tr("seconds after the first rank arrived (dot: arrival, bar: waiting in the barrier)"))
    ax.legend(loc="center left", bbox_to_anchor=(1.0, 0.5), fontsize=8)
    ax.set_title(tr("dist.barrier(): every rank leaves after the last one arrives"), fontsize=10)
    return fig
