"""Shard coverage plots: which rank visits which data index in each epoch (taught in lesson 5).

The input is what `ddp_lessons.sampling` returns and what the lesson's ranks record: for each
epoch, one list of indices per rank (``[sampling.all_shards(...) for epoch in ...]``). Each
figure is a grid, data index across, epoch down; a cell is coloured by the rank that visits the
index and numbered with that rank's step (its position in the rank's shard). An index visited
twice (padding) is split into one stripe per visit and outlined, and the padding's repeat (a
position past the data set's end in the padded order) is a lighter stripe with a dashed edge; an
index nobody visits (``drop_last=True``) is hatched grey. Step numbers are black or white,
whichever contrasts more with the cell.
"""

from __future__ import annotations

from typing import Mapping, Sequence

from matplotlib.axes import Axes
from matplotlib.figure import Figure
from matplotlib.patches import Patch, Rectangle

from ddp_lessons import sampling
from ddp_lessons.i18n import tr
from ddp_lessons.plots.figures import new_figure, rank_color, repeat_color, text_color
from ddp_lessons.sampling import (  # noqa: F401 (lessons call coverage.contiguous_blocks, .shards_from_records)
    contiguous_blocks, epoch_note, index_visits, shards_from_records)

Shards = Sequence[Sequence[int]]
"""One epoch: the indices each rank visits, index 0 = rank 0 (as `sampling.all_shards`)."""

MAX_NUMBERED = 30
"""Cells carry their step number only while the grid has at most this many columns."""

DROPPED_COLOR = "#e6e6e6"
ROW_INCHES, SPLIT_ROW_INCHES = 0.42, 0.66
"""Height of one epoch row; rows of a panel with split (padded) cells are taller, so both numbers fit."""


def draw_shard_coverage(ax: Axes, epochs: Sequence[Shards], size: int, title: str | None = None) -> Axes:
    """Draw the index x epoch coverage grid of `epochs` on `ax` (with its legend); return `ax`."""
    _check_epochs(epochs)
    numbered = size <= MAX_NUMBERED
    repeated = dropped = False
    for row, shards in enumerate(epochs):
        world = len(shards)
        for index, seen in enumerate(index_visits(shards, size)):
            _draw_cell(ax, index, row, [(r, step, step * world + r >= size) for r, step in seen], numbered)
            repeated |= len(seen) > 1
            dropped |= not seen
    ax.set_xlim(-0.5, size - 0.5)
    ax.set_ylim(len(epochs) - 0.5, -0.5)
    ax.set_yticks(range(len(epochs)), [_row_label(e, shards, size) for e, shards in enumerate(epochs)])
    if size <= 2 * MAX_NUMBERED:
        ax.set_xticks(range(size))
        ax.tick_params(axis="x", labelsize=8 if size <= MAX_NUMBERED else 6)
    ax.set_xlabel(tr("dataset index"))
    ax.set_ylabel(tr("epoch"))
    ax.set_title(title or tr("{world} ranks, {size} samples", world=_world(epochs), size=size))
    ax.legend(handles=_legend_handles(_world(epochs), repeated, dropped, numbered), loc="upper left",
              bbox_to_anchor=(1.01, 1.0), frameon=False, fontsize=8)
    return ax


def plot_shard_coverage(epochs: Sequence[Shards], size: int, title: str | None = None) -> Figure:
    """Figure: which rank visits each index of a `size`-sample data set, one row per epoch."""
    return plot_coverage_panels({title or "": epochs}, size)


def plot_coverage_panels(panels: Mapping[str, Sequence[Shards]], size: int) -> Figure:
    """Figure: several coverage grids stacked for comparison, one per (title -> epochs) entry."""
    for epochs in panels.values():
        _check_epochs(epochs)
    heights = [(SPLIT_ROW_INCHES if _has_repeats(epochs, size) else ROW_INCHES) * len(epochs) + 1.1
               for epochs in panels.values()]
    fig, axes = new_figure(min(13.0, max(6.0, 0.36 * size + 3.5)), sum(heights), rows=len(panels),
                           gridspec_kw={"height_ratios": heights})
    for ax, (title, epochs) in zip(axes[:, 0], panels.items()):
        draw_shard_coverage(ax, epochs, size, title or None)
    fig.tight_layout()
    return fig


def plot_strided_vs_contiguous(size: int, world_size: int) -> Figure:
    """Figure: the wrong picture (contiguous blocks) above what DistributedSampler really does."""
    strided = sampling.all_shards(size, world_size, shuffle=False)
    return plot_coverage_panels({
        tr("WRONG mental model: rank r takes the r-th contiguous block"): [contiguous_blocks(size, world_size)],
        tr("DistributedSampler (shuffle=False): rank r takes positions r, r+W, r+2W, ..."): [strided],
    }, size)


def _check_epochs(epochs: Sequence[Shards]) -> None:
    if not epochs or not all(isinstance(shards, Sequence) and all(isinstance(s, Sequence) for s in shards)
                             for shards in epochs):
        raise ValueError(tr("expected one list of per-rank shards per epoch, e.g. "
                            "[sampling.all_shards(size, world, epoch=e) for e in range(3)]; "
                            "for a single epoch pass [sampling.all_shards(...)]"))


def _has_repeats(epochs: Sequence[Shards], size: int) -> bool:
    return any(len(seen) > 1 for shards in epochs for seen in index_visits(shards, size))


def _row_label(epoch: int, shards: Shards, size: int) -> str:
    note = epoch_note(shards, size)
    return tr("epoch {epoch} ({note})", epoch=epoch, note=note) if note else tr("epoch {epoch}", epoch=epoch)


def _world(epochs: Sequence[Shards]) -> int:
    return max(len(shards) for shards in epochs)


def _draw_cell(ax: Axes, index: int, row: int, seen: list[tuple[int, int, bool]], numbered: bool) -> None:
    """One grid cell: hatched if unvisited, else one stripe per (rank, step, is_repeat) visit."""
    left, top = index - 0.5, row - 0.5
    if not seen:
        ax.add_patch(Rectangle((left, top), 1, 1, facecolor=DROPPED_COLOR, edgecolor="#9a9a9a",
                               hatch="xx", linewidth=0.5))
        return
    height = 1 / len(seen)
    for k, (rank, step, repeat) in enumerate(seen):
        color = repeat_color(rank) if repeat else rank_color(rank)
        ax.add_patch(Rectangle((left, top + k * height), 1, height, facecolor=color, edgecolor="white",
                               linewidth=1))
        if repeat and height >= 0.5:  # a dashed edge while the stripe is tall enough to carry one
            ax.add_patch(Rectangle((left + 0.1, top + k * height + 0.06), 0.8, height - 0.12, fill=False,
                                   edgecolor="black", linestyle=(0, (2, 1.5)), linewidth=0.8))
        if numbered:
            ax.text(index, top + (k + 0.5) * height, str(step), ha="center", va="center",
                    fontsize=9 if len(seen) == 1 else 8, color=text_color(color), fontweight="bold")
    if len(seen) > 1:
        ax.add_patch(Rectangle((left + 0.04, top + 0.04), 0.92, 0.92, fill=False, edgecolor="black",
                               linewidth=2))


def _legend_handles(world: int, repeated: bool, dropped: bool, numbered: bool) -> list[Patch]:
    handles = [Patch(facecolor=rank_color(r), label=tr("rank {rank}", rank=r)) for r in range(world)]
    if repeated:
        handles.append(Patch(facecolor="white", edgecolor="black", linewidth=2,
                             label=tr("visited twice (padding)")))
        handles.append(Patch(facecolor=repeat_color(0), edgecolor="black", linestyle=(0, (2, 1.5)),
                             label=tr("the padding's repeat")))
    if dropped:
        handles.append(Patch(facecolor=DROPPED_COLOR, edgecolor="#9a9a9a", hatch="xx",
                             label=tr("never visited (drop_last)")))
    if numbered:
        handles.append(Patch(facecolor="none", edgecolor="none", label=tr("number = the rank's step")))
    return handles
