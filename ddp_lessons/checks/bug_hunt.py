"""Checks of exercise 10 (bug hunt): each catches one planted bug, on CPU, apart from the others.

Three checks call the script's functions in this process (`load_script`): `wrap` on simulated
multi-node GPU layouts, `make_loader` for each rank, `Trainer.train` over epochs (its barrier
replaced). Two run parts of it on real ranks under `scripts/bug_hunt_probe.py`: `Trainer.train`
(with a short process-group timeout, so a hang ends as an error, and a slow first checkpoint, so a
rank that does not wait for it is seen) and `Net` wrapped by `wrap` (with TORCH_DISTRIBUTED_DEBUG=INFO).
Hints name the symptom a learner would see, not the fix.
"""

from __future__ import annotations

import contextlib
import io
import os
import tempfile
from contextlib import contextmanager
from pathlib import Path
from types import ModuleType
from typing import Iterator
from unittest import mock

import torch
from torch.utils.data import DataLoader
from torch.utils.data.distributed import DistributedSampler

from ddp_lessons import launch, records, scripts, tracebacks
from ddp_lessons.checks.common import passed, recorded
from ddp_lessons.i18n import tr

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


LAYOUTS = [(2, 2), (2, 3), (3, 4)]
"""(nodes, GPUs per node) that `device_ids_per_node` simulates: a rule that fits one layout only fails another."""


@recorded("10")
def device_ids_per_node(path: str | os.PathLike) -> None:
    """On several multi-node GPU layouts, `wrap` gives DDP each rank's GPU on its own node (none on CPU)."""
    script = load_script(path)
    for nodes, gpus in LAYOUTS:
        for rank in range(nodes * gpus):
            local_rank = rank % gpus
            calls = []
            recorder = lambda module, *args, **kwargs: calls.append(kwargs.get("device_ids", (args or [None])[0]))
            with mock.patch.object(script, "DDP", recorder), \
                    _env(RANK=rank, LOCAL_RANK=local_rank, WORLD_SIZE=nodes * gpus, LOCAL_WORLD_SIZE=gpus), \
                    _simulated_gpus(gpus, local_rank):
                try:
                    script.wrap(_Model(), torch.device("cuda", local_rank), rank, local_rank)
                    script.wrap(_Model(), torch.device("cpu"), rank, local_rank)
                except Exception as error:  # noqa: BLE001 - reported as a hint
                    raise AssertionError(tr(
                        "wrap() raised {error_type}: {error}, on a simulated node with {gpus} GPUs (rank {rank}, "
                        "local rank {local_rank}, after setup() made cuda:{local_rank} current). The check runs "
                        "wrap() without real GPUs: take the GPU from `device` or `local_rank`",
                        error_type=type(error).__name__, error=error, gpus=gpus, rank=rank,
                        local_rank=local_rank)) from None
            assert calls, tr("wrap() never called DDP(...)")
            gpu_ids = [i if isinstance(i, int) else torch.device(i).index for i in calls[0] or []]
            assert gpu_ids == [local_rank], tr(
                "on node {node} of a {nodes}-node job with {gpus} GPUs per node, rank {rank} (local rank "
                "{local_rank}) asked DDP for GPU(s) {gpu_ids}: that node's GPUs are cuda:0 to cuda:{last}, "
                "and this rank's model sits on cuda:{local_rank}",
                node=rank // gpus, nodes=nodes, gpus=gpus, rank=rank, local_rank=local_rank, gpu_ids=gpu_ids,
                last=gpus - 1)
            assert calls[1] is None, tr("on CPU, DDP got device_ids={device_ids}: CPU models take none",
                                        device_ids=calls[1])
    layouts = ", ".join(tr("{nodes} nodes x {gpus} GPUs", nodes=n, gpus=g) for n, g in LAYOUTS)
    passed(tr("on {layouts}, every rank's DDP uses its own node's GPU; on CPU, no device_ids", layouts=layouts))


@contextmanager
def _simulated_gpus(count: int, current: int) -> Iterator[None]:
    """torch.cuda's device queries as on a node with `count` GPUs where setup() made `current` current."""
    with mock.patch("torch.cuda.device_count", return_value=count), \
            mock.patch("torch.cuda.current_device", return_value=current), \
            mock.patch("torch.cuda.is_available", return_value=True), mock.patch("torch.cuda.set_device"):
        yield


def _visits(loader: DataLoader) -> list[int]:
    return [index for indices, _, _ in loader for index in indices.tolist()]


@recorded("10")
def one_shard_per_rank(path: str | os.PathLike, world_size: int = 2) -> None:
    """`make_loader` builds, and its ranks visit disjoint shuffled shards that cover the data set."""
    script = load_script(path)
    dataset = script.Numbered()
    visits = []
    for rank in range(world_size):
        try:
            loader = script.make_loader(dataset, 8, rank, world_size)
        except ValueError as error:
            raise AssertionError(tr("building rank {rank}'s DataLoader raised ValueError: {error}",
                                    rank=rank, error=error)) from None
        visits.append(_visits(loader))
    size = len(dataset)
    for rank, seen in enumerate(visits):
        assert len(seen) < size, tr(
            "rank {rank} visited {count} samples, the whole data set: with {world_size} ranks, "
            "every epoch trains on each sample several times and takes no less time than one process",
            rank=rank, count=len(seen), world_size=world_size)
        assert seen != sorted(seen), tr("rank {rank} visited its samples in index order {first}...: no shuffle",
                                        rank=rank, first=seen[:8])
    assert not set(visits[0]) & set(visits[1]), tr("ranks 0 and 1 both visited samples {both}...",
                                                   both=sorted(set(visits[0]) & set(visits[1]))[:8])
    assert sorted(sum(visits, [])) == list(range(size)), tr("together the ranks do not cover the data set")
    passed(tr("{world_size} ranks visit disjoint, shuffled shards of {count} samples covering all {size}",
              world_size=world_size, count=len(visits[0]), size=size))


class _Wrapped(torch.nn.Module):
    """A plain model with a `.module`, as DDP has (the trainer checkpoints `model.module`)."""

    def __init__(self):
        super().__init__()
        self.module = torch.nn.Linear(4, 1)

    def forward(self, x):
        return self.module(x)


@recorded("10")
def new_order_each_epoch(path: str | os.PathLike, epochs: int = 3) -> None:
    """`Trainer.train` visits each rank's shard in a new order every epoch (wherever set_epoch is called)."""
    script = load_script(path)
    dataset = script.Numbered()
    with tempfile.TemporaryDirectory() as folder, mock.patch("torch.distributed.barrier"), \
            contextlib.redirect_stdout(io.StringIO()):  # no process group here: the barrier is the probe's part
        for rank in range(2):
            loader = DataLoader(dataset, batch_size=8, sampler=DistributedSampler(dataset, 2, rank, seed=0))
            model = _Wrapped()
            trainer = script.Trainer(model, loader, torch.optim.SGD(model.parameters(), lr=0.01),
                                     torch.device("cpu"), Path(folder) / "checkpoint.pt", rank)
            orders = trainer.train(epochs)
            assert len(orders) == epochs, tr("Trainer.train({epochs}) returned {got} epochs of visits",
                                             epochs=epochs, got=len(orders))
            assert not all(order == orders[0] for order in orders), tr(
                "rank {rank} visited its shard in the same order in all {epochs} epochs "
                "(each began {first}...): the shuffle happens once, not every epoch",
                rank=rank, epochs=epochs, first=orders[0][:6])
    passed(tr("each rank visits its shard in a new order in each of {epochs} epochs of Trainer.train", epochs=epochs))


def _where(result, path) -> str:
    """One line per rank: where it stopped (traceback or live stack) and its last line of output."""
    stopped = tracebacks.where_ranks_failed(result, path) or getattr(result, "where", {})
    return "; ".join(f"rank {rank} {stopped.get(rank, tr('(no traceback)'))}" for rank in range(result.world_size))


@recorded("10")
def ranks_stay_in_step(path: str | os.PathLike, timeout: float = 90) -> None:
    """`Trainer.train` runs 3 epochs on 2 real ranks without any rank waiting for the other."""
    try:
        run = launch.run_torchrun(PROBE, 2, args=[str(path), "--part", "train"], timeout=timeout,
                                  run_dir=records.new_run_dir("10_probe_train"))
    except (launch.RankFailedError, launch.RunTimeoutError) as error:
        hung = "Timed out" in str(error) or isinstance(error, launch.RunTimeoutError)
        assert not hung, tr("the job hung: a rank waited for the other in a collective for 10 s and gave "
                            "up. Where each rank waited: {where}", where=_where(error.result, path))
        raise AssertionError(tr("Trainer.train failed: {error}", error=str(error).splitlines()[0])) from None
    rows = records.load(run.run_dir, "probe-train")
    assert [row["epochs"] for row in rows] == [3, 3], tr("expected 3 epochs on both ranks, got {rows}", rows=rows)
    for row in rows:
        assert not row["started_before_checkpoint"], tr(
            "rank {rank} began epoch {epoch} while rank 0 was still "
            "writing the previous epoch's checkpoint (the check makes that save slow, as on a network file "
            "system): a rank that loads it then, or a job stopped then, finds it incomplete. Every rank must "
            "wait until rank 0's checkpoint is complete before it goes on",
            rank=row["rank"], epoch=row["started_before_checkpoint"][0])
    passed(tr("both ranks trained 3 epochs with a checkpoint after each, neither waiting for the other, "
              "and neither going on before the checkpoint was complete"))


@recorded("10")
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
        assert "Expected to have finished reduction" not in output, tr(
            "the second training step failed with DDP's 'Expected to have finished reduction in the "
            "prior iteration before starting a new one': parameters without a gradient: {names}", names=names)
        raise AssertionError(tr("training Net failed: {error}", error=str(error).splitlines()[0])) from None
    passed(tr("Net trained 3 steps under DDP: every parameter got a gradient in every step"))
