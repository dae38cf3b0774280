"""Check of exercise 8: one rank writes the checkpoint, no rank reads it before it is complete, every rank
loads it onto its own device; run with the script's checkpoint I/O observed (`scripts/observe_checkpoint_io.py`:
rank 0's save is slow and a previous run's checkpoint already sits at the path), then judged from the
records by `checkpoint_verdict`."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

import torch

from ddp_lessons import launch, records, scripts
from ddp_lessons.checks.common import Rows, expect, passed, ranks_are, recorded, written
from ddp_lessons.i18n import tr

OBSERVER = scripts.path("observe_checkpoint_io.py")
"""The packaged script that runs a script with torch.save, torch.load and dist.barrier observed."""


def _calls(row: dict[str, Any], kind: str) -> list[dict[str, Any]]:
    """The observed calls of one `kind` ('save', 'load' or 'barrier') in one rank's record."""
    return [call for call in row["calls"] if call["call"] == kind]


def _fixed_device(map_location: str, device: str) -> bool:
    """True when `map_location` (as recorded) names a CUDA device that is not the rank's own `device`."""
    try:
        place = torch.device(map_location)
    except (RuntimeError, TypeError):
        return False  # a dict or a function: not one fixed device
    return place.type == "cuda" and place != torch.device(device)


def io_verdict(io: Rows) -> None:
    """Fail on what the observed checkpoint I/O of each rank (`checkpoint-io` records) shows wrong."""
    for row in io:
        rank, calls = row["rank"], row["calls"]
        loads = _calls(row, "load")
        expect(rank == 0 or not _calls(row, "save"), "every-rank-saves",
               tr("rank {rank} saved too: several processes wrote the same file at once (each torch.save "
                  "truncates it, so one can cut what another wrote), with identical weights", rank=rank),
               tr("only rank 0 writes the checkpoint: if dist.get_rank() == 0: torch.save(...)"))
        expect(all(call["after_save"] for call in loads), "early-load",
               tr("rank {rank} called torch.load before rank 0's torch.save had finished: it read the previous "
                  "run's checkpoint, or a half-written file (the check leaves one run's file at the path and makes "
                  "rank 0's save slow, as on a network file system)", rank=rank),
               tr("put dist.barrier() after rank 0's torch.save and before any rank's torch.load: a rank leaves "
                  "the barrier only once every rank has reached it, rank 0 after its save returned"))
        for load in loads if rank != 0 else []:  # rank 0 reads what it wrote itself
            position = calls.index(load)
            saves = [n for n, call in enumerate(calls[:position]) if call["call"] == "save"]
            since = calls[saves[-1] + 1 if saves else 0:position]
            expect(any(call["call"] == "barrier" for call in since), "polls",
                   tr("rank {rank} loaded the checkpoint without any dist.barrier() before it: it found the "
                      "file by itself, which holds only where every rank sees rank 0's writes at once and "
                      "in order (not on a network file system), and only when no earlier run left a file "
                      "at the path", rank=rank),
                   tr("let every rank wait in dist.barrier() after rank 0's torch.save instead of polling for "
                      "the file"))
        expect(not any(key.startswith("module.") for call in calls for key in call.get("keys", [])),
               "module-prefix",
               tr("the checkpoint's keys start with 'module.': a plain model (not wrapped in DDP) refuses them"),
               tr("save ddp_model.module.state_dict(), the weights of the model inside the DDP wrapper"))
        expect(all(call["weights_only"] is True for call in loads), "weights-only",
               tr("rank {rank}'s torch.load may run code from the file: a checkpoint is a pickle, and unpickling "
                  "it in full can call any function the file names", rank=rank),
               tr("call torch.load(..., weights_only=True): it rebuilds tensors and plain containers only"))
        for load in loads:
            expect(load["map_location"] != "None", "map-location-missing",
                   tr("rank {rank} loads the tensors onto the device rank 0 saved them from: on GPUs every "
                      "rank's copy lands on cuda:0 (memory piles up there, and the tensors sit on another "
                      "device than the rank's model)", rank=rank),
                   tr("pass map_location=device to torch.load, the rank's own device"))
            expect(not _fixed_device(load["map_location"], row["device"]), "map-location-fixed",
                   tr("rank {rank} loads the tensors onto {place}, a device written into the code, while its "
                      "own device is {device}: on GPUs every rank's copy lands on that one GPU (and without a "
                      "GPU the load fails)", rank=rank, place=load["map_location"], device=row["device"]),
                   tr("pass map_location=device, the device load_checkpoint receives, not a fixed cuda:N"))


def checkpoint_verdict(io: Rows, rows: Rows, nproc: int) -> None:
    """Judge a run from its records: the observed I/O (`io`) and the checksums the ranks wrote (`rows`)."""
    ranks_are(io, nproc, "checkpoint-io")
    io_verdict(io)
    expect(_calls(io[0], "save"), "no-save", tr("rank 0 never called torch.save"),
           tr("rank 0 writes ddp_model.module.state_dict() with torch.save"))
    for row in io:
        expect(_calls(row, "load"), "no-load",
               tr("rank {rank} never loaded the checkpoint: its model kept the weights it was built with",
                  rank=row["rank"]),
               tr("every rank loads the checkpoint: a restarted job has no other copy of the weights"))
    ranks_are(rows, nproc, "checkpoint")
    for row in rows:
        expect(row["resumed"] == rows[0]["trained"], "not-loaded",
               tr("rank {rank}'s resumed model is not the trained one", rank=row["rank"]),
               tr("load the state dict you read into the model: model.load_state_dict(state)"))
    passed(tr("rank 0 saved once; all {nproc} ranks loaded the complete file (weights_only=True) "
              "and resumed with the trained weights (checksum {checksum})", nproc=nproc,
              checksum=rows[0]["trained"]))


@recorded("08")
def checkpointing(script: str | os.PathLike, nproc: int = 2, timeout: float = 90) -> None:
    """Only rank 0 saves; every rank waits for the complete file, loads it (weights_only, onto its device) and
    resumes; run under the observer, judged by `checkpoint_verdict`."""
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
    io_verdict(io)  # what went wrong before the failure, if one stopped the run
    if failure is not None:
        raise failure
    checkpoint_verdict(io, records.load(run.run_dir, "checkpoint"), nproc)
