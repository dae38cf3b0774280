"""Scaling figures from `ddp_lessons.bench` results: speedup, efficiency, step time split (lesson 9).

Every function takes a results document (what `bench.run_bench` returns or `bench.load` reads) and
optional reference documents (`bench.reference(...)`), drawn dashed with hollow markers and
labelled with their own ``label`` so a reader always sees where a curve comes from. Error bars
span the quartiles of the step times (measured curves); reference rows without step times have
none. The ideal line carries ``gid="ideal"``.
"""

from __future__ import annotations

from typing import Any, Mapping, Sequence

from matplotlib.axes import Axes
from matplotlib.figure import Figure
from matplotlib.ticker import MaxNLocator

from ddp_lessons import scaling_results
from ddp_lessons.plots.figures import new_figure

Doc = Mapping[str, Any]
COMPUTE, COMMUNICATION, IN_FLIGHT = "tab:blue", "tab:orange", "tab:gray"
REFERENCE_LINES, REFERENCE_MARKERS = ("--", "-."), ("s", "^", "D")
"""Reference curves: the experiment's colour, a line style and hollow marker per document."""


def plot_speedup(result: Doc, experiments: Sequence[str] = ("cnn/weak",),
                 references: Sequence[Doc] = (), sync: str = "every") -> Figure:
    """Speedup (samples/s over 1 rank's) against world size, with the ideal line y = x."""
    fig, axes = new_figure(6.4, 4.2, layout="constrained")
    ax = axes[0][0]
    top = _draw_curves(ax, result, references, experiments, sync, "speedup")
    ax.plot([1, top], [1, top], color="black", linewidth=1, linestyle=":", label="ideal (linear)",
            gid="ideal")
    _finish(ax, "speedup over 1 rank", "Speedup: samples/s at n ranks ÷ samples/s at 1 rank")
    return fig


def plot_efficiency(result: Doc, experiments: Sequence[str] = ("cnn/weak",),
                    references: Sequence[Doc] = (), sync: str = "every") -> Figure:
    """Scaling efficiency (speedup / world size) against world size, with the ideal line at 1."""
    fig, axes = new_figure(6.4, 4.2, layout="constrained")
    ax = axes[0][0]
    top = _draw_curves(ax, result, references, experiments, sync, "efficiency")
    ax.plot([1, top], [1, 1], color="black", linewidth=1, linestyle=":", label="ideal (100 %)",
            gid="ideal")
    ax.set_ylim(bottom=0)
    _finish(ax, "efficiency (speedup ÷ ranks)", "Scaling efficiency")
    return fig


def plot_compute_communication(result: Doc, experiment: str = "cnn/weak",
                               references: Sequence[Doc] = ()) -> Figure:
    """Per world size, a step's time split into compute (no_sync step) and exposed communication.

    The bar's height is the measured step time; its orange part is how much longer a step takes
    when DDP all-reduces (sync every step) than when it does not (``no_sync``). The thin grey bar
    beside it is the time an all-reduce was in flight, timed by a comm hook (CPU only): when it
    is taller than the orange part, backward computation hid the rest.
    """
    docs = [result, *references]
    splits = [_split(doc, experiment) for doc in docs]
    worlds = sorted({s["world_size"] for split in splits for s in split})
    fig, axes = new_figure(9.0, 4.2, layout="constrained")
    ax = axes[0][0]
    width = 0.8 / len(docs)
    for i, (doc, split) in enumerate(zip(docs, splits)):
        xs = [worlds.index(s["world_size"]) + (i - (len(docs) - 1) / 2) * width for s in split]
        compute = [s["compute"] * 1e3 for s in split]
        comm = [s["communication"] * 1e3 for s in split]
        hatch = "//" if i else None
        ax.bar(xs, compute, width * 0.75, color=COMPUTE, hatch=hatch, edgecolor="white",
               label=f"compute ({doc['label']})", gid=f"compute:{i}")
        ax.bar(xs, comm, width * 0.75, bottom=compute, color=COMMUNICATION, hatch=hatch,
               edgecolor="white", label=f"exposed communication ({doc['label']})", gid=f"comm:{i}")
        flight = [(x, s["in_flight"] * 1e3) for x, s in zip(xs, split) if s["in_flight"] is not None]
        if flight:
            ax.bar([x + width * 0.45 for x, _ in flight], [h for _, h in flight], width * 0.15,
                   color=IN_FLIGHT, hatch=hatch, edgecolor="white",
                   label=f"all-reduce in flight, comm hook ({doc['label']})")
        for x, c, m in zip(xs, compute, comm):
            ax.annotate(f"{c + m:.3g}", (x, c + m), ha="center", va="bottom", fontsize=8)
    ax.set_xticks(range(len(worlds)), [f"{w} rank{'s' if w > 1 else ''}" for w in worlds])
    ax.set_xlabel("world size")
    ax.set_ylabel("milliseconds per step (median)")
    ax.set_title(f"Where a step's time goes: {experiment}")
    ax.margins(y=0.12)
    ax.legend(fontsize=7, loc="upper left", bbox_to_anchor=(1.01, 1.0))
    return fig


def plot_step_times(result: Doc, world_size: int, experiments: Sequence[tuple[str, str]],
                    title: str = "Step time") -> Figure:
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
        ax.annotate(f"  {m:.3g} ms, {r['allreduce_per_step']:g} all-reduce(s)", (end, y),
                    va="center", fontsize=8)
    ax.set_yticks(range(len(rows)), labels)
    ax.invert_yaxis()
    ax.set_xlim(0, max(q3) * 1.7)
    ax.set_xlabel("milliseconds per optimizer step (median; whiskers: quartiles)")
    ax.set_title(f"{title} ({world_size} ranks, {result['label']})")
    return fig


def _draw_curves(ax: Axes, result: Doc, references: Sequence[Doc], experiments: Sequence[str],
                 sync: str, quantity: str) -> int:
    """Draw `quantity` against world size for each document and experiment; return the largest world."""
    top = 1
    for i, doc in enumerate([result, *references]):
        for j, exp in enumerate(experiments):
            rows = [r for r in scaling_results.select(doc, exp, sync) if r.get(quantity) is not None]
            if not rows:
                continue
            xs = [r["world_size"] for r in rows]
            top = max(top, *xs)
            style = {"linestyle": "-", "marker": "o"} if i == 0 else \
                {"linestyle": REFERENCE_LINES[(i - 1) % len(REFERENCE_LINES)],
                 "marker": REFERENCE_MARKERS[(i - 1) % len(REFERENCE_MARKERS)],
                 "markerfacecolor": "none"}
            ax.errorbar(xs, [r[quantity] for r in rows], yerr=_error_bars(rows, quantity),
                        capsize=3, color=f"C{j}", label=f"{exp} ({doc['label']})",
                        gid=f"curve:{i}:{exp}", **style)
    return top


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
                      "communication": communication, "in_flight": in_flight})
    if not split:
        raise ValueError(f"{doc['label']}: no measured step times for {experiment!r} with both "
                         "sync='every' and sync='never'")
    return split


def _row(result: Doc, experiment: str, sync: str, world_size: int) -> Doc:
    """The row of `experiment` and `sync` at `world_size`."""
    for row in scaling_results.select(result, experiment, sync):
        if row["world_size"] == world_size:
            return row
    raise ValueError(f"no row for {experiment!r}, sync={sync!r}, world size {world_size}")


def _finish(ax: Axes, ylabel: str, title: str) -> None:
    """Label, grid and legend shared by the curve plots."""
    ax.set_xlabel("world size (ranks)")
    ax.set_ylabel(ylabel)
    ax.set_title(title)
    ax.xaxis.set_major_locator(MaxNLocator(integer=True))
    ax.grid(alpha=0.3)
    ax.legend(fontsize=7)
