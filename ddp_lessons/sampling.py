"""How DistributedSampler splits a data set among ranks, as pure functions (taught in lesson 5).

These reproduce ``torch.utils.data.distributed.DistributedSampler`` index for index (the tests
compare them for many sizes, world sizes, epochs and ``drop_last``), so the lessons can plot
shards without launching processes. The split is *strided*: rank r takes positions
r, r + W, r + 2W, ... of the (shuffled, padded) index list, not a contiguous block.
"""

from __future__ import annotations

import math
from typing import Any, Mapping, Sequence

from ddp_lessons.i18n import tr


def epoch_order(size: int, epoch: int = 0, seed: int = 0, shuffle: bool = True) -> list[int]:
    """The index order all ranks agree on for one epoch: a permutation seeded by seed + epoch."""
    if not shuffle:
        return list(range(size))
    import torch  # torch's own generator, so the order is DistributedSampler's (plots import no torch)

    generator = torch.Generator()
    generator.manual_seed(seed + epoch)
    return torch.randperm(size, generator=generator).tolist()


def samples_per_rank(size: int, world_size: int, drop_last: bool = False) -> int:
    """How many indices each rank gets: ceil(size / W), or floor with drop_last."""
    if drop_last and size % world_size:
        return math.ceil((size - world_size) / world_size)
    return math.ceil(size / world_size)


def shard_indices(size: int, world_size: int, rank: int, epoch: int = 0, seed: int = 0,
                  shuffle: bool = True, drop_last: bool = False) -> list[int]:
    """The indices rank `rank` visits in `epoch`, in order, exactly as DistributedSampler yields them."""
    if not 0 <= rank < world_size:
        raise ValueError(tr("rank must be in [0, {world_size}), got {rank}", world_size=world_size, rank=rank))
    order = epoch_order(size, epoch, seed, shuffle)
    per_rank = samples_per_rank(size, world_size, drop_last)
    total = per_rank * world_size
    if drop_last:
        order = order[:total]
    else:
        padding = total - len(order)
        # Pad by repeating the order from its start (again and again if the data set is tiny).
        order = order + (order * math.ceil(padding / max(1, len(order))))[:padding]
    return order[rank:total:world_size]


def all_shards(size: int, world_size: int, **kwargs) -> list[list[int]]:
    """`shard_indices` for every rank, index 0 = rank 0."""
    return [shard_indices(size, world_size, r, **kwargs) for r in range(world_size)]


def coverage_summary(shards: list[list[int]], size: int) -> dict[str, object]:
    """Counts that prove (or disprove) a correct split: overlaps, duplicates, missing indices."""
    seen: dict[int, int] = {}
    for shard in shards:
        for index in shard:
            seen[index] = seen.get(index, 0) + 1
    return {
        "size": size,
        "visited": sum(seen.values()),
        "distinct": len(seen),
        "missing": sorted(set(range(size)) - set(seen)),
        "repeated": sorted(i for i, n in seen.items() if n > 1),
        "disjoint": all(n == 1 for n in seen.values()),
    }


def contiguous_blocks(size: int, world_size: int) -> list[list[int]]:
    """The WRONG mental model of DistributedSampler: rank r takes the r-th contiguous block."""
    block = math.ceil(size / world_size)
    return [list(range(r * block, min(size, (r + 1) * block))) for r in range(world_size)]


def index_visits(shards: Sequence[Sequence[int]], size: int) -> list[list[tuple[int, int]]]:
    """For each data index, the (rank, step) pairs that visit it in one epoch."""
    visits: list[list[tuple[int, int]]] = [[] for _ in range(size)]
    for rank, shard in enumerate(shards):
        for step, index in enumerate(shard):
            if not 0 <= index < size:
                raise ValueError(tr("rank {rank} visits index {index}, outside the data set [0, {size})", rank=rank,
                                    index=index, size=size))
            visits[index].append((rank, step))
    return visits


def epoch_note(shards: Sequence[Sequence[int]], size: int) -> str:
    """How one epoch departs from 'each index once': e.g. '+2 repeated', '-1 dropped', or ''."""
    summary = coverage_summary([list(s) for s in shards], size)
    notes = []
    if summary["visited"] > summary["distinct"]:
        notes.append(tr("+{count} repeated", count=summary["visited"] - summary["distinct"]))
    if summary["missing"]:
        notes.append(tr("-{count} dropped", count=len(summary["missing"])))
    return ", ".join(notes)


def shards_from_records(rows: Sequence[Mapping[str, Any]], variant: str) -> list[list[list[int]]]:
    """Per-epoch shards of one recorded variant: rows (one per rank) -> [epoch][rank] -> indices."""
    per_rank = [row["variants"][variant]["epochs"] for row in rows]
    return [[epochs[e] for epochs in per_rank] for e in range(len(per_rank[0]))]
