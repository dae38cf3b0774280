"""A per-rank memory ledger: the bytes one rank holds, and what they are for (lesson 15).

Used inside a training script, on each rank::

    buckets = memory.keep_buckets(ddp_model)          # DDP only: see DDP's gradient buckets
    with memory.SavedTensors() as saved:              # what autograd keeps for backward
        loss = loss_fn(model(x), y)
    at_forward = memory.measure(model, optimizer, buckets, saved)   # before backward frees them
    loss.backward(); optimizer.step()
    after_step = memory.measure(model, optimizer, buckets)
    records.write("ledger", {"forward": at_forward, "step": after_step})

Every tensor is counted through its storage, and each storage once, in the first row (`ROWS`
order) that holds it: a view, a gradient living in a DDP bucket (``gradient_as_bucket_view=True``)
or an activation that is also a weight (``weight.t()``) costs nothing more. A sharded tensor
(``DTensor``, FSDP2) counts its local shard's storage, padding included. On CPU the ledger is exact;
on a GPU `measure` adds ``torch.cuda.memory_allocated`` / ``max_memory_allocated`` beside the rows.
"""

from __future__ import annotations

import weakref
from collections.abc import Iterable, Iterator
from typing import Any

import torch
from torch.distributed.algorithms.ddp_comm_hooks import default_hooks

ROWS = ("parameters", "gathered", "gradients", "optimizer", "buffers", "buckets", "activations")
"""Ledger rows, in the order they claim storages. ``parameters``: what the optimizer updates (a
shard under FSDP2); ``gathered``: other parameter storages the model uses right now (FSDP2's
all-gathered copies); ``buckets``: DDP's flat gradient buffers."""


def local(tensor: torch.Tensor) -> torch.Tensor:
    """The part of `tensor` this rank stores: a DTensor's local shard, any other tensor itself."""
    to_local = getattr(tensor, "to_local", None)
    return to_local() if callable(to_local) else tensor


def storage_key(tensor: torch.Tensor) -> tuple[tuple[str, int], int]:
    """((device, address), bytes) of the storage under `tensor` (its local shard for a DTensor)."""
    storage = local(tensor).untyped_storage()
    return (str(storage.device), storage.data_ptr()), storage.nbytes()


class Ledger:
    """Bytes by row, each storage counted once: in the first row that `add`s it."""

    def __init__(self) -> None:
        self.bytes = dict.fromkeys(ROWS, 0)
        self._seen: set[tuple[str, int]] = set()

    def add(self, row: str, tensors: Iterable[torch.Tensor | None]) -> int:
        """Count the storages of `tensors` not counted yet under `row`; return the bytes added."""
        added = 0
        for tensor in tensors:
            if tensor is None or not isinstance(tensor, torch.Tensor):
                continue
            key, nbytes = storage_key(tensor)
            if nbytes == 0 or key in self._seen:  # empty, or freed (FSDP2 resizes storages to 0)
                continue
            self._seen.add(key)
            added += nbytes
        self.bytes[row] += added
        return added

    @property
    def total(self) -> int:
        """Bytes of every row together."""
        return sum(self.bytes.values())


def _inner(optimizer: Any) -> Any:
    """The optimizer that holds the state: ``ZeroRedundancyOptimizer`` keeps its rank's in ``.optim``."""
    return getattr(optimizer, "optim", optimizer)


def optimizer_params(optimizer: Any) -> list[torch.Tensor]:
    """Every parameter `optimizer` was given (ZeRO: all of them, not only this rank's)."""
    return [p for group in optimizer.param_groups for p in group["params"]]


def optimizer_state(optimizer: Any) -> Iterator[tuple[str, torch.Tensor]]:
    """(state name, tensor) for every tensor of optimizer state this rank holds."""
    for state in _inner(optimizer).state.values():
        for name, value in state.items():
            if isinstance(value, torch.Tensor):
                yield name, value


def optimizer_bytes_by_state(optimizer: Any) -> dict[str, int]:
    """Bytes of optimizer state by state name (e.g. exp_avg, exp_avg_sq, step), each storage once."""
    ledger, out = Ledger(), {}
    for name, tensor in optimizer_state(optimizer):
        out[name] = out.get(name, 0) + ledger.add("optimizer", [tensor])
    return out


def keep_buckets(ddp_model: torch.nn.parallel.DistributedDataParallel) -> dict[int, torch.Tensor]:
    """Register DDP's default all-reduce as a comm hook that also keeps each bucket: {index: buffer}.

    DDP has no public handle on its buckets; a communication hook is handed each one
    (``bucket.buffer()``, the flat tensor DDP all-reduces). The hook is torch's
    ``default_hooks.allreduce_hook`` (what DDP does without a hook: divide by the group size,
    all-reduce); keeping a reference costs nothing, the reducer holds the buffers anyway. Filled
    from the first backward on; DDP rebuilds its buckets once, after the first step, so measure later.
    """
    buckets: dict[int, torch.Tensor] = {}
    group = ddp_model.process_group

    def hook(state, bucket):  # no annotations: DDP checks them, and these would be strings
        if bucket.index() == 0:  # a new backward: forget buckets an earlier layout had
            buckets.clear()
        buckets[bucket.index()] = bucket.buffer()
        return default_hooks.allreduce_hook(group, bucket)

    ddp_model.register_comm_hook(None, hook)
    return buckets


class SavedTensors:
    """Within ``with SavedTensors() as saved:``, remember each tensor autograd saves for backward.

    Uses ``torch.autograd.graph.saved_tensors_hooks``; keeps only weak references, so `tensors()`
    returns those still alive (all of them between forward and backward, none after backward).
    """

    def __init__(self) -> None:
        self._refs: list[weakref.ref] = []
        self._hooks = torch.autograd.graph.saved_tensors_hooks(self._pack, self._unpack)

    def _pack(self, tensor: torch.Tensor) -> torch.Tensor:
        self._refs.append(weakref.ref(tensor))
        return tensor

    @staticmethod
    def _unpack(tensor: torch.Tensor) -> torch.Tensor:
        return tensor

    def tensors(self) -> list[torch.Tensor]:
        """The saved tensors that are still alive."""
        return [t for t in (ref() for ref in self._refs) if t is not None]

    def __enter__(self) -> SavedTensors:
        self._hooks.__enter__()
        return self

    def __exit__(self, *exc: Any) -> None:
        self._hooks.__exit__(*exc)


def measure(model: torch.nn.Module, optimizer: Any = None, buckets: dict[int, torch.Tensor] | None = None,
            saved: SavedTensors | None = None) -> dict[str, int]:
    """This rank's ledger now: {row: bytes} for `ROWS`, ``total``, and on a GPU the allocator's figures.

    ``parameters`` are the optimizer's parameters (all of the model's without an optimizer),
    ``gathered`` the model's other parameter storages (FSDP2's unsharded copies, while gathered),
    ``gradients`` their ``.grad``, ``optimizer`` its state, ``buffers`` the model's buffers,
    ``buckets`` what `keep_buckets` kept, ``activations`` what `saved` saw and is still alive.
    """
    ledger = Ledger()
    params = list(model.parameters())
    owned = optimizer_params(optimizer) if optimizer is not None else params
    ledger.add("parameters", owned)
    ledger.add("gathered", params)
    ledger.add("gradients", (p.grad for p in owned + params))
    if optimizer is not None:
        ledger.add("optimizer", (tensor for _, tensor in optimizer_state(optimizer)))
    ledger.add("buffers", model.buffers())
    ledger.add("buckets", (buckets or {}).values())
    if saved is not None:
        ledger.add("activations", saved.tensors())
    rows: dict[str, int] = {**ledger.bytes, "total": ledger.total}
    device = next((local(p).device for p in params), torch.device("cpu"))
    if device.type == "cuda":
        rows["cuda_allocated"] = torch.cuda.memory_allocated(device)
        rows["cuda_max_allocated"] = torch.cuda.max_memory_allocated(device)
    return rows
