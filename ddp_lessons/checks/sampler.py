"""Checks of exercise 5: DistributedSampler's shards as a pure function, and visits per index."""

from __future__ import annotations

import itertools
from typing import Callable

from torch.utils.data.distributed import DistributedSampler

from ddp_lessons.checks.common import expect, fail, passed, recorded
from ddp_lessons.i18n import tr


def torch_sampler_shard(size: int, world: int, rank: int, epoch: int = 0, seed: int = 0,
                        shuffle: bool = True, drop_last: bool = False) -> list[int]:
    """What torch's DistributedSampler yields for one rank and epoch."""
    sampler = DistributedSampler(range(size), num_replicas=world, rank=rank, shuffle=shuffle,
                                 seed=seed, drop_last=drop_last)
    sampler.set_epoch(epoch)
    return list(sampler)


def _shard_mistake(got: list[int], size: int, world: int, rank: int, epoch: int, seed: int,
                   shuffle: bool, drop_last: bool) -> tuple[str, str, str]:
    """(hint, symptom, fix) of what the shard `got` most likely got wrong."""
    expected = torch_sampler_shard(size, world, rank, epoch, seed, shuffle, drop_last)
    order = [None] * (len(expected) * world)  # the epoch's (padded or truncated) order, all ranks
    for r in range(world):
        order[r::world] = torch_sampler_shard(size, world, r, epoch, seed, shuffle, drop_last)
    own = len(range(rank, min(size, len(order)), world))  # positions before any padding
    if got == order[rank * len(expected):(rank + 1) * len(expected)]:
        return ("contiguous", tr("your shards are contiguous blocks of the epoch's order"),
                tr("shards are strided: rank r takes positions r, r+W, r+2W, ... of the epoch's order"))
    if len(got) < len(expected) and not drop_last:
        return ("padding-missing", tr("too few indices: {got} where every rank gets {count}", got=len(got),
                                      count=len(expected)),
                tr("when the size does not divide by world_size, the order is padded to "
                   "ceil(size / world_size) * world_size by repeating it from its start (again and again "
                   "if the data set is tiny)"))
    if len(got) > len(expected) and drop_last:
        return ("drop-last-ignored", tr("too many indices with drop_last=True: {got} where every rank gets "
                                        "{count}", got=len(got), count=len(expected)),
                tr("with drop_last=True the order is cut to floor(size / world_size) * world_size indices, "
                   "with no padding"))
    if len(got) != len(expected):
        return ("length", tr("{got} indices where every rank gets {count}", got=len(got), count=len(expected)),
                tr("compare with the rule in lesson 5"))
    if got[:own] == expected[:own]:
        return ("padding-wrong", tr("the padded positions hold {got}, expected {padded}", got=got[own:],
                                    padded=expected[own:]),
                tr("padding repeats the first indices of the epoch's order, in order (order + order[:padding])"))
    if shuffle and got == torch_sampler_shard(size, world, rank, 0, seed, shuffle, drop_last):
        return ("epoch-ignored", tr("this is epoch 0's order: the order does not change with the epoch"),
                tr("seed the generator with seed + epoch"))
    if shuffle and got == torch_sampler_shard(size, world, rank, epoch, seed, False, drop_last):
        return ("not-shuffled", tr("with shuffle=True the indices are not shuffled"),
                tr("first permute: torch.randperm(size, generator=g) with g = torch.Generator(); "
                   "g.manual_seed(seed + epoch)"))
    return "other", tr("the indices differ from DistributedSampler's"), tr("compare with the rule in lesson 5")


@recorded("05")
def sampler_shards(student_fn: Callable) -> None:
    """`student_fn` yields DistributedSampler's indices for every rank, epoch and option tried."""
    cases = itertools.product((1, 5, 10, 11, 16, 33), (1, 2, 3, 4, 7), (False, True), (True, False),
                              ((0, 0), (2, 5)))
    count = 0
    for size, world, drop_last, shuffle, (epoch, seed) in cases:
        for rank in range(world):
            expected = torch_sampler_shard(size, world, rank, epoch, seed, shuffle, drop_last)
            got = list(student_fn(size, world, rank, epoch=epoch, seed=seed, shuffle=shuffle,
                                  drop_last=drop_last))
            count += 1
            if got != expected:
                hint, symptom, fix = _shard_mistake(got, size, world, rank, epoch, seed, shuffle, drop_last)
                fail(hint, tr("size={size}, world_size={world}, rank={rank}, epoch={epoch}, seed={seed}, "
                              "shuffle={shuffle}, drop_last={drop_last}: expected {expected}, got {got}: {symptom}",
                              size=size, world=world, rank=rank, epoch=epoch, seed=seed, shuffle=shuffle,
                              drop_last=drop_last, expected=expected, got=got, symptom=symptom), fix)
    passed(tr("identical to torch's DistributedSampler in all {count} cases tried", count=count))


@recorded("05")
def coverage_counts(student_fn: Callable) -> None:
    """`student_fn(shards, size)` counts how often each index is visited in one epoch."""
    for size, world, drop_last in ((10, 4, False), (10, 4, True), (8, 2, False), (2, 5, False)):
        shards = [torch_sampler_shard(size, world, r, drop_last=drop_last) for r in range(world)]
        expected = [sum(shard.count(i) for shard in shards) for i in range(size)]
        got = list(student_fn(shards, size))
        expect(got == expected, "counts",
               tr("size={size}, world_size={world}, drop_last={drop_last}: expected {expected}, got {got}",
                  size=size, world=world, drop_last=drop_last, expected=expected, got=got),
               tr("count every visit of every rank: padded indices are visited more than once, indices cut by "
                  "drop_last zero times"))
    passed(tr("visit counts are right, padding and drop_last included"))
