"""Check of exercise 8: save on rank 0, barrier, load; run with the script's checkpoint I/O observed."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

from ddp_lessons import launch, records, scripts
from ddp_lessons.checks.common import passed, ranks_are, recorded, written
from ddp_lessons.i18n import tr

OBSERVER = scripts.path("observe_checkpoint_io.py")
"""The packaged script that runs a script with torch.save, torch.load and dist.barrier observed."""


def _calls(row: dict[str, Any], kind: str) -> list[dict[str, Any]]:
    """The observed calls of one `kind` ('save', 'load' or 'barrier') in one rank's record."""
    return [call for call in row["calls"] if call["call"] == kind]


@recorded("08")
def checkpointing(script: str | os.PathLike, nproc: int = 2, timeout: float = 90) -> None:
    """Only rank 0 saves; every rank loads the complete file (weights_only, onto its device) and resumes."""
    written(script)
    failure = None
    try:
        run = launch.run_torchrun(OBSERVER, nproc, args=[str(script)], timeout=timeout,
                                  run_dir=records.new_run_dir(Path(script).stem))
    except launch.RankFailedError as error:
        run, failure = error.result, error
    try:
        io = records.load(run.run_dir, "checkpoint-io")
    except FileNotFoundError:
        io = []
    for row in io:
        rank = row["rank"]
        assert all(call["after_save"] for call in _calls(row, "load")), tr(
            "rank {rank} called torch.load before rank 0's torch.save had finished: call "
            "dist.barrier() after rank 0 saves and before any rank loads, or a rank reads a missing "
            "or half-written file", rank=rank)
        assert rank == 0 or not _calls(row, "save"), tr(
            "rank {rank} saved too: only rank 0 writes the checkpoint (every rank holds the same "
            "weights, and several processes writing one file at once can corrupt it)", rank=rank)
        assert not any(key.startswith("module.") for call in row["calls"] for key in call.get("keys", [])), tr(
            "the checkpoint's keys start with 'module.': save ddp_model.module.state_dict(), the "
            "weights of the model inside the DDP wrapper, so a plain model can load them")
    if failure is not None:
        raise failure
    ranks_are(io, nproc, "checkpoint-io")
    assert _calls(io[0], "save"), tr("rank 0 never called torch.save")
    for row in io:
        loads = _calls(row, "load")
        assert loads, tr("rank {rank} never loaded the checkpoint: every rank loads it", rank=row["rank"])
        assert all(call["weights_only"] is True for call in loads), tr(
            "call torch.load(..., weights_only=True): it loads tensors only and refuses pickled code")
        assert all(call["map_location"] != "None" for call in loads), tr(
            "pass map_location=device to torch.load, so each rank loads onto its own device (the "
            "tensors were saved from rank 0's device)")
    rows = records.load(run.run_dir, "checkpoint")
    for row in rows:
        assert row["resumed"] == rows[0]["trained"], tr(
            "rank {rank}'s resumed model is not the trained one: load the state dict you "
            "read into the model (model.load_state_dict(state))", rank=row["rank"])
    passed(tr("rank 0 saved once; all {nproc} ranks loaded the complete file (weights_only=True) "
              "and resumed with the trained weights (checksum {checksum})", nproc=nproc,
              checksum=rows[0]["trained"]))
