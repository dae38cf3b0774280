"""Check of exercise 6: gradient accumulation with no_sync, one all-reduce per step of up to K micro-batches, the
last, shorter group included."""

from __future__ import annotations

from typing import Any

import torch
from torch.nn import functional as F

from ddp_lessons.checks.common import Rows, close, difference, expect, factor, fail, flat, passed, ranks_are, recorded
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
    """One all-reduce and one step per group of K micro-batches (the last group may be shorter), each step equal
    to one process's SGD step on all ranks' micro-batches of the group."""
    ranks_are(rows, nproc, "accumulation")
    k, lr = rows[0]["accumulation_steps"], rows[0]["lr"]
    micro = len(rows[0]["micro_batches"])
    groups = [range(start, min(start + k, micro)) for start in range(0, micro, k)]
    steps, tail = len(groups), len(groups[-1])
    for row in rows:
        rank, calls, taken = row["rank"], row["all_reduces"], len(row["after_steps"])
        expect(calls != micro, "no-sync-backward-only",
               tr("rank {rank} all-reduced {calls} times, once per micro-batch: no_sync() saved nothing",
                  rank=rank, calls=calls),
               tr("run the forward AND the backward of every micro-batch but the last of a step inside "
                  "`with ddp_model.no_sync():` (DDP decides in the forward whether the next backward all-reduces, "
                  "so a backward alone inside no_sync() still all-reduces)"))
        expect(calls != 0, "never-synced", tr("no all-reduce ran on rank {rank}: the ranks never combined their "
                                              "gradients", rank=rank),
               tr("run the backward of the last micro-batch of each step outside no_sync(), so DDP all-reduces the "
                  "accumulated gradients"))
        if taken == micro // k < steps:
            fail("tail-dropped", tr("rank {rank} took {taken} optimizer steps for {micro} micro-batches: the last "
                                    "{tail} micro-batches never reached a step", rank=rank, taken=taken, micro=micro,
                                    tail=tail),
                 tr("after the loop, step on what the last, shorter group accumulated (or step when a micro-batch "
                    "is the last one of all, not only every accumulation_steps)"))
        expect(taken == steps, "steps", tr("rank {rank} took {taken} optimizer steps for {micro} micro-batches, "
                                           "expected {steps}", rank=rank, taken=taken, micro=micro, steps=steps),
               tr("step after every {k} micro-batches, and once more after the last micro-batch when {k} does not "
                  "divide {micro}", k=k, micro=micro))
        if calls == steps - 1:
            fail("tail-unsynced", tr("rank {rank} all-reduced {calls} times for {steps} steps: one step used "
                                     "gradients the ranks never combined", rank=rank, calls=calls, steps=steps),
                 tr("the last micro-batch of every step, the last step's included, runs its backward outside "
                    "no_sync()"))
        expect(calls == steps, "all-reduces", tr("rank {rank} all-reduced {calls} times, expected {steps} (one per "
                                                 "step)", rank=rank, calls=calls, steps=steps),
               tr("run every micro-batch but the last of a step inside no_sync(), forward and backward"))
    before = rows[0]["initial"]
    for step, group in enumerate(groups):
        for row in rows[1:]:
            expect(close(row["after_steps"][step], rows[0]["after_steps"][step]), "ranks-diverge",
                   tr("after step {step}, rank {rank}'s weights differ from rank 0's", step=step, rank=row["rank"]),
                   tr("the step used gradients that were not all-reduced: the last backward before each step runs "
                      "outside no_sync()"))
        batch = [row["micro_batches"][i] for row in rows for i in group]
        inputs = torch.cat([torch.tensor(x) for x, _ in batch])
        targets = torch.cat([torch.tensor(y) for _, y in batch])
        expected, got = _sgd_step(before, inputs, targets, lr), rows[0]["after_steps"][step]
        if not close(got, expected):
            scale = factor(flat(got) - flat(before), flat(expected) - flat(before))
            if scale is not None and abs(scale - len(group)) < 1e-3:
                fail("loss-not-scaled", tr("step {step} moved the weights {n}x as far as one process's SGD step on "
                                           "the same samples", step=step, n=len(group)),
                     tr("the gradients of the step's micro-batches add up in .grad: divide each micro-batch's loss "
                        "by the number of micro-batches in its step"))
            if scale is not None and len(group) < k and abs(scale - len(group) / k) < 1e-3:
                fail("tail-scale", tr("the last step, on {n} micro-batches, moved the weights {scale:g}x as far as "
                                      "one process's SGD step on the same samples (the full steps were right)",
                                      n=len(group), scale=scale),
                     tr("divide each micro-batch's loss by the number of micro-batches in its own step: {n} for the "
                        "last one here, not accumulation_steps", n=len(group)))
            if step > 0:
                fail("grad-carried", tr("step {step} differs from one process's SGD step although step 0 was right",
                                        step=step),
                     tr("zero the gradients after each optimizer step, or they carry over into the next one"))
            fail("step-differs", tr("step {step} differs from one process's SGD step on the step's {samples} "
                                    "samples; max |difference| {difference:.3g}",
                                    step=step, samples=len(inputs), difference=difference(got, expected)),
                 tr("each step: the mean squared error of each micro-batch, scaled by 1 / (micro-batches in the "
                    "step), backward, and one optimizer step"))
        before = got
    passed(tr("{steps} steps for {micro} micro-batches ({sizes}), {steps} all-reduces per rank (not {micro}), each "
              "step equal to one process's SGD step on the step's micro-batches of all ranks", steps=steps,
              micro=micro, sizes=" + ".join(str(len(g)) for g in groups)))
