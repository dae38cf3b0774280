"""Checks of exercise 11: exact distributed accuracy for any data-set size and world size; batch/lr arithmetic.

How `distributed_accuracy` tries many world sizes cheaply on 2 cores: one torchrun launch costs
seconds, so one per world size would be far too slow. It runs the student's ``evaluate`` instead

* in this process, for many (data-set size, world size) pairs, on `ThreadRanks`: W threads, one per
  rank, with ``torch.distributed``'s rank queries and collectives (all_reduce, all_gather,
  all_gather_object, broadcast, barrier) replaced for the duration by a shim whose collectives
  meet at a `threading.Barrier`. It has real collective semantics: every rank must call the same
  collectives the same number of times, or the others wait (the check reports that instead of
  hanging), and each rank gets the combined result;
* and once on a real 2-rank gloo job (`real_distributed_accuracy`, through the packaged script
  ``scripts/check_evaluate.py``), so the function also works with a real process group.
"""

from __future__ import annotations

import collections
import copy
import math
import os
import threading
from pathlib import Path
from typing import Any, Callable, Sequence
from unittest import mock

import torch
import torch.distributed as dist
from torch.utils.data import TensorDataset

from ddp_lessons import launch, records
from ddp_lessons.scripts import check_evaluate
from ddp_lessons.scripts.check_evaluate import REAL_SIZES, load_evaluate, make_case
from ddp_lessons.checks.common import close, passed, ranks_are, recorded, written
from ddp_lessons.i18n import tr

CASES = [(1, 2), (3, 4), (2, 5), (7, 3), (10, 4), (64, 4), (33, 8), (101, 3)]
"""(data-set size, world size) pairs tried on thread ranks: tiny, smaller than W, divisible, not."""
RUNNER = check_evaluate.__file__
COLLECTIVE_TIMEOUT = 10.0


def single_process_accuracy(model: torch.nn.Module, dataset: TensorDataset) -> float:
    """The accuracy one process computes: right predictions / samples, each sample once."""
    x, y = dataset.tensors
    with torch.no_grad():
        return (model(x).argmax(1) == y).sum().item() / len(y)


class RankWaitedError(RuntimeError):
    """A thread rank waited in a collective that the other ranks never reached."""


class ThreadRanks:
    """W ranks as W threads of this process; `torch.distributed` collectives patched to meet in memory."""

    def __init__(self, world: int, timeout: float | None = None):
        self.world = world
        self.timeout = COLLECTIVE_TIMEOUT if timeout is None else timeout  # read when called
        self.barrier = threading.Barrier(world, timeout=self.timeout)
        self.slots: list[Any] = [None] * world
        self.local = threading.local()
        self.calls = [0] * world

    def rank(self, group=None) -> int:
        return self.local.rank

    def world_size(self, group=None) -> int:
        return self.world

    def _exchange(self, value: Any) -> list[Any]:
        """Every rank puts in `value`, waits for all, and gets everyone's values, by rank."""
        rank = self.rank()
        self.calls[rank] += 1
        try:
            self.slots[rank] = value
            self.barrier.wait()
            values = list(self.slots)
            self.barrier.wait()
        except threading.BrokenBarrierError:
            raise RankWaitedError(tr("rank {rank} waited in its collective call number {call}", rank=rank,
                                     call=self.calls[rank])) from None
        return values

    def all_reduce(self, tensor, op=dist.ReduceOp.SUM, group=None, async_op=False):
        stacked = torch.stack([t.to(tensor.device) for t in self._exchange(tensor.detach().clone())])
        reduce = {dist.ReduceOp.SUM: lambda s: s.sum(0), dist.ReduceOp.AVG: lambda s: s.sum(0) / self.world,
                  dist.ReduceOp.MAX: lambda s: s.max(0).values, dist.ReduceOp.MIN: lambda s: s.min(0).values,
                  dist.ReduceOp.PRODUCT: lambda s: s.prod(0)}
        chosen = next((fn for key, fn in reduce.items() if op == key), None)
        if chosen is None:
            raise NotImplementedError(tr("the check's thread ranks do not support {op}", op=op))
        tensor.copy_(chosen(stacked).to(tensor.dtype))

    def all_gather(self, tensor_list, tensor, group=None, async_op=False):
        for target, value in zip(tensor_list, self._exchange(tensor.detach().clone())):
            target.copy_(value)

    def all_gather_object(self, object_list, obj, group=None):
        object_list[:] = [copy.deepcopy(value) for value in self._exchange(copy.deepcopy(obj))]

    def broadcast(self, tensor, src=0, group=None, async_op=False):
        tensor.copy_(self._exchange(tensor.detach().clone())[src])

    def broadcast_object_list(self, object_list, src=0, group=None, device=None):
        object_list[:] = copy.deepcopy(self._exchange(list(object_list))[src])

    def barrier_call(self, group=None, async_op=False, device_ids=None):
        self._exchange(None)

    def run(self, fn: Callable[[], Any]) -> list[Any]:
        """Call `fn()` once on each of the W thread ranks; return each rank's result (or exception)."""
        results: list[Any] = [None] * self.world

        def one(rank: int) -> None:
            self.local.rank = rank
            try:
                results[rank] = fn()
            except BaseException as error:  # noqa: BLE001 - reported per rank by the caller
                results[rank] = error
                self.barrier.abort()  # the other ranks must not wait for this one

        patches = {"get_rank": self.rank, "get_world_size": self.world_size, "is_initialized": lambda: True,
                   "is_available": lambda: True, "all_reduce": self.all_reduce, "all_gather": self.all_gather,
                   "all_gather_object": self.all_gather_object, "broadcast": self.broadcast,
                   "broadcast_object_list": self.broadcast_object_list, "barrier": self.barrier_call}
        with mock.patch.multiple(dist, **patches):
            threads = [threading.Thread(target=one, args=(rank,), daemon=True) for rank in range(self.world)]
            for thread in threads:
                thread.start()
            for thread in threads:
                thread.join(self.timeout * 3)
        return results


class SampleCounter(torch.nn.Module):
    """Wraps the check's model: counts, per thread rank, which samples of `dataset` pass through it
    (a sample is recognised by its input values), whatever way the student reads the data set."""

    def __init__(self, model: torch.nn.Module, dataset: TensorDataset, ranks: "ThreadRanks"):
        super().__init__()
        self.model, self.ranks = model, ranks
        self.index = {tuple(row.tolist()): i for i, row in enumerate(dataset.tensors[0])}
        self.seen = [collections.Counter() for _ in range(ranks.world)]

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        counts = self.seen[self.ranks.rank()]
        for row in x.detach().reshape(-1, x.shape[-1]).tolist():
            if tuple(row) in self.index:
                counts[self.index[tuple(row)]] += 1
        return self.model(x)


def _coverage_hint(counter: SampleCounter, size: int, world: int) -> str | None:
    """Why the ranks' evaluations do not split the data set into shares, or None when they do."""
    share = -(-size // world)  # ceil(N / W): a rank's share, padding included
    missed = sorted(set(range(size)) - set().union(*counter.seen))
    if missed:
        return tr("samples {missed}{more} were never evaluated by any rank, yet the accuracy came out right",
                  missed=missed[:6], more="..." if len(missed) > 6 else "")
    for rank, counts in enumerate(counter.seen):
        evaluated = sum(counts.values())
        if evaluated > share:
            whole = tr(" (the whole data set)") if set(counts) == set(range(size)) else ""
            return tr("rank {rank} evaluated {evaluated} samples{whole}, more than its share of {size} samples "
                      "on {world} ranks, {share}: the right number at {world} times the work. Give each rank "
                      "its own shard, range(rank, N, W), and combine the counts",
                      rank=rank, evaluated=evaluated, whole=whole, size=size, world=world, share=share)
    return None


def _accuracy_hint(got: float, size: int, world: int, model, dataset) -> str:
    """What a wrong accuracy most likely came from."""
    x, y = dataset.tensors
    with torch.no_grad():
        right = (model(x).argmax(1) == y).tolist()
    padded_total = -(-size // world) * world
    padded = [right[i % size] for i in range(padded_total)]
    if close(got, sum(padded) / len(padded)):
        return tr("it equals the accuracy over DistributedSampler's padded shards: padding repeats "
                  "{repeated} sample(s), counted twice. Give each rank range(rank, N, W), "
                  "without padding, or de-duplicate gathered (index, result) pairs", repeated=padded_total - size)
    kept = (size // world) * world
    if kept and close(got, sum(right[:kept]) / kept):
        return tr("it equals the accuracy with drop_last=True: the last samples were never counted")
    shards = [right[r::world] for r in range(world)]
    means = [sum(s) / len(s) for s in shards if s]
    if close(got, sum(means) / len(means)):
        return tr("it is the mean of the ranks' accuracies, which over-weights small shards: sum the "
                  "correct and the seen counts over the ranks (all_reduce), then divide")
    if close(got, 100 * sum(right) / size):
        return tr("that is a percentage: return a fraction between 0 and 1")
    return tr("count right predictions and samples on each rank, all-reduce both sums, then divide")


@recorded("11")
def distributed_accuracy(script: str | os.PathLike, cases: Sequence[tuple[int, int]] = CASES) -> None:
    """`evaluate` in `script` returns the single-process accuracy on every rank, for every (size, world)."""
    evaluate = load_evaluate(script)
    for size, world in cases:
        model, dataset = make_case(size)
        expected = single_process_accuracy(model, dataset)
        ranks = ThreadRanks(world)
        counter = SampleCounter(model, dataset, ranks)
        results = ranks.run(lambda: evaluate(counter, dataset))
        errors = {rank: r for rank, r in enumerate(results) if isinstance(r, BaseException)}
        waited = {rank: e for rank, e in errors.items() if isinstance(e, RankWaitedError)}
        failed = {rank: e for rank, e in errors.items() if not isinstance(e, RankWaitedError)}
        if failed:
            rank, error = next(iter(failed.items()))
            if isinstance(error, NotImplementedError) and "thread ranks" not in str(error):
                raise AssertionError(tr("evaluate() still raises NotImplementedError: write it first"))
            if isinstance(error, ZeroDivisionError) or "division by zero" in str(error):
                raise AssertionError(tr(
                    "{size} samples on {world} ranks: rank {rank} divided by zero. A rank may have "
                    "no samples at all (N < W): divide the all-reduced sums, not a rank's own counts",
                    size=size, world=world, rank=rank))
            raise AssertionError(tr("{size} samples on {world} ranks: rank {rank} raised {error_type}: {error}",
                                    size=size, world=world, rank=rank, error_type=type(error).__name__,
                                    error=error)) from error
        assert not waited, tr(
            "{size} samples on {world} ranks: the ranks called collectives a different number of "
            "times ({calls}), so some waited forever. With uneven shards ranks have different "
            "numbers of batches: sum locally, then all-reduce once after the loop",
            size=size, world=world, calls=ranks.calls)
        assert all(isinstance(r, (int, float)) or (torch.is_tensor(r) and r.numel() == 1) for r in results), tr(
            "evaluate() should return the accuracy as a number, got {got!r}", got=results[0])
        results = [float(r) for r in results]
        assert not all(math.isnan(r) for r in results), tr(
            "{size} samples on {world} ranks: the ranks returned {results}, a 0 / 0. With fewer "
            "samples than ranks a rank may have none, and drop_last=True leaves all without any: "
            "shard with range(rank, N, W) and divide the all-reduced sums", size=size, world=world, results=results)
        assert all(close(r, results[0]) and not math.isnan(r) for r in results), tr(
            "{size} samples on {world} ranks: the ranks returned different accuracies {results}: "
            "every rank must return the global accuracy (all-reduce the counts)",
            size=size, world=world, results=results)
        assert close(results[0], expected), tr(
            "{size} samples on {world} ranks: expected the single-process accuracy {expected:.6f}, "
            "got {got:.6f}: {hint}", size=size, world=world, expected=expected, got=results[0],
            hint=_accuracy_hint(results[0], size, world, model, dataset))
        coverage = _coverage_hint(counter, size, world)
        assert coverage is None, tr("{size} samples on {world} ranks: {hint}", size=size, world=world,
                                    hint=coverage)
    passed(tr("exact single-process accuracy on every rank for {pairs} (size, world) pairs, "
              "sizes {smallest}-{largest}, worlds up to {worlds}, each rank evaluating its own share",
              pairs=len(cases), smallest=min(s for s, _ in cases), largest=max(s for s, _ in cases),
              worlds=max(w for _, w in cases)))


@recorded("11")
def real_distributed_accuracy(script: str | os.PathLike, nproc: int = 2, timeout: float = 90) -> None:
    """`evaluate` in `script` gives the single-process accuracy on a real `nproc`-rank gloo job."""
    written(script)
    try:
        run = launch.run_torchrun(RUNNER, nproc, args=[str(Path(script).resolve())], timeout=timeout,
                                  backend="gloo", run_dir=records.new_run_dir("11_check_evaluate"))
    except launch.RankFailedError as error:
        text = str(error)
        if "NotImplementedError" in text:
            raise AssertionError(tr("evaluate() still raises NotImplementedError: write it first")) from None
        raise AssertionError(tr("evaluate() failed on a real {nproc}-rank job: {error}",
                                nproc=nproc, error=text)) from None
    except launch.RunTimeoutError:
        raise AssertionError(tr("the real {nproc}-rank job hung: ranks called different collectives "
                                "(all-reduce once, after the loop, on every rank)", nproc=nproc)) from None
    rows = records.load(run.run_dir, "evaluate")
    ranks_are(rows, nproc, "evaluate")
    for size in REAL_SIZES:
        expected = single_process_accuracy(*make_case(size))
        for row in rows:
            got = row["accuracy"][str(size)]
            assert close(got, expected), tr(
                "real {nproc}-rank job, {size} samples: rank {rank} returned {got:.6f}, expected {expected:.6f}",
                nproc=nproc, size=size, rank=row["rank"], got=got, expected=expected)
    passed(tr("the same on a real {nproc}-rank gloo job for sizes {sizes}", nproc=nproc, sizes=REAL_SIZES))


def _arithmetic_hint(name: str, got: Any, expected: Any, args: tuple) -> str:
    if name == "global_batch":
        batch, accumulate, world = args
        if close(got, batch * world) and accumulate != 1:
            return tr("the accumulation steps multiply the global batch too")
        if close(got, batch * accumulate) and world != 1:
            return tr("multiply by the world size: every rank contributes its batch to each step")
        return tr("global batch = batch per rank x accumulation steps x world size")
    if name == "scaled_lr":
        base_lr, base_batch, new_batch = args
        if close(got, base_lr * base_batch / new_batch):
            return tr("the ratio is upside down: a larger global batch gets a larger learning rate")
        if close(got, base_lr * (new_batch / base_batch) ** 0.5):
            return tr("that is square-root scaling; the linear rule multiplies by new_batch / base_batch")
        return tr("linear scaling: lr = base_lr x new_global_batch / base_batch")
    batch_target, batch, world = args
    return tr("accumulation steps = global batch / (batch per rank x world size) = "
              "{target} / ({batch} x {world}); raise ValueError when it does not divide",
              target=batch_target, batch=batch, world=world)


@recorded("11")
def batch_arithmetic(global_batch: Callable, scaled_lr: Callable, accumulation_steps: Callable) -> None:
    """Global batch, linearly scaled learning rate, and accumulation steps for a few setups."""
    for args, expected in [((32, 1, 4), 128), ((16, 4, 8), 512), ((64, 2, 1), 128), ((8, 3, 2), 48)]:
        got = global_batch(*args)
        assert close(got, expected), tr("global_batch{args} = {got}, expected {expected}: {hint}", args=args,
                                        got=got, expected=expected,
                                        hint=_arithmetic_hint("global_batch", got, expected, args))
    for args, expected in [((0.1, 64, 512), 0.8), ((0.02, 32, 128), 0.08), ((0.1, 256, 128), 0.05)]:
        got = scaled_lr(*args)
        assert close(got, expected), tr("scaled_lr{args} = {got}, expected {expected}: {hint}", args=args,
                                        got=got, expected=expected,
                                        hint=_arithmetic_hint("scaled_lr", got, expected, args))
    for args, expected in [((128, 32, 2), 2), ((512, 16, 8), 4), ((128, 32, 4), 1)]:
        got = accumulation_steps(*args)
        assert got == expected, tr("accumulation_steps{args} = {got}, expected {expected}: {hint}", args=args,
                                   got=got, expected=expected,
                                   hint=_arithmetic_hint("accumulation_steps", got, expected, args))
    try:
        got = accumulation_steps(128, 32, 3)
    except ValueError:
        pass
    else:
        raise AssertionError(tr("accumulation_steps(128, 32, 3) returned {got}: 3 ranks x 32 cannot make "
                                "a global batch of 128 with whole micro-batches; raise ValueError", got=got))
    passed(tr("global batch, linear learning-rate scaling and accumulation steps are right"))
