"""`checks.sampler` (exercise 5) passes the course's sampler and fails plausible wrong ones with a hint."""
import math

import pytest

from ddp_lessons import checks, sampling


def contiguous(size, world, rank, **options):
    """The epoch's padded order cut into one block per rank: the wrong mental model."""
    per_rank = len(sampling.shard_indices(size, world, 0, **options))
    order = [None] * (per_rank * world)
    for r in range(world):
        order[r::world] = sampling.shard_indices(size, world, r, **options)
    return order[rank * per_rank:(rank + 1) * per_rank]


def unpadded(size, world, rank, epoch=0, seed=0, shuffle=True, drop_last=False):
    return sampling.epoch_order(size, epoch, seed, shuffle)[rank::world]


def padded_with_last(size, world, rank, epoch=0, seed=0, shuffle=True, drop_last=False):
    order = sampling.epoch_order(size, epoch, seed, shuffle)
    if drop_last:
        order = order[:size - size % world]
    order += order[-1:] * (math.ceil(size / world) * world - len(order))
    return order[rank::world]


def ignores_drop_last(size, world, rank, epoch=0, seed=0, shuffle=True, drop_last=False):
    return sampling.shard_indices(size, world, rank, epoch=epoch, seed=seed, shuffle=shuffle)


def ignores_epoch(size, world, rank, epoch=0, seed=0, shuffle=True, drop_last=False):
    return sampling.shard_indices(size, world, rank, seed=seed, shuffle=shuffle, drop_last=drop_last)


def never_shuffles(size, world, rank, epoch=0, seed=0, shuffle=True, drop_last=False):
    return sampling.shard_indices(size, world, rank, shuffle=False, drop_last=drop_last)


def test_sampler_shards_pass_the_course_sampler():
    checks.sampler_shards(sampling.shard_indices)


@pytest.mark.parametrize("wrong, hint", [
    (contiguous, "shards must be strided: rank r takes positions r, r+W, r+2W, ... of the epoch's order; "
                 "you returned contiguous blocks"),
    (unpadded, "too few indices: when the size does not divide by world_size, the order is padded"),
    (padded_with_last, "padding must repeat the first indices of the epoch's order"),
    (ignores_drop_last, "with drop_last=True the order is cut to floor(size / world_size) * world_size"),
    (ignores_epoch, "the order must change with the epoch: seed the generator with seed + epoch"),
    (never_shuffles, "with shuffle=True, first permute"),
])
def test_sampler_shards_catch(wrong, hint, fails_with):
    with fails_with(hint):
        checks.sampler_shards(wrong)


def test_coverage_counts_pass_and_catch_distinct_counting(fails_with):
    checks.coverage_counts(lambda shards, size: [sum(s.count(i) for s in shards) for i in range(size)])
    with fails_with("padded indices are visited more than once"):
        checks.coverage_counts(lambda shards, size: [int(any(i in s for s in shards)) for i in range(size)])
