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
from ddp_lessons.i18n import number, tr
from ddp_lessons.plots.figures import new_figure, rank_color


Trace = Sequence[dict[str, Any]]
"""One rank's ring: ``{"phase", "step", "sent", "values"}`` per step (values: each chunk's first
element; rank r starts with 2**r everywhere, so a value's binary digits say whose data it holds)."""


def contributors(value: float, world: int) -> list[int]:
    """The ranks whose 2**rank is summed in `value` (its binary digits)."""
    bits = int(round(value))
    return [r for r in range(world) if bits >> r & 1]


def plot_ring(traces: Sequence[Trace]) -> Figure:
    """A panel per step, a row per rank, a cell per chunk: the shade says how many ranks' data the
    chunk holds (dark = all: reduced), the text whose; an orange edge marks the chunk the rank sent."""
    world, steps = len(traces), len(traces[0])
    if any(len(trace) != steps for trace in traces):
        raise ValueError(tr("every rank needs the same number of steps"))
    shades = colormaps["Blues"]
    fig, axes = new_figure(0.6 + 1.55 * steps, 0.9 + 0.45 * world, 1, steps, layout="constrained")
    for panel, ax in enumerate(axes[0]):
        for rank, trace in enumerate(traces):
            entry, y = trace[panel], world - 1 - rank
            for chunk, value in enumerate(entry["values"]):
                held = contributors(value, world)
                full = len(held) == world
                sent = chunk == entry["sent"]
                ax.add_patch(Rectangle((chunk + 0.04, y + 0.04), 0.92, 0.92,
                                       facecolor=shades(0.15 + 0.8 * len(held) / world),
                                       edgecolor="tab:orange" if sent else "white", linewidth=3 if sent else 1,
                                       gid=f"chunk:{panel}:{rank}:{chunk}"))
                ax.text(chunk + 0.5, y + 0.5, tr("all") if full else "+".join(map(str, held)),
                        ha="center", va="center", fontsize=8, color="white" if full else "black")
        first = traces[0][panel]
        ax.set_title(_phase(first["phase"]) + (f" {first['step']}" if first["step"] else ""), fontsize=9)
        ax.set_xlim(0, len(first["values"]))
        ax.set_ylim(0, world)
        ax.set_xticks([c + 0.5 for c in range(len(first["values"]))],
                      [f"c{c}" for c in range(len(first["values"]))], fontsize=8)
        ax.set_yticks([world - 0.5 - r for r in range(world)],
                      [tr("rank {rank}", rank=r) for r in range(world)] if panel == 0 else [""] * world,
                      fontsize=8)
        ax.tick_params(length=0)
        for side in ax.spines.values():
            side.set_visible(False)
    fig.suptitle(tr("Ring all-reduce, from the ranks' tensors: whose data each chunk holds "
                    "(orange edge: the chunk sent to rank + 1 in that step)"), fontsize=10)
    return fig


def _phase(phase: str) -> str:
    """A ring trace's phase (recorded in English by the ranks) in the notebook's language."""
    return {"start": tr("start"), "reduce-scatter": "reduce-scatter", "all-gather": "all-gather"}.get(phase, phase)


def plot_sweep(fitted: comm_model.Fit, title: str = "", large: comm_model.Fit | None = None,
               large_from: float = comm_model.MB) -> Figure:
    """Left: measured all-reduce time against message size (log-log), per world size, with the fit
    and its knee (and, dashed, `large`: β fitted on messages from `large_from` bytes). Right: the
    bus bandwidth measured (nccl-tests' busbw) and the limits 1/β."""
    fig, [[left, right]] = new_figure(11, 4, 1, 2, layout="constrained")
    worlds = sorted({n for _, n, _ in fitted.points})
    sizes = sorted({s for s, _, _ in fitted.points})
    for n in worlds:
        points = sorted((s, t) for s, w, t in fitted.points if w == n)
        xs, ts = [s for s, _ in points], [t for _, t in points]
        color = rank_color(n)
        left.plot(xs, [t * 1e3 for t in ts], "o", color=color, label=tr("measured, {n} ranks", n=n), gid=f"measured:{n}")
        left.plot(sizes, [fitted.time(s, n) * 1e3 for s in sizes], "-", color=color, alpha=0.7,
                  label=tr("fit, {n} ranks", n=n), gid=f"fit:{n}")
        right.plot(xs, [comm_model.busbw(s, t, n) / 1e9 for s, t in points], "o-", color=color,
                   label=tr("{count} ranks", count=n), gid=f"busbw:{n}")
        if large is not None:
            big = [s for s in sizes if s >= large_from]
            left.plot(big, [large.time(s, n) * 1e3 for s in big], "--", color=color,
                      label=tr("β from ≥ {mib:g} MiB, {n} ranks", mib=large_from / comm_model.MB, n=n),
                      gid=f"large:{n}")
        knee = fitted.knee_bytes(n)
        left.axvline(knee, color=color, linestyle=":", linewidth=1, gid=f"knee:{n}")
    right.axhline(fitted.bus_bandwidth / 1e9, color="black", linestyle="-", linewidth=1,
                  label=tr("1/β = {gbs:.2f} GB/s (all sizes)", gbs=fitted.bus_bandwidth / 1e9))
    if large is not None:
        right.axhline(large.bus_bandwidth / 1e9, color="black", linestyle="--", linewidth=1,
                      label=tr("1/β = {gbs:.2f} GB/s (≥ {mib:g} MiB)", gbs=large.bus_bandwidth / 1e9,
                               mib=large_from / comm_model.MB))
    left.text(0.02, 0.97, tr("α = {alpha:.3f} ms\n1/β = {gbs:.2f} GB/s\ndotted: knee (α = β·moved)",
                             alpha=fitted.alpha * 1e3, gbs=fitted.bus_bandwidth / 1e9),
              transform=left.transAxes, va="top", fontsize=8)
    for ax in (left, right):
        ax.set_xscale("log", base=2)
        ax.set_xlabel(tr("message size (bytes, log2 axis)"))
        ax.grid(alpha=0.3)
        ax.legend(fontsize=8)
    left.set_yscale("log")
    left.set(ylabel=tr("all-reduce time (ms, log axis)"), title=tr("time ≈ α + β · 2(n−1)/n · size"))
    right.set(ylabel=tr("bus bandwidth (GB/s)"), title=tr("busbw = size / time · 2(n−1)/n (nccl-tests)"))
    if title:
        fig.suptitle(title, fontsize=11)
    return fig


def plot_step_prediction(predictions: dict[str, comm_model.StepPrediction]) -> Figure:
    """A panel per model, each on its own time scale: its backward (grey) and each bucket's
    all-reduce on the predicted timeline (a tick where its gradients are ready), and what is exposed."""
    fig, axes = new_figure(9, 0.6 + 1.0 * len(predictions), len(predictions), 1, layout="constrained")
    for ax, (name, p) in zip(axes[:, 0], predictions.items()):
        ax.barh(1, p.backward_end * 1e3, height=0.6, color="lightgrey", gid=f"backward:{name}")
        for k, bucket in enumerate(p.buckets):
            ax.barh(0, (bucket.end - bucket.start) * 1e3, left=bucket.start * 1e3, height=0.6,
                    color=rank_color(k), alpha=0.8, edgecolor="black", linewidth=0.5, gid=f"bucket:{name}:{k}")
            ax.plot([bucket.ready * 1e3], [0], "k|", markersize=14)
        ax.axvline(p.backward_end * 1e3, color="black", linestyle="--", linewidth=1)
        ax.set_yticks([0, 1], ["all-reduce", tr("backward")], fontsize=8)
        ax.set_ylabel(name, rotation=0, ha="right", va="center", fontsize=10)
        ax.set_title(tr("{name}: {hidden:.1f} ms hidden behind backward, {exposed:.1f} ms exposed", name=name,
                        hidden=p.hidden * 1e3, exposed=p.exposed * 1e3), fontsize=9, loc="left")
        ax.grid(axis="x", alpha=0.3)
    axes[-1, 0].set_xlabel(tr("ms after backward starts (one colour per bucket; |: its gradients ready; "
                              "dashed: backward ends)"))
    return fig


def plot_predicted_vs_measured(rows: Sequence[dict[str, Any]], labels: Sequence[str] | None = None) -> Figure:
    """A panel per row (a model at a bucket size), each on its own scale: the predicted and the
    measured step, split into compute and exposed communication."""
    labels = labels or [tr("{model}, bucket_cap_mb {cap}", model=r["model"], cap=r["bucket_cap_mb"] or tr("default"))
                        for r in rows]
    fig, axes = new_figure(1.2 + 2.2 * len(rows), 3.6, 1, len(rows), layout="constrained")
    for i, (ax, row, label) in enumerate(zip(axes[0], rows, labels)):
        for x, kind in enumerate(("predicted", "measured")):
            part = row[kind]
            compute, exposed = part["compute_s"] * 1e3, max(0.0, part["exposed_s"] * 1e3)
            ax.bar(x, compute, width=0.6, color="tab:blue", alpha=0.7, gid=f"{kind}:compute:{i}")
            ax.bar(x, exposed, bottom=compute, width=0.6, color="tab:orange", gid=f"{kind}:exposed:{i}")
        ax.set_xticks([0, 1], [tr("predicted"), tr("measured")], fontsize=8)
        ax.set_title(label, fontsize=9)
        ax.grid(axis="y", alpha=0.3)
    axes[0, 0].set_ylabel(tr("ms per step"))
    axes[0, 0].bar([0], [0], color="tab:blue", alpha=0.7, label=tr("compute (no communication)"))
    axes[0, 0].bar([0], [0], color="tab:orange", label=tr("exposed communication"))
    fig.legend(loc="outside lower center", ncols=2, fontsize=8)
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
        ax.text(step, y, f" {number(step, '.0f')} ms", va="center", fontsize=8)
    ax.set_yticks(range(len(step_s)), [tr("rank {rank} (slow)", rank=r) if r == slow_rank else tr("rank {rank}", rank=r)
                                        for r in reversed(range(len(step_s)))])
    ax.set_xlabel(tr("ms per step (median): colour = the rank's own work, grey = waiting in the all-reduce"))
    ax.set_title(tr("Every rank's step takes as long as the slowest rank's"), fontsize=10)
    return fig
