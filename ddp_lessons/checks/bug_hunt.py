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
from typing import Any, Iterator
from unittest import mock

import torch
from torch.utils.data import DataLoader
from torch.utils.data.distributed import DistributedSampler

from ddp_lessons import launch, records, scripts, tracebacks
from ddp_lessons.checks.common import expect, fail, passed, recorded
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


def _ddp_options(script: ModuleType) -> dict[str, Any]:
    """The keyword arguments `wrap` passes to DDP(...) for the script's `Net`, on CPU and on a simulated GPU
    (merged: an option passed on either path counts)."""
    options: dict[str, Any] = {}
    recorder = lambda module, *args, **kwargs: options.update(kwargs)  # noqa: E731
    with mock.patch.object(script, "DDP", recorder), _env(RANK=0, LOCAL_RANK=0, WORLD_SIZE=2, LOCAL_WORLD_SIZE=2):
        script.wrap(_Model(), torch.device("cpu"), 0, 0)
        with _simulated_gpus(2, 0), contextlib.suppress(Exception):  # the GPU path's device_ids: another check
            script.wrap(_Model(), torch.device("cuda", 0), 0, 0)
    return options


def without_gradient(model: torch.nn.Module) -> list[str]:
    """The names of `model`'s parameters that one forward and backward pass on a batch leaves without a gradient."""
    torch.manual_seed(0)
    model(torch.randn(8, 4)).sum().backward()
    return sorted(name for name, parameter in model.named_parameters() if parameter.grad is None)


def unused_parameters_verdict(unused: list[str], options: dict[str, Any]) -> None:
    """Fail when `wrap`'s DDP `options` hide `unused` parameters of Net (find_unused_parameters=True or
    static_graph=True), or search for unused parameters that Net does not have; pass otherwise."""
    names = ", ".join(unused)
    hiding = [option for option in ("find_unused_parameters", "static_graph") if options.get(option)]
    if unused and hiding:
        fail("unused-hidden",
             tr("DDP no longer stops at the second step, yet Net's parameters {names} still get no gradient in "
                "any step: wrap() passes {option}=True, so DDP works around them after every forward pass "
                "while they stay as initialised, and are saved and all-reduced for nothing",
                names=names, option=hiding[0]),
             tr("delete what forward() never uses ({names}) from Net, and call DDP(...) without {option}",
                names=names, option=hiding[0]))
    if options.get("find_unused_parameters"):
        fail("find-unused",
             tr("wrap() passes find_unused_parameters=True, yet every parameter of Net gets a gradient: DDP then "
                "walks the autograd graph after every forward pass looking for parameters it will not find "
                "(torch warns about it at the first step), a cost in every step of every run"),
             tr("call DDP(...) without find_unused_parameters (its default is False): it is for models whose "
                "forward really skips parameters in some steps"))


@recorded("10")
def every_parameter_gets_a_gradient(path: str | os.PathLike, timeout: float = 90) -> None:
    """`Net` gets a gradient for every parameter without DDP options that hide unused ones, and, wrapped by
    `wrap`, trains 3 steps under DDP on 2 real ranks."""
    script = load_script(path)
    unused_parameters_verdict(without_gradient(script.Net()), _ddp_options(script))
    try:
        launch.run_torchrun(PROBE, 2, args=[str(path), "--part", "model"], timeout=timeout,
                            env={"TORCH_DISTRIBUTED_DEBUG": "INFO"},
                            run_dir=records.new_run_dir("10_probe_model"))
    except launch.RankFailedError as error:
        output = error.result.output(error.ranks[0])
        names = next((line.split(":", 1)[1].strip() for line in output.splitlines()
                      if "Parameters which did not receive grad" in line), "")
        if "Expected to have finished reduction" in output:
            fail("unused-parameter",
                 tr("the second training step failed with DDP's 'Expected to have finished reduction in the "
                    "prior iteration before starting a new one': parameters without a gradient: {names}",
                    names=names),
                 tr("every parameter DDP wraps must get a gradient in every step: delete from Net what "
                    "forward() never uses ({names})", names=names))
        raise AssertionError(tr("training Net failed: {error}", error=str(error).splitlines()[0])) from None
    passed(tr("Net trained 3 steps under DDP: every parameter got a gradient in every step"))


SYMPTOMS = {"Net": "d", "wrap": "a", "make_loader": "f", "Trainer._run_epoch": "c", "Trainer.train": "g"}
"""For each place of a planted bug, the letter of what it does on a real cluster of GPU nodes (the exercise
lists the letters (a) to (h): (b), (e) and (h) are what other mistakes do, `_decoy`)."""


def _decoy(letter: str) -> str | None:
    """What mistake, not planted here, the decoy `letter` is the symptom of."""
    return {"b": tr("a DataLoader without the sampler"),
            "e": tr("no barrier at all between rank 0's save and the other ranks' load"),
            "h": tr("model.to(\"cuda\") without torch.cuda.set_device(local_rank)")}.get(letter)


def _what_it_does(place: str) -> str:
    """What the bug at `place` does, in one line (the fix of a wrong symptom)."""
    return {
        "Net": tr("a parameter that forward() never uses gets no gradient, so DDP's reducer waits for it and the "
                  "second step fails with 'Expected to have finished reduction in the prior iteration'"),
        "wrap": tr("device_ids=[rank] names GPU RANK, which a node of the second machine does not have (invalid "
                   "device ordinal), or another rank's GPU"),
        "make_loader": tr("the DataLoader refuses to be built: shuffle=True next to a sampler raises ValueError "
                          "at once, on every rank"),
        "Trainer._run_epoch": tr("without set_epoch every epoch visits the rank's shard in the same order: "
                                 "nothing fails, the model just sees the same sequence of batches every epoch"),
        "Trainer.train": tr("a barrier that only rank 0 reaches leaves rank 0 waiting at the first checkpoint "
                            "while the others go on, until the process group's timeout ends the job"),
    }[place]


@recorded("10")
def bug_symptoms(answers: dict[str, str]) -> None:
    """`answers` maps each place of a planted bug to the letter of the symptom it shows on a cluster."""
    given = {place: str(answers.get(place, "")).strip().lower() for place in SYMPTOMS}
    missing = [place for place, letter in given.items() if len(letter) != 1 or letter not in "abcdefgh"]
    expect(not missing, "unanswered",
           tr("no letter (a to h) for {places}", places=", ".join(missing)),
           tr("write one letter per place, e.g. SYMPTOMS[\"{place}\"] = \"b\"", place=(missing or ["Net"])[0]))
    for place, right in SYMPTOMS.items():
        got = given[place]
        if got == right:
            continue
        other = next((other for other, letter in SYMPTOMS.items() if letter == got), None)
        fail(f"symptom-{place}",
             tr("({got}) is not what the bug in {place} does: ({got}) is what the bug in {other} does",
                got=got, place=place, other=other) if other else
             tr("({got}) is not what the bug in {place} does: ({got}) is what {cause} does",
                got=got, place=place, cause=_decoy(got)),
             _what_it_does(place))
    passed(tr("each of the 5 bugs matched with what it does on a cluster"))
