"""Checks of exercise 10 (bug hunt): each catches one planted bug, on CPU, apart from the others.

Three checks call the script's functions in this process (`load_script`): `wrap` on a simulated
2-node layout, `make_loader` for each rank, `Trainer._run_epoch` over epochs. Two run parts of it
on real ranks under `scripts/bug_hunt_probe.py`: `Trainer.train` (with a short process-group
timeout, so a hang ends as an error) and `Net` wrapped by `wrap` (with TORCH_DISTRIBUTED_DEBUG=INFO).
Hints name the symptom a learner would see, not the fix.
"""

from __future__ import annotations

import os
from contextlib import contextmanager
from pathlib import Path
from types import ModuleType
from typing import Iterator
from unittest import mock

import torch
from torch.utils.data import DataLoader
from torch.utils.data.distributed import DistributedSampler

from ddp_lessons import launch, records, scripts, tracebacks
from ddp_lessons.checks.common import passed

PROBE = scripts.path("bug_hunt_probe.py")
"""The packaged script that runs one part of the student's script on real ranks."""


def load_script(path: str | os.PathLike) -> ModuleType:
    """The training script at `path` as a module, without running its main()."""
    return scripts.load_module(path, f"bug_hunt_{Path(path).stem}")


class _Model:
    """Stands in for a model on a GPU that this machine does not need to have."""

    def to(self, *args, **kwargs):
        return self

    cuda = to


@contextmanager
def _env(**values: int) -> Iterator[None]:
    with mock.patch.dict(os.environ, {key: str(value) for key, value in values.items()}):
        yield


def device_ids_per_node(path: str | os.PathLike) -> None:
    """On 2 nodes of 2 GPUs, `wrap` gives DDP each rank's GPU on its own node (none on CPU)."""
    script = load_script(path)
    for rank in range(4):
        local_rank = rank % 2
        calls = []
        recorder = lambda module, *args, **kwargs: calls.append(kwargs.get("device_ids", (args or [None])[0]))
        with mock.patch.object(script, "DDP", recorder), \
                _env(RANK=rank, LOCAL_RANK=local_rank, WORLD_SIZE=4, LOCAL_WORLD_SIZE=2):
            script.wrap(_Model(), torch.device("cuda", local_rank), rank, local_rank)
            script.wrap(_Model(), torch.device("cpu"), rank, local_rank)
        assert calls, "wrap() never called DDP(...)"
        gpu_ids = [i if isinstance(i, int) else torch.device(i).index for i in calls[0] or []]
        assert gpu_ids == [local_rank], (
            f"on node {rank // 2} of a 2-node job with 2 GPUs per node, rank {rank} (local rank "
            f"{local_rank}) asked DDP for GPU(s) {gpu_ids}: that node's GPUs are cuda:0 and cuda:1, "
            "and this rank's model sits on cuda:" + str(local_rank))
        assert calls[1] is None, f"on CPU, DDP got device_ids={calls[1]}: CPU models take none"
    passed("on 2 nodes x 2 GPUs every rank's DDP uses its own node's GPU; on CPU, no device_ids")


def _visits(loader: DataLoader) -> list[int]:
    return [index for indices, _, _ in loader for index in indices.tolist()]


def one_shard_per_rank(path: str | os.PathLike, world_size: int = 2) -> None:
    """`make_loader` builds, and its ranks visit disjoint shuffled shards that cover the data set."""
    script = load_script(path)
    dataset = script.Numbered()
    visits = []
    for rank in range(world_size):
        try:
            loader = script.make_loader(dataset, 8, rank, world_size)
        except ValueError as error:
            raise AssertionError(f"building rank {rank}'s DataLoader raised ValueError: {error}") from None
        visits.append(_visits(loader))
    size = len(dataset)
    for rank, seen in enumerate(visits):
        assert len(seen) < size, (
            f"rank {rank} visited {len(seen)} samples, the whole data set: with {world_size} ranks, "
            "every epoch trains on each sample several times and takes no less time than one process")
        assert seen != sorted(seen), f"rank {rank} visited its samples in index order {seen[:8]}...: no shuffle"
    assert not set(visits[0]) & set(visits[1]), \
        f"ranks 0 and 1 both visited samples {sorted(set(visits[0]) & set(visits[1]))[:8]}..."
    assert sorted(sum(visits, [])) == list(range(size)), "together the ranks do not cover the data set"
    passed(f"{world_size} ranks visit disjoint, shuffled shards of {len(visits[0])} samples covering all {size}")


def new_order_each_epoch(path: str | os.PathLike, epochs: int = 3) -> None:
    """`Trainer._run_epoch` visits each rank's shard in a new order every epoch."""
    script = load_script(path)
    dataset = script.Numbered()
    for rank in range(2):
        loader = DataLoader(dataset, batch_size=8, sampler=DistributedSampler(dataset, 2, rank, seed=0))
        model = torch.nn.Linear(4, 1)
        trainer = script.Trainer(model, loader, torch.optim.SGD(model.parameters(), lr=0.01),
                                 torch.device("cpu"), None, rank)
        orders = [trainer._run_epoch(epoch) for epoch in range(epochs)]
        assert not all(order == orders[0] for order in orders), (
            f"rank {rank} visited its shard in the same order in all {epochs} epochs "
            f"(each began {orders[0][:6]}...): the shuffle happens once, not every epoch")
    passed(f"each rank visits its shard in a new order in each of {epochs} epochs")


def _where(result, path) -> str:
    """One line per rank: where it stopped (traceback or live stack) and its last line of output."""
    stopped = tracebacks.where_ranks_failed(result, path) or getattr(result, "where", {})
    return "; ".join(f"rank {rank} {stopped.get(rank, '(no traceback)')}" for rank in range(result.world_size))


def ranks_stay_in_step(path: str | os.PathLike, timeout: float = 90) -> None:
    """`Trainer.train` runs 3 epochs on 2 real ranks without any rank waiting for the other."""
    try:
        run = launch.run_torchrun(PROBE, 2, args=[str(path), "--part", "train"], timeout=timeout,
                                  run_dir=records.new_run_dir("10_probe_train"))
    except (launch.RankFailedError, launch.RunTimeoutError) as error:
        hung = "Timed out" in str(error) or isinstance(error, launch.RunTimeoutError)
        assert not hung, ("the job hung: a rank waited for the other in a collective for 10 s and gave "
                          f"up. Where each rank waited: {_where(error.result, path)}")
        raise AssertionError(f"Trainer.train failed: {str(error).splitlines()[0]}") from None
    rows = records.load(run.run_dir, "probe-train")
    assert [row["epochs"] for row in rows] == [3, 3], f"expected 3 epochs on both ranks, got {rows}"
    passed("both ranks trained 3 epochs with a checkpoint after each, neither waiting for the other")


def every_parameter_gets_a_gradient(path: str | os.PathLike, timeout: float = 90) -> None:
    """`Net`, wrapped by `wrap`, trains 3 steps under DDP on 2 real ranks."""
    try:
        launch.run_torchrun(PROBE, 2, args=[str(path), "--part", "model"], timeout=timeout,
                            env={"TORCH_DISTRIBUTED_DEBUG": "INFO"},
                            run_dir=records.new_run_dir("10_probe_model"))
    except launch.RankFailedError as error:
        output = error.result.output(error.ranks[0])
        names = next((line.split(":", 1)[1].strip() for line in output.splitlines()
                      if "Parameters which did not receive grad" in line), "")
        assert "Expected to have finished reduction" not in output, (
            "the second training step failed with DDP's 'Expected to have finished reduction in the "
            f"prior iteration before starting a new one': parameters without a gradient: {names}")
        raise AssertionError(f"training Net failed: {str(error).splitlines()[0]}") from None
    passed("Net trained 3 steps under DDP: every parameter got a gradient in every step")
