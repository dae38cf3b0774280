"""Bytes moved in one training step: DataParallel through GPU 0 vs DDP's ring all-reduce (lesson 1).

Counting rule: the bytes a device is the source or the destination of in one step, with every
transfer counted once. In ``nn.DataParallel`` GPU 0 is the source of every replica's weights and
inputs and the destination of every replica's outputs and gradients. In DDP each rank exchanges
only gradients, in a ring all-reduce: every rank sends 2(n-1)/n of the gradient bytes and receives
as many, whatever n is.
"""

from __future__ import annotations

from dataclasses import dataclass

from ddp_lessons.i18n import tr


@dataclass(frozen=True)
class Transfer:
    """One kind of data a device sends and receives in a step, in bytes."""

    what: str
    sent: float
    received: float

    @property
    def total(self) -> float:
        """Bytes sent plus bytes received."""
        return self.sent + self.received


def ring_allreduce_bytes(tensor_bytes: float, world_size: int) -> float:
    """Bytes each rank sends (and receives) to all-reduce `tensor_bytes` over a ring: 2(n-1)/n x size."""
    _check_world_size(world_size)
    return 2 * (world_size - 1) * tensor_bytes / world_size


def dataparallel_gpu0(param_bytes: float, input_bytes: float, output_bytes: float,
                      world_size: int) -> list[Transfer]:
    """What GPU 0 sends and receives in one DataParallel step; input/output bytes are per GPU."""
    _check_world_size(world_size)
    others = world_size - 1
    return [
        Transfer(tr("scatter inputs"), others * input_bytes, 0),
        Transfer(tr("replicate weights"), others * param_bytes, 0),
        Transfer(tr("gather outputs"), 0, others * output_bytes),
        Transfer(tr("scatter output gradients"), others * output_bytes, 0),
        Transfer(tr("sum replica gradients"), 0, others * param_bytes),
    ]


def ddp_rank(param_bytes: float, world_size: int) -> list[Transfer]:
    """What each DDP rank sends and receives in one step: a ring all-reduce of the gradients."""
    moved = ring_allreduce_bytes(param_bytes, world_size)
    return [Transfer(tr("all-reduce gradients (ring)"), moved, moved)]


def step_traffic(param_bytes: float, input_bytes: float, output_bytes: float,
                 world_sizes: list[int]) -> list[dict[str, float]]:
    """One row per world size: total bytes through DataParallel's GPU 0 and through each DDP rank."""
    rows = []
    for n in world_sizes:
        dp = sum(t.total for t in dataparallel_gpu0(param_bytes, input_bytes, output_bytes, n))
        ddp = sum(t.total for t in ddp_rank(param_bytes, n))
        rows.append({"world_size": n, "dataparallel_gpu0": dp, "ddp_per_rank": ddp})
    return rows


def _check_world_size(world_size: int) -> None:
    if world_size < 1:
        raise ValueError(tr("world_size must be >= 1, got {world_size}", world_size=world_size))
