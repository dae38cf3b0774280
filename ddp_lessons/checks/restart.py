"""Check of exercise 12: atomic step-level snapshots and a resume at the very step, under restarts.

The script runs twice under the packaged runner ``scripts/crash_during_snapshot.py``: uninterrupted,
then with rank 0 killed while it writes a mid-epoch snapshot (any write of the snapshot path but a
rename kills it there). Its given code records where each attempt started (``attempt<n>``), every
batch it trained with its sample indices and where it saved (``trained<n>``), and the final weights.
"""

from __future__ import annotations

import os
import random
from pathlib import Path
from typing import Any

from ddp_lessons import launch, records, scripts
from ddp_lessons.checks.common import Rows, passed, ranks_are, recorded, written
from ddp_lessons.i18n import tr
from ddp_lessons.runtime.contract import CRASH_AT_SAVE_ENV

RUNNER = scripts.path("crash_during_snapshot.py")
"""The packaged script that runs a script with its snapshot I/O observed, killing rank 0 mid-save."""


def _run(script: str | os.PathLike, run_dir: Path, nproc: int, epochs: int, every: int, timeout: float,
         crash_at: int | None = None, max_restarts: int = 0) -> launch.RunResult:
    """Launch `script` under the runner; `crash_at`: kill rank 0 while it writes that snapshot."""
    env = {CRASH_AT_SAVE_ENV: str(crash_at)} if crash_at is not None else {}
    args = [str(script), "--epochs", str(epochs), "--every", str(every),
            "--snapshot", str((run_dir / "snapshot.pt").resolve())]
    return launch.run_torchrun(RUNNER, nproc, args=args, env=env, run_dir=run_dir, timeout=timeout,
                               max_restarts=max_restarts, echo=False)  # crash tracebacks would drown the verdict


def _batches(row: dict[str, Any]) -> dict[tuple[int, int], list[int]]:
    """One rank's trained batches: {(epoch, step): sample indices}."""
    return {(epoch, step): indices for epoch, step, indices in row["batches"]}


def _only_rank_0_saves(io: Rows, snapshots: int) -> None:
    """Rank 0 alone called torch.save, once per snapshot; every rank waited at a barrier per snapshot."""
    assert io[0]["saves"], tr("rank 0 never called torch.save: save_snapshot writes the snapshot on rank 0")
    for row in io[1:]:
        assert not row["saves"], tr("rank {rank} saved too: only rank 0 writes the snapshot (every rank holds "
                                    "the same weights)", rank=row["rank"])
    assert len(io[0]["saves"]) == snapshots, tr(
        "rank 0 called torch.save {calls} times for {snapshots} snapshots: once per snapshot",
        calls=len(io[0]["saves"]), snapshots=snapshots)
    for row in io:
        assert row["barriers"] >= snapshots, tr(
            "rank {rank} called dist.barrier() {calls} times for {snapshots} snapshots: call it in save_snapshot "
            "after rank 0 has written, so no rank goes on before it is complete",
            rank=row["rank"], calls=row["barriers"], snapshots=snapshots)


def _order_changes(clean: Rows) -> None:
    """The uninterrupted run trained every step of every epoch, in a new shuffle each epoch."""
    for row in clean:
        batches = _batches(row)
        epochs = sorted({epoch for epoch, _ in batches})
        for epoch in epochs:
            steps = sorted(step for e, step in batches if e == epoch)
            assert steps == list(range(len(steps))), tr(
                "rank {rank} trained steps {steps} of epoch {epoch} in the uninterrupted run: "
                "epoch_batches(loader, epoch, 0) must yield (step, batch) for every step, numbered from 0",
                rank=row["rank"], steps=steps, epoch=epoch)
        if len(epochs) > 1:
            assert batches[(epochs[0], 0)] != batches[(epochs[1], 0)], tr(
                "rank {rank} trained epochs {first} and {second} in the same order: call "
                "loader.sampler.set_epoch(epoch) in epoch_batches, so each epoch has its own shuffle "
                "(and a resumed epoch the same one as before)", rank=row["rank"], first=epochs[0], second=epochs[1])


def _resumed_where_it_stopped(crashed_dir: Path, clean: Rows, position: tuple[int, int]) -> None:
    """Every rank of the restarted job began at `position` and trained the uninterrupted run's batches."""
    epoch, step = position
    for row in records.load(crashed_dir, "attempt1"):
        began = (row["first_epoch"], row["first_step"])
        assert began != (0, 0), tr(
            "the restarted job began again at epoch 0, step 0: load_snapshot must load the last complete "
            "snapshot and return its position (epoch {epoch}, step {step})", epoch=epoch, step=step)
        assert began != (epoch, 0) or step == 0, tr(
            "the last complete snapshot was taken in epoch {epoch} after {step} steps, but the restarted "
            "job began at step 0 of epoch {epoch}: save the step in the snapshot and return "
            "(epoch, step) from load_snapshot", epoch=epoch, step=step)
        assert began == position, tr(
            "the last complete snapshot held epoch {epoch} after {step} steps, so the restarted job should "
            "begin there, but rank {rank} began at epoch {began_epoch}, step {began_step}",
            epoch=epoch, step=step, rank=row["rank"], began_epoch=began[0], began_step=began[1])
    for resumed, before in zip(records.load(crashed_dir, "trained1"), clean):
        rank, got, ahead = resumed["rank"], _batches(resumed), _batches(before)
        assert resumed["batches"], tr("rank {rank} trained no step after the restart", rank=rank)
        first = tuple(resumed["batches"][0][:2])
        if first != position and step and first == (epoch, 0):
            assert got[first] != ahead[(epoch, 0)], tr(
                "rank {rank} resumed at step {step} of epoch {epoch} but trained the epoch from its first "
                "batch: epoch_batches(loader, epoch, first_step) must skip the first {step} batches",
                rank=rank, step=step, epoch=epoch)
            assert got[first] != ahead[position], tr(
                "rank {rank} skipped the right batches but numbered the first one step 0, not {step}: yield "
                "each batch with its step number in the epoch (enumerate the whole loader, then skip)",
                rank=rank, step=step)
        assert first == position, tr(
            "rank {rank} resumed at epoch {epoch}, step {step}, but its first step after the restart was "
            "epoch {first_epoch}, step {first_step}: epoch_batches must start at first_step",
            rank=rank, epoch=epoch, step=step, first_epoch=first[0], first_step=first[1])
        assert got[position] == ahead[position], tr(
            "rank {rank} resumed at epoch {epoch}, step {step} with other samples than the uninterrupted "
            "run trained there: call loader.sampler.set_epoch(epoch) before iterating, so the restarted "
            "process draws the epoch's own order, then skip the steps already done", rank=rank, epoch=epoch, step=step)
        later = {key: value for key, value in ahead.items() if key >= position}
        assert got == later, tr(
            "rank {rank} trained other batches after the restart than the uninterrupted run from epoch "
            "{epoch}, step {step} on: every later step once, in the epoch's order", rank=rank, epoch=epoch, step=step)


@recorded("12")
def restartable(script: str | os.PathLike, nproc: int = 2, epochs: int = 4, every: int = 3,
                timeout: float = 120) -> None:
    """Killed while writing a mid-epoch snapshot, the job restarts at that very step and ends bit-identical."""
    written(script)
    root = records.new_run_dir(Path(script).stem)
    try:
        clean_run = _run(script, root / "uninterrupted", nproc, epochs, every, timeout)
    except launch.RankFailedError as error:
        raise AssertionError(tr("the script fails even without a crash; fix this first:\n{error}",
                                error=error)) from None
    io = records.load(clean_run.run_dir, "snapshot-io-attempt0")
    ranks_are(io, nproc, "snapshot-io-attempt0")
    clean = records.load(clean_run.run_dir, "trained0")
    ranks_are(clean, nproc, "trained0")
    saved_at = [tuple(position) for position in clean[0]["saved_at"]]
    _only_rank_0_saves(io, len(saved_at))
    writes = io[0]["snapshot_writes"]
    assert not writes, tr(
        "rank 0 wrote the snapshot path itself ({writes}): that truncates the last complete snapshot first "
        "(a copy too), so a rank killed in the middle leaves only a broken file, and every restart fails to "
        "load it. Write to a temporary file (e.g. f'{{path}}.tmp') and rename it with os.replace(tmp, path), "
        "so the file at the snapshot path is always complete", writes=", ".join(sorted(set(writes))))
    _order_changes(clean)
    expected = records.load(clean_run.run_dir, "final")[0]["checksum"]

    # kill rank 0 while it writes snapshot k; the last complete one (k - 1) is mid-epoch, after epoch 0
    mid_epoch = [k for k in range(1, len(saved_at)) if saved_at[k - 1][0] >= 1 and saved_at[k - 1][1]]
    assert mid_epoch, tr("the given loop should snapshot in the middle of epochs; it saved at {saved_at}",
                         saved_at=saved_at)
    crash_at = random.choice(mid_epoch)
    position = saved_at[crash_at - 1]
    crashed_dir, failure = root / f"killed-saving-epoch-{saved_at[crash_at][0]}", None
    try:
        _run(script, crashed_dir, nproc, epochs, every, timeout, crash_at=crash_at, max_restarts=1)
    except launch.RankFailedError as error:
        failure = error
    if failure is not None:
        raise AssertionError(tr("after rank 0 was killed while writing a snapshot, the restarted job "
                                "failed:\n{failure}", failure=failure)) from None
    _resumed_where_it_stopped(crashed_dir, clean, position)
    loads = [call for row in records.load(crashed_dir, "snapshot-io-attempt1") for call in row["loads"]]
    assert loads and all(call["weights_only"] is True for call in loads), tr(
        "call torch.load(..., weights_only=True): it loads tensors only and refuses pickled code")
    for row in records.load(crashed_dir, "final"):
        assert row["checksum"] == expected, tr(
            "rank {rank} resumed at the right step with the right batches but ended with other weights than "
            "the uninterrupted run ({got} != {expected}): save and load the model's weights *and* the "
            "optimizer state (momentum)", rank=row["rank"], got=row["checksum"], expected=expected)
    killed, (epoch, step) = saved_at[crash_at], position
    passed(tr("rank 0 was killed while writing the snapshot of epoch {killed_epoch}, step {killed_step}; the job "
              "restarted at epoch {epoch}, step {step} (the last complete snapshot), trained the same batches "
              "as the uninterrupted run and ended bit-identical to it ({expected})",
              killed_epoch=killed[0], killed_step=killed[1], epoch=epoch, step=step, expected=expected))
