"""Check of exercise 6: gradient accumulation with no_sync, one all-reduce per K micro-batches."""

from __future__ import annotations

from typing import Any

import torch
from torch.nn import functional as F

from ddp_lessons.checks.common import Rows, close, difference, factor, flat, passed, ranks_are, recorded
from ddp_lessons.i18n import tr


def _sgd_step(state: dict[str, Any], inputs: torch.Tensor, targets: torch.Tensor,
              lr: float) -> dict[str, torch.Tensor]:
    """One SGD step of an nn.Linear with weights `state` on the mean squared error of one batch."""
    params = {name: torch.tensor(value, requires_grad=True) for name, value in state.items()}
    loss = F.mse_loss(F.linear(inputs, params["weight"], params["bias"]), targets)
    grads = torch.autograd.grad(loss, list(params.values()))
    return {name: (p - lr * g).detach() for (name, p), g in zip(params.items(), grads)}


@recorded("06")
def gradient_accumulation(rows: Rows, nproc: int = 2) -> None:
    """One all-reduce and step per K micro-batches, equal to one process's SGD step on all ranks' batches."""
    ranks_are(rows, nproc, "accumulation")
    k, lr = rows[0]["accumulation_steps"], rows[0]["lr"]
    micro = len(rows[0]["micro_batches"])
    steps = micro // k
    for row in rows:
        rank, calls = row["rank"], row["all_reduces"]
        assert calls != micro, tr(
            "rank {rank} all-reduced {calls} times, once per micro-batch: run the forward AND the "
            "backward of the first {first} micro-batches of each step inside `with ddp_model.no_sync():` "
            "(DDP decides in the forward whether the next backward all-reduces, so a backward alone "
            "inside no_sync() still all-reduces)", rank=rank, calls=calls, first=k - 1)
        assert calls != 0, tr("no all-reduce ran: the last micro-batch of each step must run its "
                              "backward outside no_sync(), so DDP all-reduces the accumulated gradients")
        assert calls == steps, tr("rank {rank} all-reduced {calls} times, expected {steps} (one per step)",
                                  rank=rank, calls=calls, steps=steps)
        assert len(row["after_steps"]) == steps, tr(
            "rank {rank} took {taken} optimizer steps for {micro} micro-batches: "
            "step once every {k} micro-batches", rank=rank, taken=len(row["after_steps"]), micro=micro, k=k)
    before = rows[0]["initial"]
    for step in range(steps):
        for row in rows[1:]:
            assert close(row["after_steps"][step], rows[0]["after_steps"][step]), tr(
                "after step {step}, rank {rank}'s weights differ from rank 0's: the step "
                "used gradients that were not all-reduced", step=step, rank=row["rank"])
        batch = [mb for row in rows for mb in row["micro_batches"][step * k:(step + 1) * k]]
        inputs = torch.cat([torch.tensor(x) for x, _ in batch])
        targets = torch.cat([torch.tensor(y) for _, y in batch])
        expected, got = _sgd_step(before, inputs, targets, lr), rows[0]["after_steps"][step]
        if not close(got, expected):
            scale = factor(flat(got) - flat(before), flat(expected) - flat(before))
            assert scale is None or abs(scale - k) > 1e-3, tr(
                "step {step} moved the weights {k}x too far: the gradients of the {k} micro-batches "
                "add up, so divide each micro-batch's loss by accumulation_steps", step=step, k=k)
            assert step == 0, tr("step {step} differs although step 0 was right: zero the gradients "
                                 "after each optimizer step, or they carry over into the next one", step=step)
            raise AssertionError(tr("step {step} differs from one process's SGD step on the step's "
                                    "{samples} samples; max |difference| {difference:.3g}",
                                    step=step, samples=len(inputs), difference=difference(got, expected)))
        before = got
    passed(tr("{steps} steps, {steps} all-reduces per rank (not {micro}), each step equal to one "
              "process's SGD step on {batches} micro-batches", steps=steps, micro=micro, batches=k * nproc))
