"""Count the collectives a rank runs and the bytes each one carries (lesson 15: DDP vs ZeRO-1 vs FSDP2).

``with comm_count.Collectives() as comms: <one training step>`` then ``comms.summary()`` ->
``{"all_reduce": {"calls": 2, "bytes": ...}, "all_gather": ..., "reduce_scatter": ..., ...}``.

It watches torch's c10d operators through a ``TorchDispatchMode``, so it sees what DDP's comm hooks,
``ZeroRedundancyOptimizer`` and FSDP2 actually call, whatever the backend. ``bytes`` is the payload:
the gathered result of an all-gather, the input of a reduce-scatter, the tensor of an all-reduce or
a broadcast, the tensor sent or received point to point (``send``, ``recv``: what exercise 16's
check counts). What a ring then sends per rank is (n-1)/n of that for an all-gather or a
reduce-scatter and 2(n-1)/n for an all-reduce (lesson 1).
"""

from __future__ import annotations

from typing import Any

import torch
from torch.utils._python_dispatch import TorchDispatchMode

PAYLOAD = {  # c10d operator -> (name in the summary, index of the argument that holds the payload)
    "_allgather_base_": ("all_gather", 0),
    "allgather_": ("all_gather", 0),
    "_reduce_scatter_base_": ("reduce_scatter", 1),
    "reduce_scatter_": ("reduce_scatter", 1),
    "allreduce_": ("all_reduce", 0),
    "broadcast_": ("broadcast", 0),
    "reduce_": ("reduce", 0),
    "gather_": ("gather", 1),
    "scatter_": ("scatter", 0),
    "alltoall_base_": ("all_to_all", 1),
    "alltoall_": ("all_to_all", 1),
    "send": ("send", 0),  # point to point (exercise 16's ring): send, isend, batch_isend_irecv
    "recv_": ("recv", 0),
}


def _nbytes(value: Any) -> int:
    """Bytes of a tensor, or of every tensor in (nested) lists of them."""
    if isinstance(value, torch.Tensor):
        return value.numel() * value.element_size()
    if isinstance(value, (list, tuple)):
        return sum(_nbytes(v) for v in value)
    return 0


class Collectives(TorchDispatchMode):
    """A dispatch mode that counts c10d collectives (calls and payload bytes) while it is active."""

    def __init__(self) -> None:
        super().__init__()
        self.counts: dict[str, dict[str, int]] = {}

    def __torch_dispatch__(self, func, types, args=(), kwargs=None):
        if any(getattr(t, "__name__", "") == "DTensor" for t in types):
            return NotImplemented  # let DTensor turn itself into plain ops (and collectives) first
        packet = func._overloadpacket
        if getattr(packet, "_qualified_op_name", "").startswith("c10d::"):
            known = PAYLOAD.get(packet.__name__)
            if known is not None:
                name, index = known
                entry = self.counts.setdefault(name, {"calls": 0, "bytes": 0})
                entry["calls"] += 1
                entry["bytes"] += _nbytes(args[index])
        return func(*args, **(kwargs or {}))

    def summary(self) -> dict[str, dict[str, int]]:
        """{collective: {"calls": n, "bytes": payload}}, sorted by name."""
        return {name: dict(self.counts[name]) for name in sorted(self.counts)}
