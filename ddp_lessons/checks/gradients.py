"""Checks of exercises 1 and 4: each replica's gradient, their average, DDP's gradient, and the GPU a rank's DDP
is given on simulated multi-node jobs."""

from __future__ import annotations

import os
from contextlib import ExitStack
from typing import Callable
from unittest import mock

import torch
import torch.distributed as dist
from torch import nn
from torch.nn import functional as F

from ddp_lessons import scripts
from ddp_lessons.checks.common import (Rows, close, difference, expect, factor, fail, passed, ranks_are, recorded,
                                       written)
from ddp_lessons.i18n import tr


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


@recorded("01")
def replica_gradients(student_fn: Callable) -> None:
    """Each replica's gradients are those of the mean loss on its own shard, nothing carried over."""
    for world in (2, 4):
        model, inputs, targets, shards = _replica_case(world)
        got = student_fn(model, shards)
        expected = [_gradient(model, x, y) for x, y in shards]
        assert len(got) == world, tr("return one list of gradients per shard: {world} shards, got {got}",
                                     world=world, got=len(got))
        for rank, (grads, wanted) in enumerate(zip(got, expected)):
            where = tr("{world} replicas, replica {rank}", world=world, rank=rank)
            assert len(grads) == len(wanted), tr("{where}: return one gradient per parameter ({expected}), "
                                                 "got {got}", where=where, expected=len(wanted), got=len(grads))
            if close(grads, wanted):
                continue
            assert not close(grads, [sum(g) for g in zip(*expected[:rank + 1])]), tr(
                "{where}: this gradient holds the earlier replicas' gradients too: backward() adds "
                "to .grad, so zero the gradients (model.zero_grad()) before each replica's backward", where=where)
            scale = factor(grads, wanted)
            assert scale is None, tr("{where}: your gradient is {scale:g}x the expected one: use the mean loss "
                                     "over the shard (F.mse_loss's default), not the sum", where=where, scale=scale)
            assert not close(grads, _gradient(model, inputs, targets)), tr(
                "{where}: this is the whole batch's gradient: replica r computes on shards[r] only", where=where)
            raise AssertionError(tr("{where}: expected the gradient of the mean loss on shards[{rank}]; "
                                    "max |difference| {difference:.3g}", where=where, rank=rank,
                                    difference=difference(grads, wanted)))
    passed(tr("each replica's gradient is the mean-loss gradient of its own shard"))


@recorded("01")
def averaged_gradients(student_fn: Callable) -> None:
    """Averaging the replicas' gradients gives one process's gradient on the whole batch."""
    for world in (2, 4):
        model, inputs, targets, shards = _replica_case(world)
        per_replica = [_gradient(model, x, y) for x, y in shards]
        got = student_fn(per_replica)
        whole_batch = _gradient(model, inputs, targets)
        assert len(got) == len(whole_batch), tr("return one averaged gradient per parameter ({expected}), "
                                                "got {got}", expected=len(whole_batch), got=len(got))
        if close(got, whole_batch):
            continue
        assert not close(got, [world * g for g in whole_batch]), tr(
            "{world} replicas: you summed the replicas' gradients; DDP's all-reduce averages them "
            "(the sum divided by the world size)", world=world)
        assert not close(got, per_replica[0]), tr(
            "{world} replicas: that is replica 0's gradient alone: average over all replicas", world=world)
        raise AssertionError(tr("{world} replicas: the average of the replicas' gradients should equal the "
                                "whole batch's; max |difference| {difference:.3g}", world=world,
                                difference=difference(got, whole_batch)))
    passed(tr("the mean of the replicas' gradients is the whole batch's gradient (max |difference| "
              "{difference:.1e})", difference=difference(got, whole_batch)))


@recorded("04")
def ddp_gradients(rows: Rows, nproc: int = 2) -> None:
    """Ranks start from rank 0's weights and end backward() with one gradient: the whole batch's."""
    ranks_are(rows, nproc, "gradients")
    first = rows[0]
    for row in rows[1:]:
        expect(close(row["parameters"], first["parameters"]), "not-wrapped",
               tr("rank {rank}'s weights differ from rank 0's after forward_backward (each rank built its model "
                  "with its own seed, and nothing made them equal)", rank=row["rank"]),
               tr("wrap the model: DDP(model, ...) copies rank 0's weights to every rank when it is built"))
        expect(close(row["gradients"], first["gradients"]), "not-through-wrapper",
               tr("rank {rank}'s gradients differ from rank 0's: each rank kept the gradient of its own shard",
                  rank=row["rank"]),
               tr("run the forward pass through the DDP wrapper (ddp_model(inputs)): only then does backward() "
                  "all-reduce the gradients"))
    reference = first["single_process_gradients"]
    scale = factor(first["gradients"], reference)
    if scale is not None:
        fail("summed-loss", tr("the gradients are {scale:g}x one process's gradient on the whole batch", scale=scale),
             tr("use the mean loss on each rank: DDP averages across ranks, so a summed loss scales the gradient "
                "by the rank's batch size"))
    expect(close(first["gradients"], reference), "other-gradient",
           tr("every rank holds the same gradient, but not the whole batch's: max |difference| {difference:.3g}",
              difference=difference(first["gradients"], reference)),
           tr("compute the mean squared error of the wrapper's output on this rank's inputs and targets, then call "
              "backward() once"))
    passed(tr("all {nproc} ranks hold one process's gradient on the whole batch (max |difference| {difference:.1e})",
              nproc=nproc, difference=difference(first["gradients"], reference)))


LAYOUTS = [(2, 2), (2, 3)]
"""(nodes, ranks and GPUs per node) of the jobs `device_ids_on_every_node` simulates."""


class _Stop(Exception):
    """Raised by the stand-in for DDP: the check has the arguments it needs; nothing after the call runs."""


class _OnAnyDevice(nn.Linear):
    """A model that stays where it is when moved: it stands in for one on a GPU this machine need not have."""

    def to(self, *args, **kwargs):
        return self

    cuda = to


def _gpu_ids(device_ids) -> list | None:
    """DDP's `device_ids` as GPU numbers ([1] for [1], [torch.device('cuda:1')] or ['cuda:1']); None for none
    (an empty list included); what is no device at all is kept as it is (None in [None])."""
    if not device_ids:
        return None
    return [torch.device(i).index if isinstance(i, (str, torch.device)) else i for i in device_ids]


def ddp_device_ids(script: str | os.PathLike, nodes: int, ranks_per_node: int,
                   gpus_per_node: int | None = None) -> list[list[int] | None]:
    """For each rank of a simulated job of `nodes` nodes, each running `ranks_per_node` ranks with
    `gpus_per_node` GPUs (default: one per rank; 0: CPU ranks), the GPU numbers that `forward_backward` in
    `script` gives DDP as device_ids (None: no device_ids). It runs in this process: torch.distributed, the
    environment torchrun sets and torch.cuda's device queries answer as on that rank's node, and DDP is
    replaced by a stand-in that records its arguments and stops the function there."""
    written(script)
    module = scripts.load_module(script, "student_wrap")
    gpus = ranks_per_node if gpus_per_node is None else gpus_per_node
    world, got = nodes * ranks_per_node, []
    for rank in range(world):
        local_rank, calls = rank % ranks_per_node, []

        def stand_in(model, *args, **kwargs):
            calls.append(_gpu_ids(kwargs["device_ids"] if "device_ids" in kwargs else (args[0] if args else None)))
            raise _Stop

        device = torch.device("cuda", local_rank) if gpus else torch.device("cpu")
        inputs, targets = torch.randn(4, 4), torch.randn(4, 1)
        with ExitStack() as stack:
            stack.enter_context(mock.patch.dict(os.environ, {
                "RANK": str(rank), "LOCAL_RANK": str(local_rank), "WORLD_SIZE": str(world),
                "LOCAL_WORLD_SIZE": str(ranks_per_node), "GROUP_RANK": str(rank // ranks_per_node)}))
            for name, value in (("get_rank", rank), ("get_world_size", world), ("is_initialized", True)):
                stack.enter_context(mock.patch.object(dist, name, lambda *a, value=value, **k: value))
            for name, value in (("device_count", gpus), ("current_device", local_rank), ("is_available", gpus > 0)):
                stack.enter_context(mock.patch.object(torch.cuda, name, lambda *a, value=value, **k: value))
            stack.enter_context(mock.patch.object(torch.cuda, "set_device", lambda *a, **k: None))
            stack.enter_context(mock.patch.object(torch.nn.parallel, "DistributedDataParallel", stand_in))
            if hasattr(module, "DDP"):
                stack.enter_context(mock.patch.object(module, "DDP", stand_in))
            for name in ("to", "cuda"):  # tensors moved to the simulated GPU stay where they are
                stack.enter_context(mock.patch.object(torch.Tensor, name, lambda self, *a, **k: self))
            try:
                module.forward_backward(_OnAnyDevice(4, 1), device, inputs, targets)
            except _Stop:
                pass
            except Exception as error:  # noqa: BLE001 - reported as a hint
                fail("raised", tr("forward_backward raised {error_type}: {error}, on rank {rank} (LOCAL_RANK "
                                  "{local_rank}) of a simulated job with {placement}, before it called DDP",
                                  error_type=type(error).__name__, error=error, rank=rank, local_rank=local_rank,
                                  placement=_layout(nodes, ranks_per_node, gpus)),
                     tr("this check runs forward_backward without real GPUs, with DDP replaced: take the GPU from "
                        "`device` and let DDP do the rest"))
        if not calls:
            fail("no-ddp", tr("forward_backward never called DDP(...)"),
                 tr("wrap the model in DistributedDataParallel inside forward_backward"))
        got.append(calls[0])
    return got


def _layout(nodes: int, ranks: int, gpus: int) -> str:
    """'2 nodes, 3 ranks and 3 GPUs per node' or '1 node, 2 ranks per node and no GPU'."""
    if not gpus:
        return tr("{nodes} node(s), {ranks} ranks per node and no GPU", nodes=nodes, ranks=ranks)
    return tr("{nodes} nodes, {ranks} ranks and {gpus} GPUs per node", nodes=nodes, ranks=ranks, gpus=gpus)


@recorded("04")
def device_ids_on_every_node(script: str | os.PathLike) -> None:
    """On simulated jobs of several nodes, each rank's DDP gets the GPU of its own node that the rank computes
    on (its local rank), or no device_ids (DDP then uses the one device the model is on); on CPU ranks, no
    device_ids. No launch: a launch on one machine cannot tell a rank from a local rank."""
    for nodes, per_node in LAYOUTS:
        for rank, got in enumerate(ddp_device_ids(script, nodes, per_node)):
            local_rank, last = rank % per_node, per_node - 1
            if got in ([local_rank], None):
                continue
            where = tr("on a simulated job with {placement}, rank {rank} (LOCAL_RANK {local_rank}, its model on "
                       "cuda:{local_rank})", placement=_layout(nodes, per_node, per_node), rank=rank,
                       local_rank=local_rank)
            if got == [rank]:
                fail("global-rank", tr("{where} asked DDP for GPU {got}: its node's GPUs are cuda:0 to cuda:{last}. On "
                                       "one node a rank and its local rank are the same number, so a launch on one "
                                       "machine cannot show it", where=where, got=rank, last=last),
                     tr("every node numbers its GPUs from 0: give DDP the GPU this rank computes on, "
                        "device_ids=[device.index] (its LOCAL_RANK), not the global rank dist.get_rank(); or no "
                        "device_ids at all, and DDP uses the device the model is on"))
            fail("wrong-gpu", tr("{where} asked DDP for device_ids={got}", where=where, got=got),
                 tr("give DDP the one GPU this rank computes on, device_ids=[device.index], or no device_ids at "
                    "all"))
    for got in ddp_device_ids(script, 1, 2, gpus_per_node=0):
        expect(not got, "cpu-device-ids",
               tr("on CPU ranks, forward_backward gave DDP device_ids={got}: DDP refuses device_ids for a model on "
                  "the CPU (a launch on a laptop ends in a ValueError)", got=got),
               tr("pass device_ids only when device is a GPU (device.type == 'cuda'); on the CPU call DDP(model)"))
    layouts = "; ".join(_layout(n, r, r) for n, r in LAYOUTS)
    passed(tr("on simulated jobs ({layouts}) every rank's DDP gets its own GPU on its node; on CPU ranks, no "
              "device_ids", layouts=layouts))
