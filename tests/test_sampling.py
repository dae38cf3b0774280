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


def test_contiguous_blocks_are_not_what_distributed_sampler_does():
    assert sampling.contiguous_blocks(12, 3) == [[0, 1, 2, 3], [4, 5, 6, 7], [8, 9, 10, 11]]
    assert sampling.contiguous_blocks(10, 3) == [[0, 1, 2, 3], [4, 5, 6, 7], [8, 9]]
    assert sampling.all_shards(12, 3, shuffle=False) != sampling.contiguous_blocks(12, 3)


def test_index_visits_lists_rank_and_step_including_padding_and_gaps():
    padded = sampling.index_visits(sampling.all_shards(10, 4, shuffle=False), 10)
    assert padded[0] == [(0, 0), (2, 2)] and padded[1] == [(1, 0), (3, 2)] and padded[9] == [(1, 2)]
    dropped = sampling.index_visits(sampling.all_shards(10, 4, shuffle=False, drop_last=True), 10)
    assert dropped[8] == [] and dropped[9] == [] and dropped[5] == [(1, 1)]


def test_index_outside_the_data_set_is_refused():
    with pytest.raises(ValueError, match="outside the data set"):
        sampling.index_visits([[0, 5]], 5)


@pytest.mark.parametrize("size, world, drop_last, note", [
    (12, 3, False, ""), (10, 3, False, "+2 repeated"), (10, 3, True, "-1 dropped"),
    (10, 4, True, "-2 dropped"), (2, 3, False, "+1 repeated")])
def test_epoch_note_counts_padding_and_truncation(size, world, drop_last, note):
    assert sampling.epoch_note(sampling.all_shards(size, world, drop_last=drop_last), size) == note


def test_shards_from_records_gives_epoch_then_rank():
    rows = [{"rank": 0, "variants": {"v": {"epochs": [[0, 2], [3, 1]]}}},
            {"rank": 1, "variants": {"v": {"epochs": [[1, 3], [0, 2]]}}}]
    assert sampling.shards_from_records(rows, "v") == [[[0, 2], [1, 3]], [[3, 1], [0, 2]]]
