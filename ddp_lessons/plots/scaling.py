"""Scaling figures from `ddp_lessons.bench` results: speedup, efficiency, step time split (lesson 9).

Every function takes a results document (what `bench.run_bench` returns or `bench.load` reads) and
optional reference documents (`bench.reference(...)`), drawn dashed with hollow markers and
labelled with their own ``label`` so a reader always sees where a curve comes from. Error bars
span the quartiles of the step times (measured curves); reference rows without step times have
none. The ideal line carries ``gid="ideal"``. World sizes go on a log2 axis (1, 2, 4, 8, 16 evenly
spaced), so a small machine's points are not squeezed into a corner by a 16-rank reference, and
legends sit beside the axes, never on the data.
"""

from __future__ import annotations

import math
from typing import Any, Mapping, Sequence

from matplotlib.axes import Axes
from matplotlib.figure import Figure
from matplotlib.ticker import FixedLocator, NullLocator

from ddp_lessons.base import scaling_results
from ddp_lessons.i18n import number, tr
from ddp_lessons.plots.figures import new_figure

Doc = Mapping[str, Any]
COMPUTE, COMMUNICATION, IN_FLIGHT, OVERHEAD = "tab:blue", "tab:orange", "tab:gray", "tab:purple"
REFERENCE_LINES, REFERENCE_MARKERS = ("--", "-."), ("s", "^", "D")
"""Reference curves: the experiment's colour, a line style and hollow marker per document."""


def plot_speedup(result: Doc, experiments: Sequence[str] = ("cnn/weak",),
                 references: Sequence[Doc] = (), sync: str = "every") -> Figure:
    """Speedup (samples/s over 1 rank's) against world size on log2 axes, with the ideal line y = x."""
    fig, axes = new_figure(7.6, 5.4, layout="constrained")
    ax = axes[0][0]
    worlds = _draw_curves(ax, result, references, experiments, sync, "speedup")
    ax.plot([1, worlds[-1]], [1, worlds[-1]], color="black", linewidth=1, linestyle=":",
            label=tr("ideal (linear)"), gid="ideal")
    ax.set_yscale("log", base=2)
    _powers_of_two(ax.yaxis, *ax.get_ylim())
    _finish(ax, worlds, tr("speedup over 1 rank (log2)"), tr("Speedup: samples/s at n ranks ÷ samples/s at 1 rank"))
    return fig


def plot_efficiency(result: Doc, experiments: Sequence[str] = ("cnn/weak",),
                    references: Sequence[Doc] = (), sync: str = "every") -> Figure:
    """Scaling efficiency (speedup / world size) against world size (log2), with the ideal line at 1."""
    fig, axes = new_figure(7.6, 5.4, layout="constrained")
    ax = axes[0][0]
    worlds = _draw_curves(ax, result, references, experiments, sync, "efficiency")
    ax.plot([1, worlds[-1]], [1, 1], color="black", linewidth=1, linestyle=":", label=tr("ideal (100 %)"),
            gid="ideal")
    points = [y for curve in ax.containers for y in curve.lines[0].get_ydata()]
    ax.set_ylim(0, max(1.2, 1.15 * max(points, default=1)))  # quartile whiskers of a noisy run may run off
    _finish(ax, worlds, tr("efficiency (speedup ÷ ranks)"), tr("Scaling efficiency"))
    return fig


def plot_compute_communication(result: Doc, experiment: str = "cnn/weak",
                                references: Sequence[Doc] = ()) -> Figure:
    """Per world size, a step's time split into compute (no_sync step) and what syncing adds.

    The bar's height is the measured step time; its blue part is the step inside ``no_sync``. What
    syncing adds on top is DDP overhead alone at 1 rank (purple: the reducer copies gradients into
    its bucket, nothing goes anywhere) and exposed communication plus that overhead at 2+ ranks
    (orange). The thin grey bar beside it is the time an all-reduce was in flight, timed by a comm
    hook (CPU only), the longest of the ranks: it includes a fast rank's wait for the slower one, so
    it can be taller than the orange part even with a single bucket, where nothing overlaps backward.
    Tick labels give the threads each rank ran with: on a shared CPU, more ranks means fewer
    threads per rank, so the compute part grows with the world size.
    """
    docs = [result, *references]
    splits = [_split(doc, experiment) for doc in docs]
    worlds = sorted({s["world_size"] for split in splits for s in split})
    fig, axes = new_figure(8.4, 5.2, layout="constrained")
    ax = axes[0][0]
    width = 0.8 / len(docs)
    threads = {w: {s["threads_per_rank"] for split in splits for s in split if s["world_size"] == w}
               for w in worlds}
    for i, (doc, split) in enumerate(zip(docs, splits)):
        xs = [worlds.index(s["world_size"]) + (i - (len(docs) - 1) / 2) * width for s in split]
        compute = [s["compute"] * 1e3 for s in split]
        extra = [s["communication"] * 1e3 for s in split]
        alone = [s["world_size"] == 1 for s in split]
        hatch = "//" if i else None
        ax.bar(xs, compute, width * 0.75, color=COMPUTE, hatch=hatch, edgecolor="white",
               label=tr("compute: step inside no_sync ({label})", label=doc["label"]), gid=f"compute:{i}")
        for gid, colour, what, keep in (
                (f"overhead:{i}", OVERHEAD, tr("DDP overhead at 1 rank, nothing sent"), True),
                (f"comm:{i}", COMMUNICATION, tr("exposed communication + DDP overhead"), False)):
            picked = [(x, c, e) for x, c, e, a in zip(xs, compute, extra, alone) if a == keep]
            if picked:
                ax.bar([x for x, _, _ in picked], [e for _, _, e in picked], width * 0.75,
                       bottom=[c for _, c, _ in picked], color=colour, hatch=hatch, edgecolor="white",
                       label=tr("{what}: sync − no_sync ({label})", what=what, label=doc["label"]), gid=gid)
        flight = [(x, s["in_flight"] * 1e3) for x, s in zip(xs, split)
                  if s["in_flight"] is not None and s["world_size"] > 1]
        if flight:
            ax.bar([x + width * 0.45 for x, _ in flight], [h for _, h in flight], width * 0.15,
                   color=IN_FLIGHT, hatch=hatch, edgecolor="white",
                   label=tr("all-reduce in flight, comm hook ({label})", label=doc["label"]), gid=f"flight:{i}")
        for x, c, m, s in zip(xs, compute, extra, split):
            note = "" if len(threads[s["world_size"]]) == 1 else f"\n{_threads(s['threads_per_rank'])}"
            ax.annotate(f"{number(c + m, '.3g')} ms{note}", (x, c + m), ha="center", va="bottom", fontsize=8)
    ticks = [(tr("{count} ranks", count=w) if w > 1 else tr("1 rank"))
             + (f"\n× {_threads(*threads[w])}" if len(threads[w]) == 1 else "") for w in worlds]
    ax.set_xticks(range(len(worlds)), ticks)
    ax.set_xlabel(tr("world size (threads per rank below it)"))
    ax.set_ylabel(tr("milliseconds per step (median)"))
    ax.set_title(tr("Where a step's time goes: {experiment}", experiment=experiment))
    ax.margins(y=0.15)
    _legend_below(ax, ncols=1)
    return fig


def plot_step_times(result: Doc, world_size: int, experiments: Sequence[tuple[str, str]],
                    title: str | None = None) -> Figure:
    """Horizontal bars: median step time of each (experiment, sync) at `world_size`, IQR whiskers.

    Each bar is annotated with the all-reduces one optimizer step made.
    """
    rows = [_row(result, exp, sync, world_size) for exp, sync in experiments]
    fig, axes = new_figure(8.0, 1.2 + 0.45 * len(rows), layout="constrained")
    ax = axes[0][0]
    medians = [r["step_s"]["median"] * 1e3 for r in rows]
    q3 = [r["step_s"]["q3"] * 1e3 for r in rows]
    whiskers = [[m - r["step_s"]["q1"] * 1e3 for m, r in zip(medians, rows)],
                [top - m for top, m in zip(q3, medians)]]
    labels = [f"{exp}, sync={sync}" for exp, sync in experiments]
    ax.barh(range(len(rows)), medians, xerr=whiskers, color=COMPUTE, capsize=3)
    for y, (m, end, r) in enumerate(zip(medians, q3, rows)):
        ax.annotate(tr("  {ms:.3g} ms, {count:g} all-reduce(s)", ms=m, count=r["allreduce_per_step"]), (end, y),
                    va="center", fontsize=8)
    ax.set_yticks(range(len(rows)), labels)
    ax.invert_yaxis()
    ax.set_xlim(0, max(q3) * 1.7)
    ax.set_xlabel(tr("milliseconds per optimizer step (median; whiskers: quartiles)"))
    ax.set_title(tr("{title} ({world} ranks, {label})", title=title or tr("Step time"), world=world_size,
                    label=result["label"]))
    return fig


def _draw_curves(ax: Axes, result: Doc, references: Sequence[Doc], experiments: Sequence[str],
                 sync: str, quantity: str) -> list[int]:
    """Draw `quantity` against world size for each document and experiment; return the world sizes."""
    worlds = {1}
    ax.set_xscale("log", base=2)
    for i, doc in enumerate([result, *references]):
        for j, exp in enumerate(experiments):
            rows = [r for r in scaling_results.select(doc, exp, sync) if r.get(quantity) is not None]
            if not rows:
                continue
            xs = [r["world_size"] for r in rows]
            worlds.update(xs)
            style = {"linestyle": "-", "marker": "o"} if i == 0 else \
                {"linestyle": REFERENCE_LINES[(i - 1) % len(REFERENCE_LINES)],
                 "marker": REFERENCE_MARKERS[(i - 1) % len(REFERENCE_MARKERS)],
                 "markerfacecolor": "none"}
            ax.errorbar(xs, [r[quantity] for r in rows], yerr=_error_bars(rows, quantity),
                        capsize=3, color=f"C{j}", label=f"{exp} ({doc['label']})",
                        gid=f"curve:{i}:{exp}", **style)
    return sorted(worlds)


def _error_bars(rows: Sequence[Doc], quantity: str) -> list[list[float]] | None:
    """Distances from each point to the ends of its quartile range (None when unmeasured)."""
    if any(r.get("efficiency_range") is None for r in rows):
        return None
    scale = [r["world_size"] if quantity == "speedup" else 1 for r in rows]
    return [[r[quantity] - r["efficiency_range"][0] * k for r, k in zip(rows, scale)],
            [r["efficiency_range"][1] * k - r[quantity] for r, k in zip(rows, scale)]]


def _split(doc: Doc, experiment: str) -> list[dict[str, Any]]:
    """Per world size: step time split into compute and exposed communication, and hook time."""
    never = {r["world_size"]: r for r in scaling_results.select(doc, experiment, "never")}
    split = []
    for row in scaling_results.select(doc, experiment, "every"):
        if row["world_size"] not in never or row.get("step_s") is None:
            continue
        step = row["step_s"]["median"]
        communication = max(0.0, step - never[row["world_size"]]["step_s"]["median"])
        in_flight = row["allreduce_s"]["median"] if row.get("allreduce_s") else None
        split.append({"world_size": row["world_size"], "compute": step - communication,
                      "communication": communication, "in_flight": in_flight,
                      "threads_per_rank": row.get("threads_per_rank")})
    if not split:
        raise ValueError(tr("{label}: no measured step times for {experiment!r} with both sync='every' and "
                            "sync='never'", label=doc["label"], experiment=experiment))
    return split


def _row(result: Doc, experiment: str, sync: str, world_size: int) -> Doc:
    """The row of `experiment` and `sync` at `world_size`."""
    for row in scaling_results.select(result, experiment, sync):
        if row["world_size"] == world_size:
            return row
    raise ValueError(tr("no row for {experiment!r}, sync={sync!r}, world size {world}", experiment=experiment,
                        sync=sync, world=world_size))


def _finish(ax: Axes, worlds: Sequence[int], ylabel: str, title: str) -> None:
    """Log2 world-size ticks, labels, grid and a legend beside the axes, shared by the curve plots."""
    ax.set_xlabel(tr("world size (ranks, log2 axis)"))
    ax.set_ylabel(ylabel)
    ax.set_title(title)
    ax.xaxis.set_major_locator(FixedLocator(worlds))
    ax.xaxis.set_major_formatter(lambda value, _: f"{value:g}")  # CourseFigure localizes it
    ax.xaxis.set_minor_locator(NullLocator())
    ax.set_xlim(worlds[0] / 1.25, worlds[-1] * 1.25)
    ax.grid(alpha=0.3)
    _legend_below(ax)


def _legend_below(ax: Axes, ncols: int = 2) -> None:
    """The axes' legend under the figure, where it cannot cover a curve or a bar."""
    ax.figure.legend(*ax.get_legend_handles_labels(), loc="outside lower center", ncols=ncols,
                     fontsize=8)


def _powers_of_two(axis, low: float, high: float) -> None:
    """Ticks at the powers of two between `low` and `high`, written as plain numbers."""
    lowest, highest = math.floor(math.log2(max(low, 1e-3))), math.ceil(math.log2(high))
    axis.set_major_locator(FixedLocator([2.0 ** k for k in range(lowest, highest + 1)]))
    axis.set_major_formatter(lambda value, _: f"{value:g}")  # CourseFigure localizes it
    axis.set_minor_locator(NullLocator())


def _threads(count: int | None) -> str:
    """'1 thread', '2 threads' or 'threads unknown'."""
    return tr("threads unknown") if count is None else tr("1 thread") if count == 1 else \
        tr("{count} threads", count=count)
