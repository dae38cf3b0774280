"""Observer for exercise 8's check (`checks.checkpointing` launches it with torchrun): SCRIPT [ARGS...].

Each rank runs SCRIPT as __main__ with torch.save, torch.load and dist.barrier observed. Rank 0's
torch.save acts as slow storage: it writes only once every other rank waits in a barrier that
rank 0 has not reached, or has started to load. Before the script starts, rank 0 leaves a previous
run's checkpoint at the run's checkpoint.pt (as a restarted job finds its predecessor's file), so a
rank that polls for the file finds it at once. A rank that loads without waiting for the save
therefore always loads too early, however the ranks are scheduled. The calls, with each rank's own
device (`backend.choose`, as the course's scripts pick it), are written as this rank's
'checkpoint-io' record, even when the script fails.
"""

import json
import os
import sys
import time
from typing import Any

import torch
import torch.distributed as dist

from ddp_lessons import backend, records
from ddp_lessons.scripts import run_as_main

CHECKPOINT_WAIT = 15.0
"""Seconds rank 0's observed torch.save waits at most for the other ranks (only wrong scripts wait)."""
PREVIOUS_RUN = "checkpoint.pt"
"""The file in the run's folder where rank 0 leaves a previous run's checkpoint before the script starts."""


def _keys(obj: Any) -> list[str]:
    """The keys of a saved or loaded state dict, as strings; [] for anything else."""
    return [str(key) for key in obj] if isinstance(obj, dict) else []


def observe_checkpoint_io(script: str, script_args: list[str]) -> None:
    """Run `script` as __main__ in this rank with its checkpoint I/O observed and recorded."""
    rank, world = int(os.environ["RANK"]), int(os.environ["WORLD_SIZE"])
    signals = records.run_dir() / "checkpoint-io-signals"
    signals.mkdir(parents=True, exist_ok=True)
    saved = signals / "saved-by-rank0"
    previous = signals / "previous-run-written"
    if rank == 0:  # the previous run's weights: a state dict no model of the script has
        torch.save({"previous run": torch.zeros(1)}, records.run_dir() / PREVIOUS_RUN)
        previous.touch()
    deadline = time.monotonic() + CHECKPOINT_WAIT
    while not previous.exists() and time.monotonic() < deadline:
        time.sleep(0.01)
    calls: list[dict[str, Any]] = []
    where = {"barriers": 0, "loading": False}  # what this rank tells rank 0
    real_save, real_load, real_barrier = torch.save, torch.load, dist.barrier

    def tell(**change):
        where.update(change)
        records.write("where", where, directory=signals)

    def waits_or_loads(other: int) -> bool:
        path = signals / f"where.rank{other}.json"
        there = json.loads(path.read_text()) if path.exists() else {"barriers": 0, "loading": False}
        return there["loading"] or there["barriers"] > where["barriers"]

    def save(obj, f, *args, **kwargs):
        deadline = time.monotonic() + CHECKPOINT_WAIT
        while rank == 0 and not all(map(waits_or_loads, range(1, world))) and time.monotonic() < deadline:
            time.sleep(0.01)
        real_save(obj, f, *args, **kwargs)
        calls.append({"call": "save", "keys": _keys(obj)})
        if rank == 0:
            saved.touch()

    def load(f, *args, **kwargs):
        call = {"call": "load", "after_save": saved.exists(), "weights_only": kwargs.get("weights_only"),
                "map_location": str(kwargs.get("map_location", args[0] if args else None))}
        calls.append(call)
        tell(loading=True)
        obj = real_load(f, *args, **kwargs)
        call["keys"] = _keys(obj)
        return obj

    def barrier(*args, **kwargs):
        calls.append({"call": "barrier"})
        tell(barriers=where["barriers"] + 1)
        return real_barrier(*args, **kwargs)

    torch.save, torch.load, dist.barrier = save, load, barrier
    try:
        run_as_main(script, script_args)
    finally:
        records.write("checkpoint-io", {"calls": calls, "device": str(backend.choose().device)})


if __name__ == "__main__":
    observe_checkpoint_io(sys.argv[1], sys.argv[2:])
