"""How DistributedSampler splits a data set among ranks, as pure functions (taught in lesson 5).

These reproduce ``torch.utils.data.distributed.DistributedSampler`` index for index (the tests
compare them for many sizes, world sizes, epochs and ``drop_last``), so the lessons can plot
shards without launching processes. The split is *strided*: rank r takes positions
r, r + W, r + 2W, ... of the (shuffled, padded) index list, not a contiguous block.
"""

from __future__ import annotations

import math

import torch


def epoch_order(size: int, epoch: int = 0, seed: int = 0, shuffle: bool = True) -> list[int]:
    """The index order all ranks agree on for one epoch: a permutation seeded by seed + epoch."""
    if not shuffle:
        return list(range(size))
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
        raise ValueError(f"rank must be in [0, {world_size}), got {rank}")
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
