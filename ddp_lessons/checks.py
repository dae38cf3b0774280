"""Checks for the exercises: one helper per check cell, each asserting with a hint (see exercises/).

A helper prints one ``✓`` line when its check passes, and otherwise raises AssertionError with a
message that says what is wrong and how to fix it. Pure-function exercises hand over the
student's function (``checks.sampler_shards(shard_indices)``); script exercises hand over what
the ranks recorded (``checks.ddp_gradients(records.load(run.run_dir, "gradients"))``).
`checkpointing` launches its script itself, with ``torch.save``, ``torch.load`` and
``dist.barrier`` observed: running this file as a script is that observer.
"""

from __future__ import annotations

import itertools
import json
import os
import runpy
import sys
import time
from pathlib import Path
from typing import Any, Callable, Sequence

import torch
import torch.distributed as dist
from torch import nn
from torch.nn import functional as F
from torch.utils.data.distributed import DistributedSampler

from ddp_lessons import backend, launch, records

Rows = Sequence[dict[str, Any]]


def _passed(message: str) -> None:
    print(f"✓ {message}")


def _flat(values: Any) -> torch.Tensor:
    """Numbers in (nested lists / dicts of) tensors or lists, as one float64 vector."""
    if isinstance(values, dict):
        values = [values[key] for key in sorted(values)]
    if isinstance(values, (list, tuple)) and values and not isinstance(values[0], (int, float)):
        return torch.cat([_flat(v) for v in values])
    return torch.as_tensor(values, dtype=torch.float64).detach().cpu().flatten()


def _close(got: Any, expected: Any) -> bool:
    got, expected = _flat(got), _flat(expected)
    return got.shape == expected.shape and torch.allclose(got, expected, rtol=1e-4, atol=1e-6)


def _difference(got: Any, expected: Any) -> float:
    return (_flat(got) - _flat(expected)).abs().max().item()


def _factor(got: Any, expected: Any) -> float | None:
    """c when `got` is c times `expected` for some c != 1, else None."""
    got, expected = _flat(got), _flat(expected)
    if got.shape != expected.shape or not expected.abs().sum():
        return None
    c = (got @ expected / (expected @ expected)).item()
    return c if abs(c - 1) > 1e-3 and torch.allclose(got, c * expected, rtol=1e-4, atol=1e-6) else None


# --- Exercise 1: data parallelism by hand --------------------------------------------------------

def _replica_case(world_size: int) -> tuple[nn.Module, torch.Tensor, torch.Tensor, list]:
    """A small model, a batch of 8, and the batch's strided shards for `world_size` replicas."""
    with torch.random.fork_rng():
        torch.manual_seed(world_size)
        model = nn.Sequential(nn.Linear(3, 5), nn.Tanh(), nn.Linear(5, 2))
        inputs, targets = torch.randn(8, 3), torch.randn(8, 2)
    return model, inputs, targets, [(inputs[r::world_size], targets[r::world_size])
                                    for r in range(world_size)]


def _gradient(model: nn.Module, inputs: torch.Tensor, targets: torch.Tensor) -> list[torch.Tensor]:
    """Gradients of the mean squared error of `model` on one batch (leaves .grad alone)."""
    return list(torch.autograd.grad(F.mse_loss(model(inputs), targets), list(model.parameters())))


def replica_gradients(student_fn: Callable) -> None:
    """Each replica's gradients are those of the mean loss on its own shard, nothing carried over."""
    for world in (2, 4):
        model, inputs, targets, shards = _replica_case(world)
        got = student_fn(model, shards)
        expected = [_gradient(model, x, y) for x, y in shards]
        assert len(got) == world, f"return one list of gradients per shard: {world} shards, got {len(got)}"
        for rank, (grads, wanted) in enumerate(zip(got, expected)):
            where = f"{world} replicas, replica {rank}"
            assert len(grads) == len(wanted), \
                f"{where}: return one gradient per parameter ({len(wanted)}), got {len(grads)}"
            if _close(grads, wanted):
                continue
            assert not _close(grads, [sum(g) for g in zip(*expected[:rank + 1])]), (
                f"{where}: this gradient holds the earlier replicas' gradients too: backward() adds "
                "to .grad, so zero the gradients (model.zero_grad()) before each replica's backward")
            factor = _factor(grads, wanted)
            assert factor is None, (f"{where}: your gradient is {factor:g}x the expected one: use the "
                                    "mean loss over the shard (F.mse_loss's default), not the sum")
            assert not _close(grads, _gradient(model, inputs, targets)), \
                f"{where}: this is the whole batch's gradient: replica r computes on shards[r] only"
            raise AssertionError(f"{where}: expected the gradient of the mean loss on shards[{rank}]; "
                                 f"max |difference| {_difference(grads, wanted):.3g}")
    _passed("each replica's gradient is the mean-loss gradient of its own shard")


def averaged_gradients(student_fn: Callable) -> None:
    """Averaging the replicas' gradients gives one process's gradient on the whole batch."""
    for world in (2, 4):
        model, inputs, targets, shards = _replica_case(world)
        per_replica = [_gradient(model, x, y) for x, y in shards]
        got = student_fn(per_replica)
        whole_batch = _gradient(model, inputs, targets)
        assert len(got) == len(whole_batch), \
            f"return one averaged gradient per parameter ({len(whole_batch)}), got {len(got)}"
        if _close(got, whole_batch):
            continue
        assert not _close(got, [world * g for g in whole_batch]), (
            f"{world} replicas: you summed the replicas' gradients; DDP's all-reduce averages them "
            "(the sum divided by the world size)")
        assert not _close(got, per_replica[0]), \
            f"{world} replicas: that is replica 0's gradient alone: average over all replicas"
        raise AssertionError(f"{world} replicas: the average of the replicas' gradients should equal "
                             f"the whole batch's; max |difference| {_difference(got, whole_batch):.3g}")
    _passed(f"the mean of the replicas' gradients is the whole batch's gradient "
            f"(max |difference| {_difference(got, whole_batch):.1e})")


# --- Exercise 2: the process group ---------------------------------------------------------------

def _ranks_are(rows: Rows, nproc: int, name: str) -> None:
    ranks = [row["rank"] for row in rows]
    assert ranks == list(range(nproc)), \
        f"expected one {name!r} record from each rank 0..{nproc - 1}, got ranks {ranks}"


def process_group_setup(rows: Rows, nproc: int = 2) -> None:
    """Every rank joined one group of `nproc` with the backend and device this machine needs."""
    _ranks_are(rows, nproc, "setup")
    for row in rows:
        rank = row["rank"]
        expected = backend.choose(local_rank=row["local_rank"], local_world_size=nproc)
        assert row["world"] == nproc, f"rank {rank} sees a world of {row['world']}, expected {nproc}"
        assert row["backend"] == expected.backend, (
            f"rank {rank} joined with {row['backend']!r}, but this machine needs {expected.backend!r} "
            f"({expected.reason}): pass backend.choose().backend to init_process_group, not a fixed name")
        assert row["device"] == str(expected.device), (
            f"rank {rank} computes on {row['device']}, expected {expected.device}: take the device "
            "from backend.choose(local_rank), where local_rank = int(os.environ['LOCAL_RANK'])")
        if expected.device.type == "cuda":
            assert row["cuda_device"] == expected.device.index, (
                f"rank {rank}'s current CUDA device is cuda:{row['cuda_device']}, expected "
                f"{expected.device}: call torch.cuda.set_device(device) before init_process_group")
    _passed(f"{nproc} ranks joined with {rows[0]['backend']}, each on its own device: "
            + ", ".join(row["device"] for row in rows))


def mean_across_ranks(rows: Rows) -> None:
    """Every rank gets the mean of all ranks' values, and its own value is left unchanged."""
    total = [sum(column) for column in zip(*(row["value_before"] for row in rows))]
    mean = [value / len(rows) for value in total]
    for row in rows:
        rank, got = row["rank"], row["mean"]
        assert len(rows) == 1 or not _close(got, total), (
            f"rank {rank} got the sum {got}: all_reduce sums by default; divide by dist.get_world_size()")
        assert not _close(got, row["value_before"]), (
            f"rank {rank} got back its own value {got}: dist.all_reduce(tensor) combines the tensor "
            "across ranks")
        assert _close(got, mean), f"rank {rank} got {got}, expected the mean {mean}"
        assert row["value_after"] == row["value_before"], (
            f"rank {rank}'s input changed from {row['value_before']} to {row['value_after']}: "
            "all_reduce works in place, so reduce a copy (value.clone())")
    _passed(f"every rank got the mean {mean} and kept its own value")


# --- Exercise 3: devices and ranks across nodes --------------------------------------------------

def _torchrun_env(node_rank: int, local_rank: int, nnodes: int, nproc_per_node: int) -> dict[str, int]:
    return {"RANK": node_rank * nproc_per_node + local_rank, "LOCAL_RANK": local_rank,
            "WORLD_SIZE": nnodes * nproc_per_node, "LOCAL_WORLD_SIZE": nproc_per_node}


def _workers(layouts: Sequence[tuple[int, int]]):
    """(node_rank, local_rank, nnodes, nproc_per_node) of every worker of every (nnodes, nproc) job."""
    for nnodes, nproc in layouts:
        for node_rank, local_rank in itertools.product(range(nnodes), range(nproc)):
            yield node_rank, local_rank, nnodes, nproc


_ENV_HINTS = {
    "RANK": "RANK numbers the workers of the whole job: node_rank * nproc_per_node + local_rank",
    "LOCAL_RANK": "LOCAL_RANK numbers the workers on one node, from 0",
    "WORLD_SIZE": "WORLD_SIZE counts every worker of the job: nnodes * nproc_per_node",
    "LOCAL_WORLD_SIZE": "LOCAL_WORLD_SIZE counts the workers on this node: nproc_per_node",
}


def torchrun_env(student_fn: Callable) -> None:
    """The rank variables torchrun sets for every worker of single- and multi-node jobs."""
    for worker in _workers([(1, 2), (2, 4), (3, 2), (2, 1)]):
        expected = _torchrun_env(*worker)
        got = student_fn(*worker)
        for key, value in expected.items():
            assert got.get(key) == value, (
                f"node {worker[0]} of {worker[2]}, local rank {worker[1]} of {worker[3]}: "
                f"{key} should be {value}, got {got.get(key)!r}. {_ENV_HINTS[key]}")
    _passed("RANK, LOCAL_RANK, WORLD_SIZE and LOCAL_WORLD_SIZE match torchrun's for 1-3 nodes")


def _device_hint(got: tuple[str, str], env: dict[str, int], gpus: int) -> str:
    device, name = got
    rank, local_rank, local_world = env["RANK"], env["LOCAL_RANK"], env["LOCAL_WORLD_SIZE"]
    by_world = backend.choose(local_rank=local_rank, local_world_size=env["WORLD_SIZE"], gpus=gpus, cores=1)
    if gpus and rank != local_rank and device in (f"cuda:{rank}", f"cuda:{rank % gpus}"):
        return ("use LOCAL_RANK, not RANK: every node numbers its GPUs from 0, while RANK counts "
                "the workers of all nodes")
    if name == "nccl" and gpus == 0:
        return "nccl needs GPUs: on CPU use gloo"
    if name == "nccl" and gpus < local_world:
        return ("NCCL refuses two ranks on one GPU ('Duplicate GPU detected'): when the ranks of a "
                "node share its GPUs, use gloo")
    if got == (str(by_world.device), by_world.backend):
        return ("compare the node's GPUs with the ranks on this node (LOCAL_WORLD_SIZE), "
                "not with the whole job (WORLD_SIZE)")
    if gpus == 0:
        return "this node has no GPU: use 'cpu'"
    if not device.startswith("cuda:"):
        return "the node has GPUs: use one, named with its index, e.g. 'cuda:0'"
    if int(device.split(":")[1]) >= gpus:
        return (f"{device} does not exist on a node with {gpus} GPU(s): ranks share them as "
                "cuda:(LOCAL_RANK % gpus)")
    if name == "gloo" and gpus >= local_world:
        return "every rank has a GPU of its own here: use nccl, the GPU backend"
    return "follow the rule of lesson 3"


def device_and_backend(student_fn: Callable) -> None:
    """Each worker's device and backend follow the course's rule on nodes with 0, 1, 2 or 4 GPUs."""
    for gpus in (0, 1, 2, 4):
        for worker in _workers([(1, 1), (1, 2), (2, 2), (2, 4)]):
            env = _torchrun_env(*worker)
            choice = backend.choose(local_rank=env["LOCAL_RANK"], local_world_size=env["LOCAL_WORLD_SIZE"],
                                    gpus=gpus, cores=1)
            expected = (str(choice.device), choice.backend)
            device, name = student_fn(dict(env), gpus)
            got = (str(device), name)
            assert got == expected, (
                f"worker RANK={env['RANK']} (LOCAL_RANK={env['LOCAL_RANK']}, {worker[3]} per node, "
                f"{worker[2]} node(s)) on a node with {gpus} GPU(s): expected {expected}, got {got}. "
                + _device_hint(got, env, gpus))
    _passed("devices and backends are right for 1-2 nodes of 1-4 ranks with 0-4 GPUs")


# --- Exercise 4: wrapping the model --------------------------------------------------------------

def ddp_gradients(rows: Rows, nproc: int = 2) -> None:
    """Ranks start from rank 0's weights and end backward() with one gradient: the whole batch's."""
    _ranks_are(rows, nproc, "gradients")
    first = rows[0]
    for row in rows[1:]:
        assert _close(row["parameters"], first["parameters"]), (
            f"rank {row['rank']}'s weights differ from rank 0's: DDP(model) copies rank 0's weights "
            "to every rank when it is built. Did you wrap the model?")
        assert _close(row["gradients"], first["gradients"]), (
            f"rank {row['rank']}'s gradients differ from rank 0's: run the forward pass through the DDP "
            "wrapper (ddp_model(inputs)); only then does backward() all-reduce the gradients")
    reference = first["single_process_gradients"]
    factor = _factor(first["gradients"], reference)
    assert factor is None, (
        f"the gradients are {factor:g}x one process's gradient on the whole batch: use the mean "
        "loss on each rank (DDP averages across ranks, so a summed loss scales it by the batch size)")
    assert _close(first["gradients"], reference), (
        "every rank holds the same gradient, but not the whole batch's: "
        f"max |difference| {_difference(first['gradients'], reference):.3g}")
    _passed(f"all {nproc} ranks hold one process's gradient on the whole batch "
            f"(max |difference| {_difference(first['gradients'], reference):.1e})")


# --- Exercise 5: DistributedSampler as a pure function -------------------------------------------

def _sampler(size: int, world: int, rank: int, epoch: int = 0, seed: int = 0, shuffle: bool = True,
             drop_last: bool = False) -> list[int]:
    """What torch's DistributedSampler yields for one rank and epoch."""
    sampler = DistributedSampler(range(size), num_replicas=world, rank=rank, shuffle=shuffle,
                                 seed=seed, drop_last=drop_last)
    sampler.set_epoch(epoch)
    return list(sampler)


def _shard_hint(got: list[int], size: int, world: int, rank: int, epoch: int, seed: int,
                shuffle: bool, drop_last: bool) -> str:
    expected = _sampler(size, world, rank, epoch, seed, shuffle, drop_last)
    order = [None] * (len(expected) * world)  # the epoch's (padded or truncated) order, all ranks
    for r in range(world):
        order[r::world] = _sampler(size, world, r, epoch, seed, shuffle, drop_last)
    own = len(range(rank, min(size, len(order)), world))  # positions before any padding
    if got == order[rank * len(expected):(rank + 1) * len(expected)]:
        return ("shards must be strided: rank r takes positions r, r+W, r+2W, ... of the epoch's "
                "order; you returned contiguous blocks")
    if len(got) < len(expected) and not drop_last:
        return ("too few indices: when the size does not divide by world_size, the order is padded to "
                "ceil(size / world_size) * world_size by repeating it from its start (again and again "
                f"if the data set is tiny), so every rank gets {len(expected)}")
    if len(got) > len(expected) and drop_last:
        return ("with drop_last=True the order is cut to floor(size / world_size) * world_size "
                f"indices, with no padding, so every rank gets {len(expected)}")
    if len(got) != len(expected):
        return f"every rank gets {len(expected)} indices here"
    if got[:own] == expected[:own]:
        return ("padding must repeat the first indices of the epoch's order, in order "
                f"(order + order[:padding]): expected {expected[own:]} at the padded positions")
    if shuffle and got == _sampler(size, world, rank, 0, seed, shuffle, drop_last):
        return "the order must change with the epoch: seed the generator with seed + epoch"
    if shuffle and got == _sampler(size, world, rank, epoch, seed, False, drop_last):
        return ("with shuffle=True, first permute: torch.randperm(size, generator=g) with "
                "g = torch.Generator(); g.manual_seed(seed + epoch)")
    return "compare with the rule in lesson 5"


def sampler_shards(student_fn: Callable) -> None:
    """`student_fn` yields DistributedSampler's indices for every rank, epoch and option tried."""
    cases = itertools.product((1, 5, 10, 11, 16, 33), (1, 2, 3, 4, 7), (False, True), (True, False),
                              ((0, 0), (2, 5)))
    count = 0
    for size, world, drop_last, shuffle, (epoch, seed) in cases:
        for rank in range(world):
            expected = _sampler(size, world, rank, epoch, seed, shuffle, drop_last)
            got = list(student_fn(size, world, rank, epoch=epoch, seed=seed, shuffle=shuffle,
                                  drop_last=drop_last))
            count += 1
            assert got == expected, (
                f"size={size}, world_size={world}, rank={rank}, epoch={epoch}, seed={seed}, "
                f"shuffle={shuffle}, drop_last={drop_last}: expected {expected}, got {got}. "
                + _shard_hint(got, size, world, rank, epoch, seed, shuffle, drop_last))
    _passed(f"identical to torch's DistributedSampler in all {count} cases tried")


def coverage_counts(student_fn: Callable) -> None:
    """`student_fn(shards, size)` counts how often each index is visited in one epoch."""
    for size, world, drop_last in ((10, 4, False), (10, 4, True), (8, 2, False), (2, 5, False)):
        shards = [_sampler(size, world, r, drop_last=drop_last) for r in range(world)]
        expected = [sum(shard.count(i) for shard in shards) for i in range(size)]
        got = list(student_fn(shards, size))
        assert got == expected, (
            f"size={size}, world_size={world}, drop_last={drop_last}: expected {expected}, got {got}. "
            "Count every visit of every rank: padded indices are visited more than once, "
            "indices cut by drop_last zero times")
    _passed("visit counts are right, padding and drop_last included")


# --- Exercise 6: gradient accumulation with no_sync ----------------------------------------------

def _sgd_step(state: dict[str, Any], inputs: torch.Tensor, targets: torch.Tensor,
              lr: float) -> dict[str, torch.Tensor]:
    """One SGD step of an nn.Linear with weights `state` on the mean squared error of one batch."""
    params = {name: torch.tensor(value, requires_grad=True) for name, value in state.items()}
    loss = F.mse_loss(F.linear(inputs, params["weight"], params["bias"]), targets)
    grads = torch.autograd.grad(loss, list(params.values()))
    return {name: (p - lr * g).detach() for (name, p), g in zip(params.items(), grads)}


def gradient_accumulation(rows: Rows, nproc: int = 2) -> None:
    """One all-reduce and one optimizer step per `accumulation_steps` micro-batches, and the same
    update as one process taking an SGD step on all ranks' micro-batches of that step."""
    _ranks_are(rows, nproc, "accumulation")
    k, lr = rows[0]["accumulation_steps"], rows[0]["lr"]
    micro = len(rows[0]["micro_batches"])
    steps = micro // k
    for row in rows:
        rank, calls = row["rank"], row["all_reduces"]
        assert calls != micro, (
            f"rank {rank} all-reduced {calls} times, once per micro-batch: run the backward of the "
            f"first {k - 1} micro-batches of each step inside `with ddp_model.no_sync():`")
        assert calls != 0, ("no all-reduce ran: the last micro-batch of each step must run its "
                            "backward outside no_sync(), so DDP all-reduces the accumulated gradients")
        assert calls == steps, f"rank {rank} all-reduced {calls} times, expected {steps} (one per step)"
        assert len(row["after_steps"]) == steps, (
            f"rank {rank} took {len(row['after_steps'])} optimizer steps for {micro} micro-batches: "
            f"step once every {k} micro-batches")
    before = rows[0]["initial"]
    for step in range(steps):
        for row in rows[1:]:
            assert _close(row["after_steps"][step], rows[0]["after_steps"][step]), (
                f"after step {step}, rank {row['rank']}'s weights differ from rank 0's: the step "
                "used gradients that were not all-reduced")
        batch = [mb for row in rows for mb in row["micro_batches"][step * k:(step + 1) * k]]
        inputs = torch.cat([torch.tensor(x) for x, _ in batch])
        targets = torch.cat([torch.tensor(y) for _, y in batch])
        expected, got = _sgd_step(before, inputs, targets, lr), rows[0]["after_steps"][step]
        if not _close(got, expected):
            factor = _factor(_flat(got) - _flat(before), _flat(expected) - _flat(before))
            assert factor is None or abs(factor - k) > 1e-3, (
                f"step {step} moved the weights {k}x too far: the gradients of the {k} micro-batches "
                "add up, so divide each micro-batch's loss by accumulation_steps")
            assert step == 0, (f"step {step} differs although step 0 was right: zero the gradients "
                               "after each optimizer step, or they carry over into the next one")
            raise AssertionError(f"step {step} differs from one process's SGD step on the step's "
                                 f"{len(inputs)} samples; max |difference| {_difference(got, expected):.3g}")
        before = got
    _passed(f"{steps} steps, {steps} all-reduces per rank (not {micro}), each step equal to one "
            f"process's SGD step on {k * nproc} micro-batches")


# --- Exercise 7: set_epoch -----------------------------------------------------------------------

def set_epoch_used(rows: Rows) -> None:
    """Each epoch visits the data in a new order, exactly as DistributedSampler with set_epoch(epoch)."""
    size, seed, world = rows[0]["size"], rows[0]["seed"], len(rows)
    got = [[row["visited"][e] for row in rows] for e in range(len(rows[0]["visited"]))]
    expected = [[_sampler(size, world, r, e, seed) for r in range(world)] for e in range(len(got))]
    assert any(epoch != got[0] for epoch in got[1:]), (
        f"all {len(got)} epochs visited the data in the same order (rank 0: {got[0][0]}): call "
        "sampler.set_epoch(epoch) at the start of each epoch, before iterating the DataLoader")
    for e in range(1, len(got)):
        assert got[e] != expected[e - 1], (
            f"epoch {e} used epoch {e - 1}'s order: set_epoch comes too late; call "
            "sampler.set_epoch(epoch) before the loop over the DataLoader")
    for e, (seen, wanted) in enumerate(zip(got, expected)):
        for rank, (s, w) in enumerate(zip(seen, wanted)):
            assert s == w, f"epoch {e}, rank {rank} visited {s}, expected {w} (set_epoch({e}))"
    _passed(f"{len(got)} epochs, each in a new order; in each, the ranks' shards cover all {size} samples")


# --- Exercise 8: save on rank 0, barrier, load ---------------------------------------------------

CHECKPOINT_WAIT = 15.0
"""Seconds rank 0's observed torch.save waits at most for the other ranks (only wrong scripts wait)."""


def _keys(obj: Any) -> list[str]:
    return [str(key) for key in obj] if isinstance(obj, dict) else []


def _observe_checkpoint_io(script: str, script_args: list[str]) -> None:
    """Run `script` as __main__ in this rank with torch.save, torch.load and dist.barrier observed.

    Rank 0's torch.save acts as slow storage: it writes only once every other rank waits in a
    barrier that rank 0 has not reached, or has started to load. A rank that loads without waiting
    for the save therefore always loads too early, however the ranks are scheduled. The calls are
    written as this rank's 'checkpoint-io' record, even when the script fails.
    """
    rank, world = int(os.environ["RANK"]), int(os.environ["WORLD_SIZE"])
    signals = records.run_dir() / "checkpoint-io-signals"
    signals.mkdir(parents=True, exist_ok=True)
    saved = signals / "saved-by-rank0"
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
    sys.argv = [script, *script_args]
    sys.path[0] = str(Path(script).resolve().parent)
    try:
        runpy.run_path(script, run_name="__main__")
    finally:
        records.write("checkpoint-io", {"calls": calls})


def _calls(row: dict[str, Any], kind: str) -> list[dict[str, Any]]:
    return [call for call in row["calls"] if call["call"] == kind]


def checkpointing(script: str | os.PathLike, nproc: int = 2, timeout: float = 90) -> None:
    """Run `script` with its checkpoint I/O observed: only rank 0 saves, every rank loads only after
    the save is complete (weights_only, onto its device), and resumes with the trained weights."""
    failure = None
    try:
        run = launch.run_torchrun(__file__, nproc, args=[str(script)], timeout=timeout,
                                  run_dir=records.new_run_dir(Path(script).stem))
    except launch.RankFailedError as error:
        run, failure = error.result, error
    try:
        io = records.load(run.run_dir, "checkpoint-io")
    except FileNotFoundError:
        io = []
    for row in io:
        rank = row["rank"]
        assert all(call["after_save"] for call in _calls(row, "load")), (
            f"rank {rank} called torch.load before rank 0's torch.save had finished: call "
            "dist.barrier() after rank 0 saves and before any rank loads, or a rank reads a missing "
            "or half-written file")
        assert rank == 0 or not _calls(row, "save"), (
            f"rank {rank} saved too: only rank 0 writes the checkpoint (every rank holds the same "
            "weights, and several processes writing one file at once can corrupt it)")
        assert not any(key.startswith("module.") for call in row["calls"] for key in call.get("keys", [])), (
            "the checkpoint's keys start with 'module.': save ddp_model.module.state_dict(), the "
            "weights of the model inside the DDP wrapper, so a plain model can load them")
    if failure is not None:
        raise failure
    _ranks_are(io, nproc, "checkpoint-io")
    assert _calls(io[0], "save"), "rank 0 never called torch.save"
    for row in io:
        loads = _calls(row, "load")
        assert loads, f"rank {row['rank']} never loaded the checkpoint: every rank loads it"
        assert all(call["weights_only"] is True for call in loads), (
            "call torch.load(..., weights_only=True): it loads tensors only and refuses pickled code")
        assert all(call["map_location"] != "None" for call in loads), (
            "pass map_location=device to torch.load, so each rank loads onto its own device (the "
            "tensors were saved from rank 0's device)")
    rows = records.load(run.run_dir, "checkpoint")
    for row in rows:
        assert row["resumed"] == rows[0]["trained"], (
            f"rank {row['rank']}'s resumed model is not the trained one: load the state dict you "
            "read into the model (model.load_state_dict(state))")
    _passed(f"rank 0 saved once; all {nproc} ranks loaded the complete file (weights_only=True) "
            f"and resumed with the trained weights (checksum {rows[0]['trained']})")


# --- Exercise 9: speedup and efficiency ----------------------------------------------------------

def _scaling_hint(got: tuple[float, float], speedup: float, efficiency: float, ratio: float,
                  world: int) -> str:
    if _close(got, (efficiency, speedup)):
        return "speedup and efficiency are swapped: return (speedup, efficiency)"
    if _close(got[0], 1 / speedup):
        return "speedup is inverted: it is above 1 when W ranks are faster than one"
    if _close(got[0], ratio) and not _close(ratio, speedup):
        return ("in weak scaling W ranks process W times the samples of one rank per step: speedup "
                "is the throughput ratio W * T(1) / T(W), not T(1) / T(W)")
    if _close(got[1], speedup * world):
        return "efficiency is speedup / W (1.0 = perfect scaling), not speedup * W"
    return "speedup = throughput(W) / throughput(1); efficiency = speedup / W"


def _scaling(student_fn: Callable, cases: Sequence[dict[int, float]], weak: bool) -> None:
    for seconds in cases:
        got = student_fn(dict(seconds))
        assert sorted(got) == sorted(seconds), \
            f"return one (speedup, efficiency) per world size {sorted(seconds)}, got keys {sorted(got)}"
        for world, t in seconds.items():
            ratio = seconds[1] / t
            speedup = world * ratio if weak else ratio
            expected = (speedup, speedup / world)
            assert _close(got[world], expected), (
                f"seconds {seconds}, world size {world}: expected (speedup, efficiency) "
                f"({expected[0]:.4g}, {expected[1]:.4g}), got {tuple(got[world])}. "
                + _scaling_hint(tuple(got[world]), *expected, ratio, world))


def strong_scaling(student_fn: Callable) -> None:
    """Fixed total work: speedup T(1) / T(W), efficiency speedup / W."""
    _scaling(student_fn, [{1: 12.0, 2: 6.6, 4: 4.0, 8: 2.5}, {1: 4.0, 2: 4.4}, {1: 1.0}], weak=False)
    _passed("strong-scaling speedup and efficiency are right, slowdowns included")


def weak_scaling(student_fn: Callable) -> None:
    """Fixed batch per rank: speedup W * T(1) / T(W) (samples/s ratio), efficiency T(1) / T(W)."""
    _scaling(student_fn, [{1: 0.05, 2: 0.055, 4: 0.08, 16: 0.11}, {1: 2.0, 3: 2.0}], weak=True)
    _passed("weak-scaling speedup and efficiency are right")


if __name__ == "__main__":  # the observer `checkpointing` launches: checks.py SCRIPT [ARGS...]
    _observe_checkpoint_io(sys.argv[1], sys.argv[2:])
