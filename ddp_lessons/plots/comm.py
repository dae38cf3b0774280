"""Lesson 16's figures: a ring all-reduce step by step, the α–β fit of a sweep, a predicted DDP
step, predicted against measured steps, and stragglers. No torch: the inputs are what the ranks
recorded (gathered with ``%ranks_gather``) and `ddp_lessons.comm_model` objects.

Drawn elements carry a ``gid`` (``"chunk:2:1:0"`` = panel 2, rank 1, chunk 0; ``"bucket:0"``;
``"rank:1:wait"``), so tests check a drawing's structure rather than its pixels.
"""

from __future__ import annotations

from typing import Any, Sequence

from matplotlib import colormaps
from matplotlib.figure import Figure
from matplotlib.patches import Rectangle

from ddp_lessons import comm_model
from ddp_lessons.plots.coverage import rank_color
from ddp_lessons.plots.figures import new_figure

Trace = Sequence[dict[str, Any]]
"""One rank's ring: ``{"phase", "step", "sent", "values"}`` per step (values: each chunk's first
element; rank r starts with 2**r everywhere, so a value's binary digits say whose data it holds)."""


def contributors(value: float, world: int) -> list[int]:
    """The ranks whose 2**rank is summed in `value` (its binary digits)."""
    bits = int(round(value))
    return [r for r in range(world) if bits >> r & 1]


def plot_ring(traces: Sequence[Trace]) -> Figure:
    """A panel per step, a row per rank, a cell per chunk: the shade says how many ranks' data the
    chunk holds (dark = all: reduced), the text whose; a thick edge marks the chunk the rank sent."""
    world, steps = len(traces), len(traces[0])
    if any(len(trace) != steps for trace in traces):
        raise ValueError("every rank needs the same number of steps")
    shades = colormaps["Blues"]
    fig, axes = new_figure(0.6 + 1.55 * steps, 0.9 + 0.45 * world, 1, steps, layout="constrained")
    for panel, ax in enumerate(axes[0]):
        for rank, trace in enumerate(traces):
            entry, y = trace[panel], world - 1 - rank
            for chunk, value in enumerate(entry["values"]):
                held = contributors(value, world)
                full = len(held) == world
                ax.add_patch(Rectangle((chunk, y), 1, 1, facecolor=shades(0.15 + 0.8 * len(held) / world),
                                       edgecolor="black" if chunk == entry["sent"] else "white",
                                       linewidth=2.5 if chunk == entry["sent"] else 1,
                                       gid=f"chunk:{panel}:{rank}:{chunk}"))
                ax.text(chunk + 0.5, y + 0.5, "all" if full else "+".join(map(str, held)),
                        ha="center", va="center", fontsize=8, color="white" if full else "black")
        first = traces[0][panel]
        ax.set_title(f"{first['phase']}" + (f" {first['step']}" if first["step"] else ""), fontsize=9)
        ax.set_xlim(0, len(first["values"]))
        ax.set_ylim(0, world)
        ax.set_xticks([c + 0.5 for c in range(len(first["values"]))],
                      [f"c{c}" for c in range(len(first["values"]))], fontsize=8)
        ax.set_yticks([world - 0.5 - r for r in range(world)],
                      [f"rank {r}" for r in range(world)] if panel == 0 else [""] * world, fontsize=8)
        ax.tick_params(length=0)
        for side in ax.spines.values():
            side.set_visible(False)
    fig.suptitle("Ring all-reduce, from the ranks' tensors: whose data each chunk holds "
                 "(thick edge: the chunk sent to rank + 1 in that step)", fontsize=10)
    return fig


def plot_sweep(fitted: comm_model.Fit, title: str = "") -> Figure:
    """Left: measured all-reduce time against message size (log-log), per world size, with the fit
    and its knee. Right: the bus bandwidth measured (nccl-tests' busbw) and its limit 1/β."""
    fig, [[left, right]] = new_figure(11, 4, 1, 2, layout="constrained")
    worlds = sorted({n for _, n, _ in fitted.points})
    sizes = sorted({s for s, _, _ in fitted.points})
    for n in worlds:
        points = sorted((s, t) for s, w, t in fitted.points if w == n)
        xs, ts = [s for s, _ in points], [t for _, t in points]
        color = rank_color(n)
        left.plot(xs, [t * 1e3 for t in ts], "o", color=color, label=f"measured, {n} ranks", gid=f"measured:{n}")
        left.plot(sizes, [fitted.time(s, n) * 1e3 for s in sizes], "-", color=color, alpha=0.7,
                  label=f"fit, {n} ranks", gid=f"fit:{n}")
        right.plot(xs, [comm_model.busbw(s, t, n) / 1e9 for s, t in points], "o-", color=color,
                   label=f"{n} ranks", gid=f"busbw:{n}")
        knee = fitted.knee_bytes(n)
        left.axvline(knee, color=color, linestyle=":", linewidth=1, gid=f"knee:{n}")
    right.axhline(fitted.bus_bandwidth / 1e9, color="black", linestyle="--", linewidth=1,
                  label=f"1/β = {fitted.bus_bandwidth / 1e9:.2f} GB/s")
    left.text(0.02, 0.97, f"α = {fitted.alpha * 1e3:.3f} ms\n1/β = {fitted.bus_bandwidth / 1e9:.2f} GB/s\n"
                          "dotted: knee (α = β·moved)", transform=left.transAxes, va="top", fontsize=8)
    for ax in (left, right):
        ax.set_xscale("log", base=2)
        ax.set_xlabel("message size (bytes, log2 axis)")
        ax.grid(alpha=0.3)
        ax.legend(fontsize=8)
    left.set_yscale("log")
    left.set(ylabel="all-reduce time (ms, log axis)", title="time ≈ α + β · 2(n−1)/n · size")
    right.set(ylabel="bus bandwidth (GB/s)", title="busbw = size / time · 2(n−1)/n (nccl-tests)")
    if title:
        fig.suptitle(title, fontsize=11)
    return fig


def plot_step_prediction(predictions: dict[str, comm_model.StepPrediction]) -> Figure:
    """One row per model: its backward (grey) and each bucket's all-reduce on the predicted
    timeline (from ready to end), the part after backward marked as exposed."""
    fig, [[ax]] = new_figure(9, 0.9 + 0.7 * len(predictions), layout="constrained")
    for row, (name, p) in enumerate(predictions.items()):
        y = len(predictions) - 1 - row
        ax.barh(y + 0.2, p.backward_end * 1e3, height=0.3, color="lightgrey", gid=f"backward:{name}")
        for k, bucket in enumerate(p.buckets):
            ax.barh(y - 0.15, (bucket.end - bucket.start) * 1e3, left=bucket.start * 1e3, height=0.3,
                    color=rank_color(k), alpha=0.8, edgecolor="black", linewidth=0.5,
                    gid=f"bucket:{name}:{k}")
            ax.plot([bucket.ready * 1e3], [y - 0.15], "k|", markersize=12)
        if p.exposed > 0:
            ax.annotate(f"exposed {p.exposed * 1e3:.1f} ms", (p.backward_end * 1e3, y - 0.32),
                        fontsize=8, ha="left", va="top")
        ax.axvline(p.backward_end * 1e3, ymin=(y + 0.05) / len(predictions), ymax=(y + 0.95) / len(predictions),
                   color="black", linestyle="--", linewidth=1)
    ax.set_yticks(range(len(predictions)), list(reversed(list(predictions))))
    ax.set_xlabel("ms after backward starts (grey: backward; coloured: one bucket's all-reduce each; "
                  "|: its gradients ready)")
    ax.set_title("Predicted: what backward hides and what it exposes", fontsize=10)
    ax.grid(axis="x", alpha=0.3)
    return fig


def plot_predicted_vs_measured(rows: Sequence[dict[str, Any]], labels: Sequence[str] | None = None) -> Figure:
    """Per row (a model at a bucket size): predicted and measured step, split into compute and
    exposed communication."""
    labels = labels or [f"{r['model']}\n{r['bucket_cap_mb'] or 'default'}" for r in rows]
    fig, [[ax]] = new_figure(1.5 + 1.3 * len(rows), 4, layout="constrained")
    for i, row in enumerate(rows):
        for offset, kind, hatch in ((-0.2, "predicted", "//"), (0.2, "measured", "")):
            part = row[kind]
            compute, exposed = part["compute_s"] * 1e3, part["exposed_s"] * 1e3
            ax.bar(i + offset, compute, width=0.38, color="tab:blue", alpha=0.7, hatch=hatch,
                   gid=f"{kind}:compute:{i}")
            ax.bar(i + offset, max(0.0, exposed), bottom=compute, width=0.38, color="tab:orange",
                   alpha=0.8, hatch=hatch, gid=f"{kind}:exposed:{i}")
    ax.bar([0], [0], color="tab:blue", alpha=0.7, label="compute (no communication)")
    ax.bar([0], [0], color="tab:orange", alpha=0.8, label="exposed communication")
    ax.bar([0], [0], color="white", edgecolor="grey", hatch="//", label="left bar: predicted")
    ax.set_xticks(range(len(rows)), labels, fontsize=8)
    ax.set_ylabel("ms per step")
    ax.set_title("Predicted (hatched) vs measured step", fontsize=10)
    ax.legend(fontsize=8, loc="upper left")
    ax.grid(axis="y", alpha=0.3)
    return fig


def plot_stragglers(step_s: Sequence[Sequence[float]], work_s: Sequence[Sequence[float]],
                    slow_rank: int) -> Figure:
    """Per rank, the median step split into its own work and the time it waited for the others."""
    fig, [[ax]] = new_figure(7, 0.9 + 0.5 * len(step_s), layout="constrained")
    for rank, (steps, work) in enumerate(zip(step_s, work_s)):
        step, own = sorted(steps)[len(steps) // 2] * 1e3, sorted(work)[len(work) // 2] * 1e3
        y = len(step_s) - 1 - rank
        ax.barh(y, own, color=rank_color(rank), alpha=0.8, gid=f"rank:{rank}:work")
        ax.barh(y, max(0.0, step - own), left=own, color="lightgrey", hatch="..", gid=f"rank:{rank}:wait")
        ax.text(step, y, f" {step:.0f} ms", va="center", fontsize=8)
    ax.set_yticks(range(len(step_s)), [f"rank {r}" + (" (slow)" if r == slow_rank else "")
                                        for r in reversed(range(len(step_s)))])
    ax.set_xlabel("ms per step (median): colour = the rank's own work, grey = waiting in the all-reduce")
    ax.set_title("Every rank's step takes as long as the slowest rank's", fontsize=10)
    return fig
