"""Checks of exercises 1 and 4: each replica's gradient, their average, and DDP's gradient."""

from __future__ import annotations

from typing import Callable

import torch
from torch import nn
from torch.nn import functional as F

from ddp_lessons.checks.common import Rows, close, difference, factor, passed, ranks_are, recorded
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
        assert close(row["parameters"], first["parameters"]), tr(
            "rank {rank}'s weights differ from rank 0's: DDP(model) copies rank 0's weights "
            "to every rank when it is built. Did you wrap the model?", rank=row["rank"])
        assert close(row["gradients"], first["gradients"]), tr(
            "rank {rank}'s gradients differ from rank 0's: run the forward pass through the DDP "
            "wrapper (ddp_model(inputs)); only then does backward() all-reduce the gradients", rank=row["rank"])
    reference = first["single_process_gradients"]
    scale = factor(first["gradients"], reference)
    assert scale is None, tr(
        "the gradients are {scale:g}x one process's gradient on the whole batch: use the mean "
        "loss on each rank (DDP averages across ranks, so a summed loss scales it by the batch size)", scale=scale)
    assert close(first["gradients"], reference), tr(
        "every rank holds the same gradient, but not the whole batch's: max |difference| {difference:.3g}",
        difference=difference(first["gradients"], reference))
    passed(tr("all {nproc} ranks hold one process's gradient on the whole batch (max |difference| {difference:.1e})",
              nproc=nproc, difference=difference(first["gradients"], reference)))
