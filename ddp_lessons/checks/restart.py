"""Check of exercise 12: an atomic snapshot and a resume survive a rank killed mid-save under restarts."""

from __future__ import annotations

import os
import random
from pathlib import Path

from ddp_lessons import launch, records, scripts
from ddp_lessons.checks.common import passed, ranks_are
from ddp_lessons.runtime.contract import CRASH_AT_SAVE_ENV

RUNNER = scripts.path("crash_during_snapshot.py")
"""The packaged script that runs a script with its snapshot I/O observed, killing rank 0 mid-save."""


def _run(script: str | os.PathLike, run_dir: Path, nproc: int, epochs: int, timeout: float,
         crash_at: int | None = None, max_restarts: int = 0) -> launch.RunResult:
    """Launch `script` under the runner; `crash_at`: kill rank 0 during that epoch's snapshot."""
    env = {CRASH_AT_SAVE_ENV: str(crash_at)} if crash_at is not None else {}
    return launch.run_torchrun(RUNNER, nproc, args=[str(script), "--epochs", str(epochs), "--snapshot",
                                                    str((run_dir / "snapshot.pt").resolve())],
                               env=env, run_dir=run_dir, timeout=timeout, max_restarts=max_restarts,
                               echo=False)  # the crash tracebacks would drown the verdict


def restartable(script: str | os.PathLike, nproc: int = 2, epochs: int = 4, timeout: float = 120) -> None:
    """Killed while saving at a random epoch, the job restarts, resumes there and ends bit-identical."""
    root = records.new_run_dir(Path(script).stem)
    try:
        clean = _run(script, root / "uninterrupted", nproc, epochs, timeout)
    except launch.RankFailedError as error:
        raise AssertionError(f"the script fails even without a crash; fix this first:\n{error}") from None
    io = records.load(clean.run_dir, "snapshot-io-attempt0")
    ranks_are(io, nproc, "snapshot-io-attempt0")
    snapshot = str((clean.run_dir / "snapshot.pt").resolve())
    assert io[0]["saves"], "rank 0 never called torch.save: save_snapshot writes the snapshot on rank 0"
    for row in io[1:]:
        assert not row["saves"], (f"rank {row['rank']} saved too: only rank 0 writes the snapshot (every "
                                  "rank holds the same weights)")
    for row in io:
        assert row["barriers"] >= epochs, (
            f"rank {row['rank']} called dist.barrier() {row['barriers']} times in {epochs} epochs: call it "
            "in save_snapshot after rank 0 has written, so no rank goes on before the snapshot is complete")
    in_place = snapshot in io[0]["saves"]
    expected = records.load(clean.run_dir, "final")[0]["checksum"]

    crash_epoch = random.randint(1, epochs - 2)
    crashed_dir, failure = root / f"killed-saving-epoch-{crash_epoch}", None
    try:
        _run(script, crashed_dir, nproc, epochs, timeout, crash_at=crash_epoch, max_restarts=1)
    except launch.RankFailedError as error:
        failure = error
    assert not in_place, (
        f"rank 0 was killed while writing the snapshot of epoch {crash_epoch}, and the snapshot was "
        f"written in place (torch.save straight to the snapshot path): "
        f"{'the restarted job could not load the half-written file. ' if failure else ''}"
        "Write to a temporary file (e.g. f'{path}.tmp') and rename it with os.replace(tmp, path): a "
        "rename is atomic, so the file at the snapshot path is always a complete snapshot")
    if failure is not None:
        raise AssertionError(f"after rank 0 was killed while saving epoch {crash_epoch}, the restarted "
                             f"job failed:\n{failure}") from None
    starts = records.load(crashed_dir, "attempt1")
    for row in starts:
        assert row["first_epoch"] != 0, (
            f"rank 0 was killed while saving epoch {crash_epoch}, and the restarted job began again at "
            "epoch 0: load_snapshot must load the last complete snapshot and return the epoch after "
            "the one stored in it")
        assert row["first_epoch"] == crash_epoch, (
            f"the last complete snapshot held epoch {crash_epoch - 1}, so the restarted job should "
            f"begin at epoch {crash_epoch}, but rank {row['rank']} began at epoch {row['first_epoch']}")
    loads = [call for io_row in records.load(crashed_dir, "snapshot-io-attempt1") for call in io_row["loads"]]
    assert loads and all(call["weights_only"] is True for call in loads), (
        "call torch.load(..., weights_only=True): it loads tensors only and refuses pickled code")
    final = records.load(crashed_dir, "final")
    for row in final:
        assert row["checksum"] == expected, (
            f"rank {row['rank']} ended with other weights than the uninterrupted run ({row['checksum']} "
            f"!= {expected}): save and load the model's weights *and* the optimizer state "
            "(momentum), and resume with the epoch after the snapshot's")
    passed(f"killed while saving epoch {crash_epoch}, the job restarted at epoch {crash_epoch} from the "
           f"last complete snapshot and ended bit-identical to the uninterrupted run ({expected})")
