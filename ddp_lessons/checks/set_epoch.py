"""Check of exercise 7: a run stopped after an epoch and resumed in a new process trains the epochs an
uninterrupted run would, each in the order `DistributedSampler(seed=SEED)` gives that epoch after
`set_epoch(epoch)`, on every rank."""

from __future__ import annotations

from ddp_lessons.checks.common import Rows, fail, passed, ranks_are, recorded
from ddp_lessons.checks.sampler import torch_sampler_shard
from ddp_lessons.i18n import tr


def _epochs(rows: Rows, run: str) -> list[int]:
    """The epochs the ranks of one run trained (the same on every rank, or the check says so)."""
    epochs = [list(row["epochs"]) for row in rows]
    if any(e != epochs[0] for e in epochs[1:]):
        fail("ranks-disagree", tr("in {run} the ranks trained different epochs: {epochs}", run=run,
                                  epochs=", ".join(tr("rank {rank}: {e}", rank=r, e=e) for r, e in enumerate(epochs))),
             tr("every rank reads the same snapshot (_load), so every rank starts at the same epoch: compute the "
                "first epoch from what _load returns, the same way on every rank"))
    return epochs[0]


def _which_epochs(first_rows: Rows, resumed_rows: Rows, stop_after: int, total: int) -> tuple[list[int], list[int]]:
    """The epochs of the first run and of the resumed one, after checking they are the right ones."""
    first, resumed = _epochs(first_rows, tr("the first run")), _epochs(resumed_rows, tr("the resumed run"))
    if first != list(range(len(first))) or not first:
        fail("first-epochs", tr("the first run (no snapshot yet) trained epochs {got}, expected to start at 0",
                                got=first),
             tr("with no snapshot (_load returns None) start at epoch 0"))
    if first[-1] > stop_after:
        fail("no-stop", tr("told to stop after epoch {stop}, the first run went on to epoch {last}",
                           stop=stop_after, last=first[-1]),
             tr("return from train() right after epoch stop_after is saved"))
    if first[-1] < stop_after:
        fail("early-stop", tr("told to stop after epoch {stop}, the first run stopped after epoch {last}",
                              stop=stop_after, last=first[-1]),
             tr("stop after epoch stop_after, not before it"))
    expected = list(range(stop_after + 1, total))
    if resumed and resumed[0] == 0:
        fail("started-over", tr("the resumed run started over at epoch 0: the first run had already finished "
                                "epochs {done}", done=first),
             tr("_load() returns the last epoch the snapshot finished: start at the epoch after it"))
    if resumed and resumed[0] <= stop_after:
        fail("repeated-epoch", tr("the resumed run trained epoch {epoch} again: the first run had finished it "
                                  "(its snapshot says so)", epoch=resumed[0]),
             tr("_load() returns the last epoch the snapshot finished: start at that epoch + 1"))
    if resumed != expected:
        fail("resumed-epochs", tr("the resumed run trained epochs {got}; after a stop at epoch {stop}, an "
                                  "uninterrupted run of {total} epochs goes on with {expected}",
                                  got=resumed, stop=stop_after, total=total, expected=expected),
             tr("start at the epoch after the snapshot's and go on to epochs - 1, none skipped"))
    return first, resumed


@recorded("07")
def resumed_in_order(first: Rows, resumed: Rows, stop_after: int = 1, nproc: int = 2) -> None:
    """The first run (stopped after epoch `stop_after`) and the resumed run together train every epoch once,
    each in the order DistributedSampler(seed) gives it on each rank, as an uninterrupted run would."""
    ranks_are(first, nproc, "epochs")
    ranks_are(resumed, nproc, "epochs")
    size, seed, total = first[0]["size"], first[0]["seed"], first[0]["total_epochs"]
    epochs_first, epochs_resumed = _which_epochs(first, resumed, stop_after, total)
    got = {epoch: [row["visited"][i] for row in rows]
           for rows, epochs in ((first, epochs_first), (resumed, epochs_resumed)) for i, epoch in enumerate(epochs)}

    def order(epoch: int, seed: int = seed) -> list[list[int]]:
        return [torch_sampler_shard(size, nproc, rank, epoch, seed) for rank in range(nproc)]

    run_of = {e: tr("the first run") if e in epochs_first else tr("the resumed run") for e in got}
    if len({str(shards) for shards in got.values()}) == 1:
        fail("same-order", tr("all {epochs} epochs visited the data in the same order (rank 0: {order}...), in the "
                              "first run and in the resumed one", epochs=len(got), order=got[0][0][:5]),
             tr("a DistributedSampler shuffles with seed + epoch, and its epoch is what set_epoch last set "
                "(0 in a new process): call sampler.set_epoch(epoch) at the start of each epoch"))
    for epoch, shards in got.items():
        if shards == order(epoch):
            continue
        if shards == order(0, seed=epoch):
            fail("seed-overwritten", tr(
                "epoch {epoch} visited the order of seed {epoch}, not of the run's seed {seed}: with your script, "
                "runs started with different seeds visit the data in the same orders", epoch=epoch, seed=seed),
                 tr("leave the sampler's seed as it was built (the run's seed, the same on every rank) and tell "
                    "it the epoch with sampler.set_epoch(epoch): it shuffles with seed + epoch"))
        earlier = [e for e in range(total) if e != epoch and shards == order(e)]
        if earlier and epoch == epochs_resumed[0]:
            fail("resume-order", tr(
                "the resumed run's first epoch, {epoch}, visited epoch {other}'s order (an uninterrupted run "
                "visits a new one), while the first run's epochs were right", epoch=epoch, other=earlier[0]),
                 tr("a resumed run is a new process with a new sampler, whose epoch is 0 until set_epoch says "
                    "otherwise: call sampler.set_epoch(epoch) at the start of each epoch, from the epoch about to "
                    "run, not at the end of the previous one"))
        if earlier:
            fail("other-epoch", tr("in {run}, epoch {epoch} visited epoch {other}'s order",
                                   run=run_of[epoch], epoch=epoch, other=earlier[0]),
                 tr("set the sampler's epoch to the epoch about to run, sampler.set_epoch(epoch), before "
                    "iterating the DataLoader"))
        rank = next(r for r, (s, w) in enumerate(zip(shards, order(epoch))) if s != w)
        fail("order", tr("in {run}, epoch {epoch}, rank {rank} visited {got}, expected {expected}",
                         run=run_of[epoch], epoch=epoch, rank=rank, got=shards[rank], expected=order(epoch)[rank]),
             tr("build the DistributedSampler once, with seed=SEED, and call sampler.set_epoch(epoch) at the start "
                "of each epoch"))
    passed(tr("stopped after epoch {stop} and resumed: epochs {epochs}, each once and in the order an uninterrupted "
              "run visits, on all {nproc} ranks", stop=stop_after, epochs=sorted(got), nproc=nproc))
