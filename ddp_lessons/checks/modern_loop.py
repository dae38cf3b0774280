"""Checks of exercise 17: a compiled DDP script's checkpoint loaded into a plain model, and an input
pipeline that neither oversubscribes the cores nor repeats one rank's augmentations on another.

`checkpoint_keys` calls the student's `plain_state_dict` on the checkpoint the script saved from
``torch.compile(DDP(net))`` and compares the result, name for name and tensor for tensor, with the state
dict of the network itself. `input_pipeline` reads what each rank recorded about its DataLoader: the
cores, the world size, `num_workers`, the worker processes its batches came from, and the augmentations
its first batches drew."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any, Callable, Mapping

import torch

from ddp_lessons import launch, records
from ddp_lessons.checks.common import Rows, expect, fail, passed, ranks_are, recorded, written
from ddp_lessons.i18n import tr

PREFIXES = ("_orig_mod.", "module.")
"""What torch.compile (outer) and DDP (inner) put in front of the network's own names."""


def run_modern_loop(script: str | os.PathLike, nproc: int = 2, timeout: float = 180) -> launch.RunResult:
    """Launch the exercise's script (once the student's part is written) and return the run."""
    written(script)
    return launch.run_torchrun(script, nproc, timeout=timeout, run_dir=records.new_run_dir(Path(script).stem))


def reference_state(saved: Mapping[str, torch.Tensor]) -> dict[str, torch.Tensor]:
    """The network's own state dict inside a checkpoint of torch.compile(DDP(net)): each key without its
    leading prefixes, removed in order, outermost first (what consume_prefix_in_state_dict_if_present does)."""
    state = {}
    for key, value in saved.items():
        for prefix in PREFIXES:
            key = key[len(prefix):] if key.startswith(prefix) else key
        state[key] = value
    return state


@recorded("17")
def checkpoint_keys(plain_state_dict: Callable[[dict], Mapping[str, Any]],
                    checkpoint: str | os.PathLike) -> None:
    """`plain_state_dict(state)` turns the compiled DDP model's checkpoint into the plain network's."""
    saved = torch.load(checkpoint, map_location="cpu", weights_only=True)
    expected = reference_state(saved)
    got = plain_state_dict(dict(saved))
    expect(isinstance(got, Mapping), "not-a-dict",
           tr("plain_state_dict returned {kind}, not a state dict", kind=type(got).__name__),
           tr("return the dictionary of tensors whose keys you fixed (consume_prefix_in_state_dict_if_present "
              "changes it in place and returns None)"))
    missing = sorted(set(expected) - set(got))
    unexpected = sorted(set(got) - set(expected))
    prefixed = [key for key in unexpected if key.startswith(PREFIXES)]
    if prefixed:
        fail("prefix-left",
             tr("a plain model would refuse these keys: {keys} still start with a wrapper's prefix", keys=prefixed[:3]),
             tr("remove '_orig_mod.' (torch.compile's) and then 'module.' (DDP's) from the start of every key: "
                "torch.nn.modules.utils.consume_prefix_in_state_dict_if_present(state, prefix), once per prefix"))
    if missing or unexpected:
        wanted = next((key for key in missing if "module" in key), missing[0] if missing else None)
        got = next((key for key in unexpected if wanted and key.split(".")[0] == wanted.split(".")[0]
                    and key.split(".")[-1] == wanted.split(".")[-1]), unexpected[0] if unexpected else None)
        symptom = tr("the network's key {wanted!r} is missing and {got!r} is not one of its names: a parameter "
                     "whose own name contains 'module' lost part of it", wanted=wanted, got=got) \
            if wanted and "module" in wanted else \
            tr("the network's key {wanted!r} is missing and {got!r} is not one of its names", wanted=wanted, got=got)
        fail("mangled", symptom,
             tr("remove a prefix only where a key starts with it, and only once: consume_prefix_in_state_dict_if_present "
                "or key.removeprefix(prefix), never str.replace, split or a fixed slice"))
    changed = [key for key in expected if not torch.equal(torch.as_tensor(got[key]).cpu(), expected[key])]
    expect(not changed, "values", tr("the names are right but the tensors of {keys} changed", keys=changed[:3]),
           tr("keep each tensor as it is: rename the keys only"))
    passed(tr("plain_state_dict turned all {n} keys of the compiled DDP checkpoint into the network's own "
              "(for example {before!r} -> {after!r})", n=len(expected), before=next(iter(saved)),
              after=next(iter(expected))))


@recorded("17")
def input_pipeline(rows: Rows) -> None:
    """No more processes than cores; each rank's batches came from its own workers; ranks draw their own
    augmentations."""
    ranks_are(rows, len(rows), "pipeline")
    first = rows[0]
    world, cores, workers = first["world_size"], first["cores"], first["num_workers"]
    processes = world * (1 + workers)
    expect(processes <= cores or workers == 0, "oversubscribed",
           tr("{world} ranks x (1 + {workers} workers) = {processes} processes share {cores} core(s): they take "
              "turns, and each rank waits for its data", world=world, workers=workers, processes=processes,
              cores=cores),
           tr("choose num_workers from the cores each rank has: max(0, cores // world_size - 1)"))
    for row in rows:
        expect(row["worker_processes"] == row["num_workers"], "workers",
               tr("rank {rank}'s batches came from {seen} worker process(es), not the num_workers={workers} it "
                  "asked for", rank=row["rank"], seen=row["worker_processes"], workers=row["num_workers"]),
               tr("pass num_workers to the DataLoader you return"))
    draws = [tuple(map(tuple, row["shifts"])) for row in rows]
    same = [row["rank"] for row, drawn in zip(rows[1:], draws[1:]) if drawn == draws[0]]
    expect(not same, "same-seed",
           tr("rank 0 and rank {rank} drew the same augmentations, batch for batch: every rank seeded its data "
              "the same way", rank=same[0] if same else None),
           tr("give each rank its own seed for the data: DataLoader(..., generator=torch.Generator().manual_seed(seed + "
              "rank)) seeds its workers; with num_workers=0 the rank itself draws, so call "
              "torch.manual_seed(seed + rank) once the model is built"))
    passed(tr("{world} ranks x (1 + {workers} workers) = {processes} processes on {cores} core(s), and every rank "
              "drew its own augmentations", world=world, workers=workers, processes=processes, cores=cores))
