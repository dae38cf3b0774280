"""Bytes per rank under DDP, ZeRO-1, ZeRO-2 and FSDP2: the formulas of lesson 15, as pure functions.

Two levels of detail:

* `predict(psi, world_size, strategy, ...)`: the textbook formula from the parameter count Ψ alone,
  with the ZeRO paper's accounting for mixed precision (Rajbhandari et al., 2020, section 3). The
  lesson's calculator shows it; for a ZeRO strategy it is the mean over the ranks.
* `rank_bytes(shapes, world_size, rank, strategy, ...)`: exact, from the parameters' shapes, with
  `ZeroRedundancyOptimizer`'s whole-parameter partition (`zero1_partition`) and FSDP2's dim-0 shards,
  padded to equal sizes (`fsdp_rows`). A rank's measured ledger (`ddp_lessons.memory`) equals it
  byte for byte.

Counted in fp32 unless said otherwise: a parameter, its gradient and each optimizer state take 4
bytes per element. Adam keeps two states per element (``exp_avg``, ``exp_avg_sq``) and a ``step``
counter per tensor (a float32 scalar in torch 2.x); SGD with momentum keeps one state; plain SGD none.
"""

from __future__ import annotations

import math
from collections.abc import Sequence

from ddp_lessons.i18n import tr

STRATEGIES = {
    "ddp": "DDP: every rank holds everything",
    "zero1": "ZeRO-1: optimizer state sharded",
    "zero2": "ZeRO-2: optimizer state and gradients sharded",
    "fsdp": "FSDP2 / ZeRO-3: parameters, gradients and optimizer state sharded",
}
OPTIMIZER_STATES = {"sgd": 0, "momentum": 1, "adam": 2}
"""States per parameter element, each the size of the parameter."""
STEP_BYTES = 4
"""Adam's ``step`` counter: one float32 scalar per parameter tensor."""
PRECISIONS = {
    "fp32": "fp32 parameters, gradients and optimizer state",
    "mixed": "ZeRO paper: fp16 parameters and gradients, fp32 master copy and states",
}
ROWS = ("parameters", "gradients", "optimizer", "buckets", "activations")


def row_label(row: str, lang: str | None = None) -> str:
    """The name of a ledger row (`ddp_lessons.memory.ROWS` and ``total``) in the notebook's language (or
    `lang`): how the lesson's tables, its calculator and its figures print it."""
    return {"parameters": tr("parameters", lang=lang), "gathered": tr("gathered", lang=lang),
            "gradients": tr("gradients", lang=lang), "optimizer": tr("optimizer", lang=lang),
            "buffers": tr("buffers", lang=lang), "buckets": tr("buckets", lang=lang),
            "activations": tr("activations", lang=lang), "total": tr("total", lang=lang)}[row]


def _check(world_size: int, strategy: str, optimizer: str, precision: str = "fp32") -> None:
    if world_size < 1:
        raise ValueError(tr("world_size must be >= 1, got {world_size}", world_size=world_size))
    for value, known in ((strategy, STRATEGIES), (optimizer, OPTIMIZER_STATES), (precision, PRECISIONS)):
        if value not in known:
            raise ValueError(tr("{value!r} is not one of {known}", value=value, known=sorted(known)))


def predict(psi: int, world_size: int, strategy: str, optimizer: str = "adam", precision: str = "fp32",
            *, tensors: int = 0, activations: float = 0, bucket_view: bool = True) -> dict[str, float]:
    """Bytes one rank holds for `psi` parameters: {row: bytes} with `ROWS` and ``total``.

    fp32: parameters 4Ψ, gradients 4Ψ, optimizer 4KΨ (K states) plus Adam's step counters
    (`tensors` of them, 4 bytes each); "mixed" is the ZeRO paper's 2Ψ + 2Ψ + KΨ with K = 4 (fp32
    master copy) + 4 per state (12 for Adam). `strategy` divides by `world_size`: zero1 the optimizer
    state, zero2 also the gradients, fsdp also the parameters (under ZeRO the mean over ranks). DDP
    also holds its gradient buckets, shared with the gradients when `bucket_view` is True.
    `activations` (bytes saved for backward on this rank) is never divided: sharding leaves it alone.
    """
    _check(world_size, strategy, optimizer, precision)
    states = OPTIMIZER_STATES[optimizer]
    if precision == "fp32":
        param = grad = 4.0 * psi
        moments = 4.0 * states * psi
        counters = STEP_BYTES * tensors if optimizer == "adam" else 0.0
    else:
        param = grad = 2.0 * psi
        moments, counters = (4.0 + 4.0 * states) * psi, 0.0
    sharded = {"ddp": (), "zero1": ("optimizer",), "zero2": ("optimizer", "gradients"),
               "fsdp": ("optimizer", "gradients", "parameters")}[strategy]
    divide = {row: world_size if row in sharded else 1 for row in ROWS}
    # ZeRO partitions whole tensors, step counters included; FSDP2 gives every rank every counter
    per_counter = 1 if strategy == "fsdp" else divide["optimizer"]
    rows = {"parameters": param / divide["parameters"], "gradients": grad / divide["gradients"],
            "optimizer": moments / divide["optimizer"] + counters / per_counter,
            "buckets": grad if strategy in ("ddp", "zero1") and not bucket_view else 0.0,
            "activations": float(activations)}
    rows["total"] = sum(rows[row] for row in ROWS)
    return rows


def zero1_partition(numels: Sequence[int], world_size: int) -> list[list[int]]:
    """Indices of the parameters each rank owns under ``ZeroRedundancyOptimizer`` (torch's rule).

    Largest parameters first (a stable sort), each to the rank with the fewest elements so far (the
    lowest rank on a tie). Whole parameters, so ranks can be far from equal.
    """
    owned: list[list[int]] = [[] for _ in range(world_size)]
    sizes = [0] * world_size
    for index in sorted(range(len(numels)), key=lambda i: numels[i], reverse=True):
        rank = sizes.index(min(sizes))
        owned[rank].append(index)
        sizes[rank] += numels[index]
    return owned


def fsdp_rows(dim0: int, world_size: int, rank: int) -> tuple[int, int]:
    """(rows of dim 0 that `rank` owns, rows its padded shard stores) for FSDP2's ``Shard(0)``.

    Like ``torch.chunk``: chunks of ceil(dim0 / world_size) rows, the last ones shorter or empty;
    FSDP2 pads every shard to the full chunk so all ranks all-gather equal sizes.
    """
    chunk = math.ceil(dim0 / world_size)
    return max(0, min(chunk, dim0 - rank * chunk)), chunk


def _numel(shape: Sequence[int]) -> int:
    return math.prod(shape)


def rank_bytes(shapes: Sequence[Sequence[int]], world_size: int, rank: int, strategy: str,
               optimizer: str = "adam", *, bucket_view: bool = True, element_size: int = 4) -> dict[str, int]:
    """Exact bytes `rank` holds after an optimizer step: parameters, gradients, optimizer, buckets.

    `strategy` is what torch implements: "ddp" (DDP), "zero1" (DDP + ZeroRedundancyOptimizer) or
    "fsdp" (FSDP2's ``fully_shard``; every rank keeps Adam's step counter for every tensor).
    """
    _check(world_size, strategy, optimizer)
    if strategy == "zero2":
        raise ValueError(tr("torch has no ZeRO-2 of its own; FSDP2 with reshard_after_forward=False is 'fsdp' after "
                            "the step and holds `gathered_bytes` during it"))
    numels = [_numel(shape) for shape in shapes]
    states = OPTIMIZER_STATES[optimizer]
    steps = STEP_BYTES if optimizer == "adam" else 0
    if strategy == "fsdp":
        shards = [fsdp_rows(shape[0], world_size, rank) for shape in shapes]
        rest = [n // shape[0] if shape[0] else 0 for n, shape in zip(numels, shapes)]
        stored = sum(padded * r for (_, padded), r in zip(shards, rest)) * element_size
        owned = sum(rows * r for (rows, _), r in zip(shards, rest)) * element_size
        return {"parameters": stored, "gradients": stored, "optimizer": states * owned + steps * len(shapes),
                "buckets": 0}
    full = sum(numels) * element_size
    mine = zero1_partition(numels, world_size)[rank] if strategy == "zero1" else range(len(numels))
    state = sum(states * numels[i] * element_size + steps for i in mine)
    return {"parameters": full, "gradients": full, "optimizer": state, "buckets": 0 if bucket_view else full}


def gathered_bytes(shapes: Sequence[Sequence[int]], world_size: int, element_size: int = 4) -> int:
    """Bytes of FSDP2's all-gathered (unsharded) copies of `shapes`: dim 0 padded to a multiple of W."""
    return sum(fsdp_rows(shape[0], world_size, 0)[1] * world_size * (_numel(shape) // shape[0])
               for shape in shapes) * element_size


def paper_figures(psi: float, world_size: int, k: int = 12) -> dict[str, float]:
    """The ZeRO paper's bytes per rank for baseline DDP and its three stages (mixed precision, K=`k`)."""
    return {"ddp": (4 + k) * psi, "zero1": 4 * psi + k * psi / world_size,
            "zero2": 2 * psi + (2 + k) * psi / world_size, "fsdp": (4 + k) * psi / world_size}
