"""Backward-pass timelines: each layer's backward and each bucket's all-reduce (taught in lesson 6).

A step record (one rank, one training step) holds times in milliseconds since ``loss.backward()``
was called::

    {"layers": {"linear8": {"start": 0.1, "end": 0.9}, ...},        # backward per layer
     "buckets": [{"index": 0, "start": 1.0, "end": 4.2, "bytes": 1058832, "layers": [...]}, ...],
     "backward_end": 9.5, "step_end": 10.3,                          # backward() and step() return
     "clock": "host clock"}              # optional; "CUDA events, device time" on GPUs (see timing)

The top lane shows backward compute layer by layer; one lane per bucket below shows its
all-reduce from launch to completion. Bars that overlap in time are communication hidden behind
computation.
"""

from __future__ import annotations

from typing import Any, Mapping

from matplotlib.axes import Axes
from matplotlib.figure import Figure

from ddp_lessons.plots.figures import new_figure

Step = Mapping[str, Any]

COMPUTE_COLORS = ("#4c72b0", "#8da9d6")
ALLREDUCE_COLOR = "#dd8452"
STEP_COLOR = "#55a868"


def layer_spans(step: Step) -> list[tuple[str, float, float]]:
    """(layer, start, end) of each layer's backward, in the order backward ran them."""
    spans = [(name, t["start"], t["end"]) for name, t in step["layers"].items()]
    return sorted(spans, key=lambda span: span[1])


def overlap_ms(step: Step) -> float:
    """Milliseconds during which some bucket's all-reduce ran while layers were still computing."""
    spans = layer_spans(step)
    if not spans:
        return 0.0
    compute_end = max(end for _, _, end in spans)
    in_flight = _union([(b["start"], min(b["end"], compute_end)) for b in step["buckets"]
                        if b["start"] < compute_end])
    return sum(end - start for start, end in in_flight)


def draw_backward_timeline(ax: Axes, step: Step, title: str | None = None) -> Axes:
    """Draw one step's compute lane and bucket lanes on `ax`; return `ax`."""
    buckets = step["buckets"]
    lanes = ["backward compute"] + [f"bucket {b['index']} all-reduce" for b in buckets]
    for k, (name, start, end) in enumerate(layer_spans(step)):
        ax.barh(0, end - start, left=start, height=0.7, color=COMPUTE_COLORS[k % 2], edgecolor="white")
        ax.text((start + end) / 2, 0, name.removeprefix("linear"), ha="center", va="center",
                fontsize=7, color="white", clip_on=True)
    for lane, bucket in enumerate(buckets, start=1):
        ax.barh(lane, bucket["end"] - bucket["start"], left=bucket["start"], height=0.6,
                color=ALLREDUCE_COLOR)
        ax.plot([bucket["start"]], [lane], marker="|", markersize=12, color="black")
    ax.axvline(step["backward_end"], color="black", linestyle="--", linewidth=1,
               label="loss.backward() returns")
    ax.axvspan(step["backward_end"], step["step_end"], color=STEP_COLOR, alpha=0.3,
               label="optimizer.step(): no communication")
    ax.set_yticks(range(len(lanes)), lanes, fontsize=8)
    ax.set_ylim(len(lanes) - 0.5, -0.5)
    ax.set_xlim(0, step["step_end"] * 1.02)
    clock = f" ({step['clock']})" if step.get("clock") else ""
    ax.set_xlabel(f"ms since loss.backward() was called{clock}")
    ax.set_title(title or f"{len(buckets)} bucket(s)")
    ax.legend(loc="upper left", bbox_to_anchor=(1.01, 1.0), frameon=False, fontsize=8)
    return ax


def plot_backward_timeline(steps: Mapping[str, Step]) -> Figure:
    """Figure: one timeline panel per (title -> step record), e.g. one per rank or per bucket size."""
    heights = [0.32 * (len(step["buckets"]) + 1) + 1.2 for step in steps.values()]
    fig, axes = new_figure(11, sum(heights), rows=len(steps), gridspec_kw={"height_ratios": heights})
    for ax, (title, step) in zip(axes[:, 0], steps.items()):
        draw_backward_timeline(ax, step, title)
    fig.tight_layout()
    return fig


def _union(intervals: list[tuple[float, float]]) -> list[tuple[float, float]]:
    """Merge overlapping (start, end) intervals."""
    merged: list[tuple[float, float]] = []
    for start, end in sorted(intervals):
        if merged and start <= merged[-1][1]:
            merged[-1] = (merged[-1][0], max(merged[-1][1], end))
        else:
            merged.append((start, end))
    return merged
