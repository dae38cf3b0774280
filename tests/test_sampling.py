"""`ddp_lessons.sampling` reproduces DistributedSampler exactly."""
import itertools

import pytest
from torch.utils.data.distributed import DistributedSampler

from ddp_lessons import sampling

CASES = list(itertools.product([1, 2, 5, 10, 11, 16, 33], [1, 2, 3, 4, 7], [False, True], [True, False]))


@pytest.mark.parametrize("size, world, drop_last, shuffle", CASES)
def test_shards_match_torch_for_every_rank_and_epoch(size, world, drop_last, shuffle):
    data = range(size)
    for rank in range(world):
        sampler = DistributedSampler(data, num_replicas=world, rank=rank, shuffle=shuffle,
                                     seed=3, drop_last=drop_last)
        for epoch in (0, 1, 4):
            sampler.set_epoch(epoch)
            assert sampling.shard_indices(size, world, rank, epoch=epoch, seed=3, shuffle=shuffle,
                                          drop_last=drop_last) == list(sampler)


def test_split_is_strided_not_contiguous():
    assert sampling.all_shards(8, 2, shuffle=False) == [[0, 2, 4, 6], [1, 3, 5, 7]]


def test_padding_repeats_the_first_indices():
    shards = sampling.all_shards(10, 4, shuffle=False)
    assert shards == [[0, 4, 8], [1, 5, 9], [2, 6, 0], [3, 7, 1]]
    summary = sampling.coverage_summary(shards, 10)
    assert summary["visited"] == 12 and summary["repeated"] == [0, 1] and summary["missing"] == []


def test_drop_last_truncates_instead():
    shards = sampling.all_shards(10, 4, shuffle=False, drop_last=True)
    summary = sampling.coverage_summary(shards, 10)
    assert summary["visited"] == 8 and summary["disjoint"] and summary["missing"] == [8, 9]


def test_without_set_epoch_every_epoch_has_the_same_order():
    assert sampling.epoch_order(20, epoch=0) == sampling.epoch_order(20, epoch=0)
    assert sampling.epoch_order(20, epoch=0) != sampling.epoch_order(20, epoch=1)


def test_rank_out_of_range_is_refused():
    with pytest.raises(ValueError):
        sampling.shard_indices(10, 2, 2)
