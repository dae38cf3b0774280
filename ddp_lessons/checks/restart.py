"""Check of exercise 12: atomic step-level snapshots and a resume at the very step, under restarts.

The script runs twice under the packaged runner ``scripts/crash_during_snapshot.py``: uninterrupted,
then with rank 0 killed while it writes a mid-epoch snapshot (at the first write of the snapshot path
itself). Its given code records where each attempt started (``attempt<n>``), every batch it trained
with its sample indices and where it saved (``trained<n>``), and the final weights; the runner records
the snapshot I/O (``snapshot-io-attempt<n>``). The verdict is a function of those records:
`uninterrupted_verdict` judges the first run (before the second is launched), `resumed_verdict` the
restarted job. Every failure goes through `fail`: the symptom first, the fix on a second failure.
"""

from __future__ import annotations

import os
import random
from pathlib import Path
from typing import Any

from ddp_lessons import launch, records, scripts
from ddp_lessons.checks.checkpoint import _fixed_device
from ddp_lessons.checks.common import Rows, expect, fail, passed, ranks_are, recorded, written
from ddp_lessons.i18n import tr
from ddp_lessons.runtime.contract import CRASH_AT_SAVE_ENV

RUNNER = scripts.path("crash_during_snapshot.py")
"""The packaged script that runs a script with its snapshot I/O observed, killing rank 0 mid-save."""

Position = tuple[int, int]
"""(epoch, steps of that epoch already trained): where a snapshot says to go on."""


def _run(script: str | os.PathLike, run_dir: Path, nproc: int, epochs: int, every: int, timeout: float,
         crash_at: int | None = None, max_restarts: int = 0) -> launch.RunResult:
    """Launch `script` under the runner; `crash_at`: kill rank 0 while it writes that snapshot."""
    env = {CRASH_AT_SAVE_ENV: str(crash_at)} if crash_at is not None else {}
    args = [str(script), "--epochs", str(epochs), "--every", str(every),
            "--snapshot", str((run_dir / "snapshot.pt").resolve())]
    return launch.run_torchrun(RUNNER, nproc, args=args, env=env, run_dir=run_dir, timeout=timeout,
                               max_restarts=max_restarts, echo=False)  # crash tracebacks would drown the verdict


def _batches(row: dict[str, Any]) -> dict[Position, list[int]]:
    """One rank's trained batches: {(epoch, step): sample indices}."""
    return {(epoch, step): indices for epoch, step, indices in row["batches"]}


def _load(run_dir: Path, name: str) -> list[dict[str, Any]]:
    """The records `name` of a run, [] when no rank wrote one (a run that failed before)."""
    try:
        return records.load(run_dir, name)
    except FileNotFoundError:
        return []


def _writes_in_place(io: Rows) -> None:
    """Rank 0 never wrote the snapshot path itself (a torch.save into it, a copy onto it)."""
    writes = sorted(set(io[0]["snapshot_writes"]))
    if not writes:
        return
    copied = all(write.startswith("open(") for write in writes)
    fail("copied-in-place" if copied else "in-place",
         tr("rank 0 wrote straight into the snapshot's path ({writes}): that first empties the file that held "
            "the last complete snapshot. A rank killed during that write leaves only half a snapshot, and every "
            "restart fails to load it", writes=", ".join(writes)),
         tr("never write the path itself, neither with torch.save nor with a copy: write the new snapshot to a "
            "temporary file in the same folder (e.g. f'{{path}}.tmp'), then rename it onto the path with "
            "os.replace(tmp, path), which swaps the whole file at once"))


def _one_writer(io: Rows, snapshots: int) -> None:
    """Rank 0 alone called torch.save, once per snapshot."""
    expect(io[0]["saves"], "no-save", tr("rank 0 never saved a snapshot"),
           tr("save_snapshot writes the snapshot on rank 0 with torch.save"))
    for row in io[1:]:
        expect(not row["saves"], "every-rank-saves",
               tr("rank {rank} saved too: several processes wrote the same snapshot at once, with identical "
                  "weights", rank=row["rank"]),
               tr("only rank 0 writes the snapshot: if dist.get_rank() == 0: ..."))
    expect(len(io[0]["saves"]) == snapshots, "saves-per-snapshot",
           tr("rank 0 called torch.save {calls} times for {snapshots} snapshots", calls=len(io[0]["saves"]),
              snapshots=snapshots),
           tr("save_snapshot saves once each time it is called: one torch.save per snapshot"))


def _waits_for_the_write(io: Rows) -> None:
    """After each snapshot rank 0 wrote, every rank waited in a barrier before going on: the barrier comes
    after rank 0's last write of that snapshot and before its next save (or the end)."""
    saves = [n for n, event in enumerate(io[0]["events"]) if event == "save"]
    for k, begin in enumerate(saves):
        segment = io[0]["events"][begin:saves[k + 1] if k + 1 < len(saves) else None]
        written_at = max(n for n, event in enumerate(segment) if event in ("save", "snapshot"))
        if "barrier" not in segment[written_at:]:
            fail("no-barrier",
                 tr("save_snapshot returned on the other ranks before rank 0 had finished writing snapshot {number} "
                    "of {count}: no rank waited for rank 0's write, so a rank could go on, or read the path, "
                    "while it still held the previous snapshot", number=k + 1, count=len(saves)),
                 tr("end save_snapshot with dist.barrier() on every rank, after rank 0's write and rename: no "
                    "rank leaves it before rank 0 has finished"))


def _new_order_each_epoch(clean: Rows) -> None:
    """The uninterrupted run trained every step of every epoch, in a new shuffle each epoch."""
    for row in clean:
        batches = _batches(row)
        epochs = sorted({epoch for epoch, _ in batches})
        for epoch in epochs:
            steps = sorted(step for e, step in batches if e == epoch)
            expect(steps == list(range(len(steps))), "uninterrupted-steps",
                   tr("in the uninterrupted run rank {rank} trained steps {steps} of epoch {epoch}",
                      rank=row["rank"], steps=steps, epoch=epoch),
                   tr("from step 0 (nothing trained yet) epoch_batches yields every batch of the epoch, each with "
                      "its step, numbered from 0"))
        if len(epochs) > 1 and batches[(epochs[0], 0)] == batches[(epochs[1], 0)]:
            fail("same-order",
                 tr("in the uninterrupted run rank {rank} trained epochs {first} and {second} with the same "
                    "batches in the same order: every epoch repeats the first one's shuffle",
                    rank=row["rank"], first=epochs[0], second=epochs[1]),
                 tr("a DistributedSampler shuffles with seed + epoch, and its epoch is what set_epoch last set "
                    "(0 in a new sampler): call loader.sampler.set_epoch(epoch) in epoch_batches, before "
                    "iterating"))


def uninterrupted_verdict(io: Rows, clean: Rows, nproc: int) -> list[Position]:
    """Judge the uninterrupted run from its records: the snapshot I/O (`io`, 'snapshot-io-attempt0') and the
    trained batches (`clean`, 'trained0'). Returns where it saved, in order."""
    ranks_are(io, nproc, "snapshot-io-attempt0")
    ranks_are(clean, nproc, "trained0")
    saved_at = [tuple(position) for position in clean[0]["saved_at"]]
    _writes_in_place(io)
    _one_writer(io, len(saved_at))
    _waits_for_the_write(io)
    _new_order_each_epoch(clean)
    return saved_at


def _began_there(attempts: Rows, position: Position) -> None:
    """Every rank of the restarted job began at the snapshot's position, not at the start of the job or
    of the epoch."""
    epoch, step = position
    for row in attempts:
        began = (row["first_epoch"], row["first_step"])
        expect(began != (0, 0) or position == (0, 0), "started-over",
               tr("the restarted job began again at epoch 0, step 0, though the last complete snapshot held "
                  "epoch {epoch} after {step} steps: everything before was trained twice", epoch=epoch, step=step),
               tr("load_snapshot loads the snapshot at path when there is one and returns the position it holds, "
                  "(epoch, step); (0, 0) only without a snapshot"))
        expect(began != (epoch, 0) or step == 0, "epoch-start",
               tr("the restarted job began at step 0 of epoch {epoch}, but the last complete snapshot was taken "
                  "after {step} steps of it: those {step} batches were trained twice", epoch=epoch, step=step),
               tr("keep the step in the snapshot (save_snapshot's step) and return (epoch, step) from "
                  "load_snapshot"))


def _loads(io: Rows) -> None:
    """Every load of the restarted job ran no code from the file and put the tensors on the rank's device."""
    for row in io:
        rank = row["rank"]
        for load in row["loads"]:
            expect(load["weights_only"] is True, "weights-only",
                   tr("rank {rank}'s torch.load may run code from the file: a checkpoint is a pickle, and unpickling "
                      "it in full can call any function the file names", rank=rank),
                   tr("call torch.load(..., weights_only=True): it rebuilds tensors and plain containers only"))
            expect(load.get("map_location", "None") != "None", "map-location-missing",
                   tr("rank {rank} loads the tensors onto the device rank 0 saved them from: on GPUs every "
                      "rank's copy lands on cuda:0 (memory piles up there, and the tensors sit on another "
                      "device than the rank's model)", rank=rank),
                   tr("pass map_location=device to torch.load, the rank's own device that load_snapshot receives"))
            expect(not _fixed_device(load.get("map_location", "None"), row.get("device", "cpu")),
                   "map-location-fixed",
                   tr("rank {rank} loads the tensors onto {place}, a device written into the code, while its "
                      "own device is {device}: on GPUs every rank's copy lands on that one GPU (and without a "
                      "GPU the load fails)", rank=rank, place=load.get("map_location"), device=row.get("device")),
                   tr("pass map_location=device, the device load_snapshot receives, not a fixed cuda:N"))


def _same_batches(resumed: Rows, clean: Rows, position: Position) -> None:
    """Each rank trained, after the restart, exactly the uninterrupted run's batches from `position` on."""
    epoch, step = position
    off_by_one = tr("the snapshot's step is the number of that epoch's steps already trained, and steps count "
                    "from 0: the first step to train after a resume is that number itself. Neither load_snapshot "
                    "nor epoch_batches adds or takes away one")
    for resumed_row, before in zip(resumed, clean):
        rank, got, ahead = resumed_row["rank"], _batches(resumed_row), _batches(before)
        expect(resumed_row["batches"], "nothing-trained",
               tr("rank {rank} trained no step after the restart", rank=rank),
               tr("after load_snapshot the loop goes on from the position it returned: return the snapshot's "
                  "(epoch, step), and let epoch_batches yield the steps from first_step on"))
        first = tuple(resumed_row["batches"][0][:2])
        batch = got[first]
        if first != position or batch != ahead.get(position):
            if step and batch == ahead.get((epoch, 0)):
                fail("batches-not-skipped",
                     tr("after the restart rank {rank} trained epoch {epoch} from its first batch again, though "
                        "the snapshot already held {step} steps of it: those batches were trained twice",
                        rank=rank, epoch=epoch, step=step),
                     tr("epoch_batches(loader, epoch, first_step) yields the epoch's batches from step first_step "
                        "on: leave out the first first_step batches of the epoch's order"))
            if step and batch == ahead.get((epoch, step - 1)):
                fail("trained-twice",
                     tr("after the restart rank {rank} trained the batch of epoch {epoch}, step {again} again: "
                        "the snapshot already held its update, so that batch counted twice",
                        rank=rank, epoch=epoch, again=step - 1), off_by_one)
            if batch == ahead.get((epoch, step + 1)):
                fail("skipped",
                     tr("after the restart rank {rank} went on with the batch of epoch {epoch}, step {next}: the "
                        "batch of step {step}, the first one the snapshot did not hold, was never trained",
                        rank=rank, epoch=epoch, next=step + 1, step=step), off_by_one)
            if epoch and batch == ahead.get((0, step)):
                fail("no-set-epoch-on-resume",
                     tr("after the restart rank {rank} trained epoch {epoch} with the batches epoch 0 has at those "
                        "steps: the restarted process drew epoch 0's shuffle, not epoch {epoch}'s",
                        rank=rank, epoch=epoch),
                     tr("a restarted process builds a new DistributedSampler, whose epoch is 0: call "
                        "loader.sampler.set_epoch(epoch) in epoch_batches every time, also when it resumes in "
                        "the middle of an epoch"))
            if batch == ahead.get(position):
                fail("numbering",
                     tr("after the restart rank {rank} trained the right batch but numbered it epoch {got_epoch}, "
                        "step {got_step}, not epoch {epoch}, step {step}", rank=rank, got_epoch=first[0],
                        got_step=first[1], epoch=epoch, step=step),
                     tr("number each batch with its step in the whole epoch: the first one after a resume at "
                        "first_step is step first_step, not 0"))
            fail("other-batches",
                 tr("after the restart rank {rank} began at epoch {got_epoch}, step {got_step} with other samples "
                    "than the uninterrupted run trained at epoch {epoch}, step {step}", rank=rank,
                    got_epoch=first[0], got_step=first[1], epoch=epoch, step=step),
                 tr("the restarted job trains, from the snapshot's position on, the batches the uninterrupted run "
                    "trained there: the epoch's own shuffle, from step first_step on"))
        later = {key: value for key, value in ahead.items() if key >= position}
        if got != later:
            differ = min(set(got) ^ set(later) | {key for key in got.keys() & later.keys() if got[key] != later[key]})
            fail("later-batches",
                 tr("after the restart rank {rank} trained other batches than the uninterrupted run from epoch "
                    "{epoch}, step {step} on (the first difference: epoch {at_epoch}, step {at_step})",
                    rank=rank, epoch=epoch, step=step, at_epoch=differ[0], at_step=differ[1]),
                 tr("every step once, in each epoch's own order: set the sampler's epoch each time epoch_batches "
                    "is called, and leave out only the steps the snapshot already holds"))


def _module_prefix(module_keys: list[str]) -> None:
    """Fail: the snapshot holds DDP's own state dict, which the plain model does not load."""
    fail("module-prefix",
         tr("the restarted job could not load the snapshot: its weights are named {keys}..., with the "
            "'module.' of the DDP wrapper, and load_snapshot loads them into the plain model, whose names "
            "have no such prefix", keys=", ".join(module_keys[:2])),
         tr("save ddp_model.module.state_dict(), the weights of the model inside the DDP wrapper: a plain "
            "model loads them"))


def resumed_verdict(clean: Rows, position: Position, attempts: Rows, resumed: Rows, io: Rows, finals: Rows,
                    expected: str, module_keys: list[str], failure: str | None = None, nproc: int = 2) -> None:
    """Judge the restarted job from its records: where each rank began (`attempts`, 'attempt1'), what it
    trained (`resumed`, 'trained1'), its snapshot I/O (`io`, 'snapshot-io-attempt1') and final weights
    (`finals`), against the uninterrupted run's batches (`clean`) and checksum (`expected`); `position` is the
    last complete snapshot's, `module_keys` what the uninterrupted run's saves held with a 'module.' prefix,
    `failure` the launcher's error when the restarted job failed."""
    if failure is not None:
        if module_keys:
            _module_prefix(module_keys)
        fail("restart-failed",
             tr("after rank 0 was killed while writing a snapshot, the restarted job failed:\n{failure}",
                failure=failure),
             tr("the restarted processes start with the snapshot the killed job left at the path: run the script "
                "twice with the same --snapshot to see the error, and make load_snapshot load that file"))
    ranks_are(attempts, nproc, "attempt1")
    _began_there(attempts, position)
    ranks_are(io, nproc, "snapshot-io-attempt1")
    expect(any(row["loads"] for row in io), "no-load", tr("no rank loaded the snapshot after the restart"),
           tr("load_snapshot loads the snapshot on every rank when there is one"))
    _loads(io)
    ranks_are(resumed, nproc, "trained1")
    _same_batches(resumed, clean, position)
    for row in finals:
        if row["checksum"] != expected and module_keys:  # loaded with strict=False: nothing loaded
            _module_prefix(module_keys)
        expect(row["checksum"] == expected, "other-weights",
               tr("rank {rank} resumed at the right step with the right batches but ended with other weights "
                  "than the uninterrupted run ({got} != {expected})", rank=row["rank"], got=row["checksum"],
                  expected=expected),
               tr("the snapshot holds, and load_snapshot restores, the weights and the optimizer's state (SGD's "
                  "momentum): model.load_state_dict and optimizer.load_state_dict"))


def mid_epoch_crashes(saved_at: list[Position]) -> list[int]:
    """The snapshots k to kill rank 0 in: the last complete one (k - 1) is in the middle of an epoch after
    epoch 0, so a resume at the epoch's start, or in epoch 0's order, trains other batches."""
    return [k for k in range(1, len(saved_at)) if saved_at[k - 1][0] >= 1 and saved_at[k - 1][1]]


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
    clean = records.load(clean_run.run_dir, "trained0")
    saved_at = uninterrupted_verdict(io, clean, nproc)
    expected = records.load(clean_run.run_dir, "final")[0]["checksum"]

    crashes = mid_epoch_crashes(saved_at)
    assert crashes, tr("the given loop should snapshot in the middle of epochs; it saved at {saved_at}",
                       saved_at=saved_at)
    crash_at = random.choice(crashes)
    position = saved_at[crash_at - 1]
    crashed_dir, failure = root / f"killed-saving-epoch-{saved_at[crash_at][0]}", None
    try:
        _run(script, crashed_dir, nproc, epochs, every, timeout, crash_at=crash_at, max_restarts=1)
    except launch.RankFailedError as error:
        failure = str(error)
    resumed_verdict(clean, position, _load(crashed_dir, "attempt1"), _load(crashed_dir, "trained1"),
                    _load(crashed_dir, "snapshot-io-attempt1"), _load(crashed_dir, "final"), expected,
                    io[0].get("module_keys", []), failure, nproc)
    killed, (epoch, step) = saved_at[crash_at], position
    passed(tr("rank 0 was killed while writing the snapshot of epoch {killed_epoch}, step {killed_step}; the job "
              "restarted at epoch {epoch}, step {step} (the last complete snapshot), trained the same batches "
              "as the uninterrupted run and ended bit-identical to it ({expected})",
              killed_epoch=killed[0], killed_step=killed[1], epoch=epoch, step=step, expected=expected))
