"""Backward-pass timelines: each layer's backward and each bucket's all-reduce (taught in lesson 6).

A step record (one rank, one training step, as `ddp_lessons.bucket_watch` writes it) holds times in
milliseconds since ``loss.backward()`` was called::

    {"layers": {"linear8": {"start": 0.1, "end": 0.9}, ...},        # backward per layer
     "buckets": [{"index": 0, "start": 1.0, "end": 4.2,              # launched by DDP, completed
                  "run_start": 2.5,                                  # optional: a gloo worker took it
                  "bytes": 1058832, "layers": [...]}, ...],
     "backward_end": 9.5, "step_end": 10.3,                          # backward() and step() return
     "clock": "host clock"}              # optional; "CUDA events, device time" on GPUs (see timing)

The top lane shows backward compute layer by layer; one lane per bucket below shows its all-reduce:
queued (launched, waiting for a free gloo worker thread) as a light hatched bar, running as a solid
bar; a bucket without run times is one solid bar from launch to completion. Bars that overlap the
compute lane in time are communication in flight during computation. All panels share one x-axis.
"""

from __future__ import annotations

from typing import Any, Mapping

from matplotlib.axes import Axes
from matplotlib.figure import Figure
from matplotlib.lines import Line2D
from matplotlib.patches import Patch

from ddp_lessons.i18n import tr
from ddp_lessons.plots.figures import new_figure

Step = Mapping[str, Any]

COMPUTE_COLORS = ("#4c72b0", "#8da9d6")
ALLREDUCE_COLOR = "#dd8452"
QUEUED_COLOR = "#f6d5bd"
STEP_COLOR = "#55a868"
MIN_LABEL_FRACTION = 0.025
"""A layer's bar carries its number only when it spans at least this fraction of the x-axis."""


def layer_spans(step: Step) -> list[tuple[str, float, float]]:
    """(layer, start, end) of each layer's backward, in the order backward ran them."""
    spans = [(name, t["start"], t["end"]) for name, t in step["layers"].items()]
    return sorted(spans, key=lambda span: span[1])


def overlap_ms(step: Step) -> float:
    """Milliseconds during which some bucket's all-reduce was running while layers still computed."""
    spans = layer_spans(step)
    if not spans:
        return 0.0
    compute_end = max(end for _, _, end in spans)
    running = [run_span(b) for b in step["buckets"]]
    return sum(end - start for start, end in _union([(start, min(end, compute_end)) for start, end in running
                                                     if start < compute_end]))


def run_span(bucket: Mapping[str, Any]) -> tuple[float, float]:
    """(start, end) of the time the bucket's all-reduce ran; launch to completion if not measured."""
    return min(bucket.get("run_start", bucket["start"]), bucket["end"]), bucket["end"]


def queued_ms(step: Step) -> float:
    """Milliseconds the step's all-reduces spent launched but waiting for a worker, summed."""
    return sum(max(0.0, run_span(b)[0] - b["start"]) for b in step["buckets"])


def running_ms(step: Step) -> float:
    """Milliseconds the step's all-reduces spent running, summed over buckets."""
    return sum(end - start for start, end in map(run_span, step["buckets"]))


def most_running_at_once(step: Step) -> int:
    """The largest number of the step's all-reduces that were running at the same moment."""
    edges = sorted([(start, 1) for start, _ in map(run_span, step["buckets"])]
                   + [(end, -1) for _, end in map(run_span, step["buckets"])], key=lambda e: (e[0], e[1]))
    running = most = 0
    for _, change in edges:
        running += change
        most = max(most, running)
    return most


def draw_backward_timeline(ax: Axes, step: Step, title: str | None = None,
                           x_max: float | None = None) -> Axes:
    """Draw one step's compute lane and bucket lanes on `ax` (x from 0 to `x_max`); return `ax`."""
    buckets = step["buckets"]
    x_max = x_max or step["step_end"] * 1.02
    lanes = [tr("backward compute")] + [tr("bucket {index} all-reduce", index=b["index"]) for b in buckets]
    for k, (name, start, end) in enumerate(layer_spans(step)):
        ax.barh(0, end - start, left=start, height=0.7, color=COMPUTE_COLORS[k % 2], edgecolor="white")
        if end - start >= MIN_LABEL_FRACTION * x_max:
            ax.text((start + end) / 2, 0, name.removeprefix("linear"), ha="center", va="center",
                    fontsize=7, color="white", clip_on=True)
    for lane, bucket in enumerate(buckets, start=1):
        run_start, run_end = run_span(bucket)
        if run_start > bucket["start"]:
            ax.barh(lane, run_start - bucket["start"], left=bucket["start"], height=0.6, color=QUEUED_COLOR,
                    edgecolor=ALLREDUCE_COLOR, hatch="///", linewidth=0.5)
        ax.barh(lane, run_end - run_start, left=run_start, height=0.6, color=ALLREDUCE_COLOR)
        ax.plot([bucket["start"]], [lane], marker="|", markersize=12, color="black")
    ax.axvline(step["backward_end"], color="black", linestyle="--", linewidth=1,
               label=tr("loss.backward() returns"))
    ax.axvspan(step["backward_end"], step["step_end"], color=STEP_COLOR, alpha=0.3,
               label=tr("optimizer.step(): no communication"))
    ax.set_yticks(range(len(lanes)), lanes, fontsize=8)
    ax.set_ylim(len(lanes) - 0.5, -0.5)
    ax.set_xlim(0, x_max)
    ax.set_xlabel(tr("ms since loss.backward() was called ({clock})", clock=_clock_name(step["clock"]))
                  if step.get("clock") else tr("ms since loss.backward() was called"))
    ax.set_title(title or tr("{count} bucket(s)", count=len(buckets)), fontsize=10)
    return ax


def legend_handles(queued: bool) -> list:
    """The legend of every timeline: compute, (queued,) running, backward() returns, step()."""
    handles = [Patch(color=COMPUTE_COLORS[0], label=tr("a layer's backward (number = layer)"))]
    if queued:
        handles.append(Patch(facecolor=QUEUED_COLOR, edgecolor=ALLREDUCE_COLOR, hatch="///",
                             label=tr("all-reduce queued: launched, waiting for a free gloo worker")))
    handles += [Patch(color=ALLREDUCE_COLOR, label=tr("all-reduce running") if queued
                      else tr("all-reduce, launch (tick) to completion")),
                Line2D([], [], color="black", marker="|", linestyle="none", markersize=10,
                       label=tr("DDP launches the bucket")),
                Line2D([], [], color="black", linestyle="--", linewidth=1, label=tr("loss.backward() returns")),
                Patch(color=STEP_COLOR, alpha=0.3, label=tr("optimizer.step(): no communication"))]
    return handles


def plot_backward_timeline(steps: Mapping[str, Step]) -> Figure:
    """Figure: one panel per (title -> step record) on one shared x-axis, legend on top."""
    heights = [0.3 * (len(step["buckets"]) + 1) + 0.55 for step in steps.values()]
    fig, axes = new_figure(11, sum(heights) + 1.3, rows=len(steps), sharex=True, layout="constrained",
                           gridspec_kw={"height_ratios": heights})
    x_max = 1.02 * max(step["step_end"] for step in steps.values())
    for ax, (title, step) in zip(axes[:, 0], steps.items()):
        draw_backward_timeline(ax, step, title, x_max)
    for ax in axes[:-1, 0]:
        ax.set_xlabel("")
    queued = any("run_start" in b for step in steps.values() for b in step["buckets"])
    fig.legend(handles=legend_handles(queued), loc="outside upper center", ncol=3, fontsize=8,
               frameon=False)
    return fig


def _clock_name(kind: str) -> str:
    """A step record's clock (`timing.StepClock.kind`, recorded in English) in the notebook's language."""
    return {"host clock": tr("host clock"), "CUDA events, device time": tr("CUDA events, device time")}.get(kind, kind)


def _union(intervals: list[tuple[float, float]]) -> list[tuple[float, float]]:
    """Merge overlapping (start, end) intervals."""
    merged: list[tuple[float, float]] = []
    for start, end in sorted(intervals):
        if merged and start <= merged[-1][1]:
            merged[-1] = (merged[-1][0], max(merged[-1][1], end))
        else:
            merged.append((start, end))
    return merged
