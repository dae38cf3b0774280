"""Lesson 15's figures: a rank's memory ledger as stacked bars, one segment per row.

The inputs are the records the lesson's script writes on each rank (``records.write``), one per rank and
configuration: ``{"strategy", "world_size", "rank", "shapes", "bucket_view", "step": {row: bytes},
"forward": {row: bytes}}``, ``step`` the ledger after the last optimizer step and ``forward`` the one at
the end of the last forward (`ddp_lessons.memory.measure`). No torch here: the figures draw numbers.

* `plot_bytes_per_rank`: bytes per rank after the step, DDP / ZeRO-1 / FSDP2 side by side and each one's
  world sizes next to each other; each bar is the mean over the ranks (a dot per rank shows how far
  ZeRO-1's whole-tensor split spreads them), and a black line on each bar marks what the formula
  `sharding.predict` says for it (the mean over ranks, from Ψ and the number of tensors alone).
* `plot_reshard`: FSDP2 at the end of forward with ``reshard_after_forward`` True and False, by world
  size; the hatched segment is the full parameters kept gathered until backward, and a grey line marks
  the same rank's total after the step.

Drawn elements carry a ``gid`` (``"bar:optimizer:zero1:4"``, ``"predicted:fsdp:2"``, ``"rank:zero1:4:0"``,
``"bar:gathered:False:2"``), so tests check what is drawn rather than its pixels.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping, Sequence
from typing import Any

from matplotlib.figure import Figure
from matplotlib.ticker import FuncFormatter
from matplotlib.transforms import blended_transform_factory

from ddp_lessons import sharding
from ddp_lessons.i18n import tr
from ddp_lessons.plots.figures import new_figure

Record = Mapping[str, Any]
"""One rank's record of one configuration (see the module docstring)."""

ROWS = ("parameters", "gathered", "gradients", "optimizer", "buffers", "buckets", "activations")
"""The ledger's rows, bottom to top, as `ddp_lessons.memory.ROWS` orders them."""
COLORS = {"parameters": "tab:blue", "gathered": "lightsteelblue", "gradients": "tab:orange",
          "optimizer": "tab:green", "buffers": "tab:gray", "buckets": "tab:red", "activations": "tab:purple"}
NAMES = {"ddp": "DDP", "zero1": "ZeRO-1", "zero2": "ZeRO-2", "fsdp": "FSDP2"}
"""The strategies `plot_bytes_per_rank` draws, in its order, and how it names them."""
RESHARD = {"fsdp": True, "fsdp-keep": False}
"""The lesson script's FSDP2 strategies by their ``reshard_after_forward``."""
WIDTH = 0.8


def _groups(records: Iterable[Record], strategies: Iterable[str]) -> dict[tuple[str, int], list[Record]]:
    """{(strategy, world size): its ranks' records sorted by rank}, strategies in `strategies`' order and
    world sizes ascending; every rank of each configuration must be there, exactly once."""
    order = list(strategies)
    found: dict[tuple[str, int], list[Record]] = {}
    for record in records:
        if record["strategy"] not in order:
            raise ValueError(tr("no bar for strategy {strategy!r}: give records of {known}",
                                strategy=record["strategy"], known=", ".join(order)))
        found.setdefault((record["strategy"], record["world_size"]), []).append(record)
    if not found:
        raise ValueError(tr("no records to plot"))
    for (strategy, n), ranks in found.items():
        if sorted(r["rank"] for r in ranks) != list(range(n)):
            raise ValueError(tr("{strategy} on {n} ranks: records of ranks {ranks}, not one per rank",
                                strategy=strategy, n=n, ranks=sorted(r["rank"] for r in ranks)))
    return {key: sorted(found[key], key=lambda r: r["rank"])
            for key in sorted(found, key=lambda key: (order.index(key[0]), key[1]))}


def _same_model(records: Iterable[Record]) -> list[list[int]]:
    """The parameters' shapes every record shares (the formulas need them); different models are an error."""
    shapes = {tuple(map(tuple, r["shapes"])) for r in records}
    if len(shapes) != 1:
        raise ValueError(tr("the records come from {count} different models: plot one model at a time",
                            count=len(shapes)))
    return [list(shape) for shape in shapes.pop()]


def _mean(ranks: Sequence[Record], moment: str, row: str) -> float:
    return sum(r[moment].get(row, 0) for r in ranks) / len(ranks)


def _stack(ax, x: float, ranks: Sequence[Record], moment: str, rows: Sequence[str], key: str,
           labelled: set[str]) -> float:
    """Stack the mean of each of `rows` over `ranks` at `x`; the top of the stack."""
    bottom = 0.0
    for row in rows:
        height = _mean(ranks, moment, row)
        if not height:
            continue
        label = sharding.row_label(row) if row not in labelled else None
        labelled.add(row)
        [bar] = ax.bar(x, height, WIDTH, bottom=bottom, color=COLORS[row], edgecolor="white", linewidth=0.5,
                       hatch="//" if row == "gathered" else None, label=label)
        bar.set_gid(f"bar:{row}:{key}")
        bottom += height
    return bottom


def _groups_axis(ax, positions: Mapping[Any, list[float]], names: Mapping[Any, str]) -> None:
    """Each group's name above its bars."""
    top = blended_transform_factory(ax.transData, ax.transAxes)
    for group, xs in positions.items():
        ax.text(sum(xs) / len(xs), 1.01, names[group], transform=top, ha="center", va="bottom", fontsize=10)


def _legend(ax, loc: str) -> None:
    """The lines and dots first, then the rows as the bars stack them, top row first."""
    handles, labels = ax.get_legend_handles_labels()
    rows = [sharding.row_label(row) for row in reversed(ROWS)]
    order = sorted(range(len(labels)), key=lambda i: (labels[i] in rows, rows.index(labels[i]) if labels[i] in rows else i))
    ax.legend([handles[i] for i in order], [labels[i] for i in order], fontsize=8, loc=loc)


def _bytes_axis(ax) -> None:
    """Bytes with thousands separators; room above the bars for the legend."""
    ax.set_ylim(0, ax.get_ylim()[1] * 1.3)
    ax.yaxis.set_major_formatter(FuncFormatter(lambda y, _: f"{y:,.0f}"))
    ax.set_ylabel(tr("bytes per rank"))
    ax.grid(axis="y", alpha=0.3)
    ax.set_axisbelow(True)


def plot_bytes_per_rank(records: Iterable[Record], optimizer: str = "adam") -> Figure:
    """Bytes per rank after the step, stacked by ledger row: a bar per strategy (``ddp``, ``zero1``,
    ``fsdp``) and world size, the mean over the ranks; a dot per rank's total; a black line at what
    `sharding.predict` gives for it (`optimizer`, fp32, the records' ``bucket_view``)."""
    records = list(records)
    groups = _groups(records, NAMES)
    shapes = _same_model(records)
    psi, tensors = sum(math.prod(s) for s in shapes), len(shapes)
    fig, [[ax]] = new_figure(1.6 + 0.75 * len(groups), 4.6, layout="constrained")
    labelled: set[str] = set()
    positions: dict[str, list[float]] = {}
    x = 0.0
    for (strategy, n), ranks in groups.items():
        if strategy in positions:
            x += 1.0
        elif positions:
            x += 1.8  # a gap between strategies
        positions.setdefault(strategy, []).append(x)
        key = f"{strategy}:{n}"
        _stack(ax, x, ranks, "step", ROWS, key, labelled)
        totals = [sum(r["step"].get(row, 0) for row in ROWS) for r in ranks]
        for r, total in zip(ranks, totals):
            [dot] = ax.plot(x + 0.22, total, "o", color="black", markersize=3.5, markerfacecolor="white",
                            label=tr("each rank's total") if "rank" not in labelled else None)
            dot.set_gid(f"rank:{key}:{r['rank']}")
            labelled.add("rank")
        views = {r["bucket_view"] for r in ranks}
        if len(views) != 1:
            raise ValueError(tr("{strategy} on {n} ranks: the ranks disagree on gradient_as_bucket_view",
                                strategy=strategy, n=n))
        predicted = sharding.predict(psi, n, strategy, optimizer, tensors=tensors, bucket_view=views.pop())["total"]
        [line] = ax.plot([x - WIDTH / 2 - 0.08, x + WIDTH / 2 + 0.08], [predicted, predicted], color="black",
                         linewidth=2.2, solid_capstyle="butt",
                         label=tr("formula (sharding.predict)") if "predicted" not in labelled else None)
        line.set_gid(f"predicted:{key}")
        labelled.add("predicted")
    ax.set_xticks([x for xs in positions.values() for x in xs],
                  [str(n) for (_, n) in groups])
    ax.set_xlabel(tr("world size (ranks)"))
    _groups_axis(ax, positions, NAMES)
    _bytes_axis(ax)
    _legend(ax, "upper right")
    ax.set_title(tr("After the step, Ψ = {psi:,} parameters with Adam in fp32: bars are the mean over the ranks",
                    psi=psi), fontsize=10, pad=18)
    return fig


def plot_reshard(records: Iterable[Record]) -> Figure:
    """FSDP2 at the end of forward, stacked by ledger row (mean over the ranks): a bar per world size and
    ``reshard_after_forward`` (strategy ``fsdp``: True, ``fsdp-keep``: False); a grey line at the same
    ranks' total after the step."""
    records = list(records)
    groups = _groups(records, RESHARD)
    fig, [[ax]] = new_figure(1.8 + 0.9 * len(groups), 4.6, layout="constrained")
    labelled: set[str] = set()
    positions: dict[int, list[float]] = {}
    ticks = []
    x = 0.0
    for (strategy, n), ranks in sorted(groups.items(), key=lambda item: (item[0][1], not RESHARD[item[0][0]])):
        if n in positions:
            x += 1.0
        elif positions:
            x += 1.8
        positions.setdefault(n, []).append(x)
        ticks.append((x, str(RESHARD[strategy])))
        key = f"{RESHARD[strategy]}:{n}"
        _stack(ax, x, ranks, "forward", ROWS, key, labelled)
        after = sum(_mean(ranks, "step", row) for row in ROWS)
        [line] = ax.plot([x - WIDTH / 2, x + WIDTH / 2], [after, after], color="dimgray",
                         linewidth=1.6, linestyle="--",
                         label=tr("total after the step") if "after" not in labelled else None)
        line.set_gid(f"after:{key}")
        labelled.add("after")
    ax.set_xticks([x for x, _ in ticks], [text for _, text in ticks])
    ax.set_xlabel("reshard_after_forward")
    _groups_axis(ax, positions, {n: tr("{count} ranks", count=n) for n in positions})
    _bytes_axis(ax)
    _legend(ax, "upper left")
    ax.set_title(tr("FSDP2 at the end of forward (mean over the ranks)"), fontsize=10, pad=18)
    return fig
