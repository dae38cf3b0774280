"""`checks.sampler` (exercise 5) passes the course's sampler and fails plausible wrong ones with a hint."""
import math
import re

import pytest

from ddp_lessons import checks, sampling
from ddp_lessons.checks import common


@pytest.fixture(autouse=True)
def fresh_kernel(monkeypatch):
    """Each test fails its checks as in a fresh kernel: no hint given yet."""
    monkeypatch.setattr(common, "_given", common.Counter())


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


@pytest.mark.parametrize("wrong, hint, symptom, fix", [
    (contiguous, "contiguous", "your shards are contiguous blocks of the epoch's order",
     "shards are strided: rank r takes positions r, r+W, r+2W, ... of the epoch's order"),
    (unpadded, "padding-missing", "too few indices: ",
     "when the size does not divide by world_size, the order is padded"),
    (padded_with_last, "padding-wrong", "the padded positions hold",
     "padding repeats the first indices of the epoch's order"),
    (ignores_drop_last, "drop-last-ignored", "too many indices with drop_last=True",
     "with drop_last=True the order is cut to floor(size / world_size) * world_size"),
    (ignores_epoch, "epoch-ignored", "this is epoch 0's order: the order does not change with the epoch",
     "seed the generator with seed + epoch"),
    (never_shuffles, "not-shuffled", "with shuffle=True the indices are not shuffled", "first permute"),
])
def test_sampler_shards_name_the_symptom_then_the_fix(wrong, hint, symptom, fix):
    with pytest.raises(common.CheckFailed, match=re.escape(symptom)) as first:
        checks.sampler_shards(wrong)
    assert first.value.hint == hint and fix not in str(first.value) and not first.value.fix_shown
    with pytest.raises(common.CheckFailed, match=re.escape(f"How to fix it: {fix}")) as second:
        checks.sampler_shards(wrong)  # the same mistake again: now the fix
    assert second.value.fix_shown and symptom in str(second.value)


def test_coverage_counts_pass_and_catch_distinct_counting(fails_with):
    checks.coverage_counts(lambda shards, size: [sum(s.count(i) for s in shards) for i in range(size)])
    distinct = lambda shards, size: [int(any(i in s for s in shards)) for i in range(size)]  # noqa: E731
    with fails_with("size=10, world_size=4, drop_last=False: expected [1, 2, 1, 1, 2, 1"):
        checks.coverage_counts(distinct)
    with fails_with("How to fix it: count every visit of every rank: padded indices are visited more than once"):
        checks.coverage_counts(distinct)
