"""`checks.set_epoch` (exercise 7) passes a new order per epoch and catches a missing or late set_epoch."""
import pytest

from ddp_lessons import checks, sampling


def epoch_rows(epochs_seen):
    """Records of 2 ranks over 20 samples whose epoch e used the sampler order of epochs_seen[e]."""
    return [{"rank": rank, "size": 20, "seed": 0,
             "visited": [sampling.shard_indices(20, 2, rank, epoch=e) for e in epochs_seen]}
            for rank in range(2)]


def test_set_epoch_used_passes_and_catches_a_missing_or_late_set_epoch(fails_with):
    checks.set_epoch_used(epoch_rows([0, 1, 2]))
    with fails_with("all 3 epochs visited the data in the same order"):
        checks.set_epoch_used(epoch_rows([0, 0, 0]))
    with fails_with("epoch 1 used epoch 0's order: set_epoch comes too late"):
        checks.set_epoch_used(epoch_rows([0, 0, 1]))
