"""Drawn diagrams: DataParallel vs DDP (lesson 1) and how ranks map to nodes and devices (lessons 2-3).

Every function returns a matplotlib Figure (via `figures.new_figure`: headless, shown once in a
notebook). Boxes and arrows carry a ``gid`` naming what they stand for (``"gpu:0"``,
``"transfer:0->2"``, ``"allreduce:1->2"``, ``"slot:node1:local1"``), so tests check a drawing's
structure rather than its pixels.
"""

from __future__ import annotations

import math

from matplotlib.axes import Axes
from matplotlib.figure import Figure
from matplotlib.lines import Line2D
from matplotlib.patches import FancyArrowPatch, FancyBboxPatch

from ddp_lessons import backend
from ddp_lessons.i18n import tr
from ddp_lessons.plots.figures import new_figure

SENT, RECEIVED, RING = "tab:blue", "tab:orange", "tab:green"
MB = 1e6


def plot_dataparallel_vs_ddp(world_size: int = 4) -> Figure:
    """Side by side: DataParallel's hub at GPU 0 and DDP's ring of processes, for `world_size` GPUs."""
    if not 2 <= world_size <= 8:
        raise ValueError(tr("draw between 2 and 8 GPUs, got {world_size}", world_size=world_size))
    fig, [[dp_axes, ddp_axes]] = new_figure(12, 5.4, 1, 2, layout="constrained")
    _draw_dataparallel(dp_axes, world_size)
    _draw_ddp(ddp_axes, world_size)
    return fig


def plot_rank_layout(nodes: int = 2, ranks_per_node: int = 4, gpus_per_node: int = 4) -> Figure:
    """Each node's ranks as slots labelled rank, local_rank and device (the device `backend.choose` picks)."""
    if nodes < 1 or ranks_per_node < 1 or gpus_per_node < 0:
        raise ValueError(tr("need nodes >= 1, ranks_per_node >= 1 and gpus_per_node >= 0"))
    label_width, slot_width, row_height = 1.6, 1.9, 1.7
    width = label_width + slot_width * ranks_per_node
    fig, [[ax]] = new_figure(width + 0.4, row_height * nodes + 0.6, layout="constrained")
    _blank(ax, width, row_height * nodes)
    for node in range(nodes):
        bottom = row_height * (nodes - 1 - node) + 0.1
        ax.add_patch(_box(0.05, bottom, width - 0.1, 1.5, f"C{node}", f"node:{node}", 0.12))
        ax.text(label_width / 2, bottom + 0.75, tr("node {node}\nGROUP_RANK={node}", node=node), ha="center",
                va="center", fontsize=9, weight="bold")
        for local_rank in range(ranks_per_node):
            rank = node * ranks_per_node + local_rank  # what torchrun assigns on equal-sized nodes
            _, device, _ = backend.placement(local_rank, ranks_per_node, gpus_per_node)
            left = label_width + slot_width * local_rank
            ax.add_patch(_box(left, bottom + 0.15, slot_width - 0.2, 1.2, f"C{node}",
                              f"slot:node{node}:local{local_rank}", 0.35))
            ax.text(left + (slot_width - 0.2) / 2, bottom + 0.75,
                    f"rank {rank}\nlocal_rank {local_rank}\n{device}", ha="center", va="center",
                    fontsize=9, gid=f"label:node{node}:local{local_rank}")
    device_rule = ("cpu" if gpus_per_node == 0 else "cuda:local_rank" if gpus_per_node >= ranks_per_node
                   else tr("cuda:(local_rank % {gpus}), shared (gloo)", gpus=gpus_per_node))
    ax.set_title(tr("{nodes} node(s) x {ranks} ranks, {gpus} GPU(s) per node\n"
                    "rank = node x {ranks} + local_rank;  device = {rule}", nodes=nodes, ranks=ranks_per_node,
                    gpus=gpus_per_node, rule=device_rule), fontsize=10)
    return fig


def plot_traffic_per_step(rows: list[dict[str, float]]) -> Figure:
    """Bars of megabytes per step through DataParallel's GPU 0 and each DDP rank (rows: traffic.step_traffic)."""
    sizes = [row["world_size"] for row in rows]
    positions = range(len(rows))
    fig, [[ax]] = new_figure(7, 4, layout="constrained")
    ax.bar([p - 0.2 for p in positions], [r["dataparallel_gpu0"] / MB for r in rows], width=0.4,
           color=SENT, label=tr("DataParallel: GPU 0"))
    ax.bar([p + 0.2 for p in positions], [r["ddp_per_rank"] / MB for r in rows], width=0.4,
           color=RING, label=tr("DDP: each rank"))
    ax.set_xticks(list(positions), [str(n) for n in sizes])
    ax.set_xlabel(tr("number of GPUs"))
    ax.set_ylabel(tr("MB sent + received per step"))
    ax.set_title(tr("Traffic per training step: DataParallel's GPU 0 vs one DDP rank"))
    ax.legend()
    return fig


def _draw_dataparallel(ax: Axes, world_size: int) -> None:
    """GPU 0 on the left inside one process box; arrows out to and back from every other GPU."""
    _blank(ax, 10, 10)
    ax.add_patch(_box(0.2, 0.2, 9.6, 8.7, "whitesmoke", "process", 1.0))
    ax.text(5, 8.45, tr("one Python process, one thread per GPU"), ha="center", fontsize=10)
    gpu0 = (0.7, 3.3, 3.0, 2.4)
    ax.add_patch(_box(*gpu0, "tab:red", "gpu:0", 0.35))
    ax.text(2.2, 4.5, tr("GPU 0\nwhole batch, outputs,\nloss, optimizer.step()"), ha="center", va="center",
            fontsize=9)
    others = world_size - 1
    height = min(1.6, 6.6 / others - 0.25)
    for k in range(1, world_size):
        centre = 8.0 - (k - 0.5) * 6.6 / others
        ax.add_patch(_box(6.6, centre - height / 2, 2.8, height, "tab:gray", f"gpu:{k}", 0.35))
        ax.text(8.0, centre, tr("GPU {gpu}\nreplica", gpu=k), ha="center", va="center", fontsize=8)
        ax.add_patch(_arrow((3.7, 4.7), (6.6, centre + height / 5), SENT, f"transfer:0->{k}"))
        ax.add_patch(_arrow((6.6, centre - height / 5), (3.7, 4.3), RECEIVED, f"transfer:{k}->0"))
    ax.legend(handles=[Line2D([], [], color=SENT, label=tr("GPU 0 sends: inputs, weights, output grads")),
                       Line2D([], [], color=RECEIVED, label=tr("GPU 0 receives: outputs, gradients"))],
              loc="lower left", fontsize=8, frameon=False)
    ax.set_title(tr("DataParallel: every step passes through GPU 0"), fontsize=11)


def _draw_ddp(ax: Axes, world_size: int) -> None:
    """One process box per GPU on a circle; ring arrows between neighbours carry the gradients."""
    _blank(ax, 10, 10)
    width = min(2.8, 0.75 * 2 * math.pi * 3.2 / world_size)
    centres = [(5 + 3.2 * math.sin(2 * math.pi * r / world_size),
                4.6 + 3.2 * math.cos(2 * math.pi * r / world_size)) for r in range(world_size)]
    for rank, (x, y) in enumerate(centres):
        ax.add_patch(_box(x - width / 2, y - 0.8, width, 1.6, "tab:green", f"process:{rank}", 0.3))
        ax.text(x, y, tr("process {rank}\nGPU {rank}\nown data shard", rank=rank), ha="center", va="center",
                fontsize=8 if width > 2 else 7)
    for rank in range(world_size):
        target = (rank + 1) % world_size
        ax.add_patch(_arrow(centres[rank], centres[target], RING, f"allreduce:{rank}->{target}",
                            shrink=30, curve=-0.25 if world_size > 2 else -0.8))
    ax.text(5, 4.6, tr("ring all-reduce\nof gradients,\nduring backward()"), ha="center", va="center",
            fontsize=9, color="darkgreen")
    ax.text(5, 0.25, tr("weights are broadcast once, in DDP(model); afterwards only gradients move"),
            ha="center", fontsize=8)
    ax.set_title(tr("DDP: one process per GPU, only gradients move"), fontsize=11)


def _blank(ax: Axes, width: float, height: float) -> None:
    """A drawing area of `width` x `height` units, no axes shown."""
    ax.set_xlim(0, width)
    ax.set_ylim(0, height)
    ax.set_aspect("equal")
    ax.axis("off")


def _box(left: float, bottom: float, width: float, height: float, color: str, gid: str,
         alpha: float) -> FancyBboxPatch:
    """A rounded box tagged with `gid`."""
    return FancyBboxPatch((left, bottom), width, height, boxstyle="round,pad=0.02,rounding_size=0.15",
                          facecolor=color, alpha=alpha, edgecolor="black", linewidth=1, gid=gid)


def _arrow(start: tuple[float, float], end: tuple[float, float], color: str, gid: str,
           shrink: float = 0, curve: float = 0) -> FancyArrowPatch:
    """An arrow from `start` to `end` tagged with `gid`; `curve` bends it, `shrink` stops it short."""
    return FancyArrowPatch(start, end, arrowstyle="-|>", mutation_scale=14, color=color, linewidth=1.6,
                           shrinkA=shrink, shrinkB=shrink, connectionstyle=f"arc3,rad={curve}", gid=gid)
