"""`checks.set_epoch` (exercise 7, stop and resume): passes the solution's loop and rejects the loops learners
write, each with a hint that names the symptom first and the fix only on a second failure. The records are
made here by each loop run on real DistributedSamplers, a fresh one per run as in a new process: no launch."""
import re

import pytest
from torch.utils.data.distributed import DistributedSampler

from ddp_lessons import checks
from ddp_lessons.checks import common

SIZE, TOTAL, SEED, WORLD, STOP = 20, 4, 42, 2, 1


@pytest.fixture(autouse=True)
def fresh_kernel(monkeypatch):
    """Each test fails its checks as in a fresh kernel: no hint given yet."""
    monkeypatch.setattr(common, "_given", common.Counter())


def solution(sampler, epoch):
    sampler.set_epoch(epoch)
    return list(sampler)


def no_set_epoch(sampler, epoch):
    return list(sampler)


def set_next_epoch_after_the_loop(sampler, epoch):
    visited = list(sampler)
    sampler.set_epoch(epoch + 1)  # "prepare the next epoch": right until a new process resumes
    return visited


def set_epoch_after_the_loop(sampler, epoch):
    visited = list(sampler)
    sampler.set_epoch(epoch)
    return visited


def seed_is_the_epoch(sampler, epoch):
    sampler.seed = epoch  # a new order each epoch, the same on all ranks; but the run's seed no longer counts
    return list(sampler)


def each_rank_its_own_epoch(sampler, epoch):
    sampler.set_epoch(epoch + sampler.rank)
    return list(sampler)


def records(epoch_loop=solution, start=lambda finished: finished + 1, stop=STOP, seed=SEED):
    """(first run's rows, resumed run's rows) of 2 ranks whose train() runs `epoch_loop` each epoch, stops
    after epoch `stop` and resumes at `start(last epoch finished)`."""
    runs = []
    for epochs in (range(0, TOTAL), range(start(STOP), TOTAL)):
        rows = []
        for rank in range(WORLD):
            sampler = DistributedSampler(range(SIZE), num_replicas=WORLD, rank=rank, shuffle=True, seed=seed)
            visited, trained = [], []
            for epoch in epochs:
                visited.append(epoch_loop(sampler, epoch))
                trained.append(epoch)
                if not runs and epoch == stop:
                    break
            rows.append({"rank": rank, "size": SIZE, "seed": seed, "total_epochs": TOTAL, "epochs": trained,
                         "visited": visited})
        runs.append(rows)
    return runs


def test_the_solution_passes_and_so_does_a_seed_of_zero():
    checks.resumed_in_order(*records())
    checks.resumed_in_order(*records(seed=0))


@pytest.mark.parametrize("made, hint, symptom, fix", [
    (records(no_set_epoch), "same-order", "all 4 epochs visited the data in the same order",
     "call sampler.set_epoch(epoch) at the start of each epoch"),
    (records(set_next_epoch_after_the_loop), "resume-order",
     "the resumed run's first epoch, 2, visited epoch 0's order (an uninterrupted run visits a new one), while "
     "the first run's epochs were right", "not at the end of the previous one"),
    (records(set_epoch_after_the_loop), "other-epoch", "in the first run, epoch 1 visited epoch 0's order",
     "sampler.set_epoch(epoch), before iterating the DataLoader"),
    (records(seed_is_the_epoch), "seed-overwritten",
     "epoch 0 visited the order of seed 0, not of the run's seed 42: with your script, runs started with "
     "different seeds visit the data in the same orders", "leave the sampler's seed as it was built"),
    (records(each_rank_its_own_epoch), "order", "in the first run, epoch 0, rank 1 visited",
     "build the DistributedSampler once, with seed=SEED"),
    (records(start=lambda finished: finished), "repeated-epoch", "the resumed run trained epoch 1 again",
     "start at that epoch + 1"),
    (records(start=lambda finished: 0), "started-over", "the resumed run started over at epoch 0",
     "start at the epoch after it"),
    (records(start=lambda finished: finished + 2), "resumed-epochs", "the resumed run trained epochs [3]",
     "none skipped"),
    (records(stop=TOTAL), "no-stop", "told to stop after epoch 1, the first run went on to epoch 3",
     "return from train() right after epoch stop_after is saved"),
], ids=["no-set-epoch", "set-epoch-plus-one-after-the-loop", "set-epoch-after-the-loop", "seed-is-the-epoch",
        "rank-in-the-epoch", "resume-repeats-an-epoch", "resume-starts-over", "resume-skips-an-epoch",
        "never-stops"])
def test_wrong_loops_fail_with_the_symptom_then_the_fix(made, hint, symptom, fix):
    with pytest.raises(common.CheckFailed, match=re.escape(symptom)) as first:
        checks.resumed_in_order(*made)
    assert first.value.hint == hint and fix not in str(first.value) and not first.value.fix_shown
    with pytest.raises(common.CheckFailed, match="How to fix it: ") as second:
        checks.resumed_in_order(*made)  # the same mistake again: now the fix
    assert second.value.fix_shown and fix in str(second.value) and symptom in str(second.value)


def test_ranks_that_resume_at_different_epochs_are_named():
    first, resumed = records()
    resumed[1]["epochs"], resumed[1]["visited"] = resumed[1]["epochs"][1:], resumed[1]["visited"][1:]
    with pytest.raises(common.CheckFailed, match=re.escape("in the resumed run the ranks trained different epochs: "
                                                           "rank 0: [2, 3], rank 1: [3]")):
        checks.resumed_in_order(first, resumed)
