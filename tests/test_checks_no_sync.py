"""`checks.no_sync` (exercise 6) passes the solution's records and fails a wrong script's with the right hint.

The records are built here with plain torch, as 2 ranks would record them for 8 micro-batches.
"""
import pytest
import torch
from torch.nn import functional as F

from ddp_lessons import checks

K, LR = 4, 0.1


def step_gradient(state, batch):
    """Gradient of one nn.Linear's mean squared error over `batch` [(x, y), ...] at weights `state`."""
    weight = torch.tensor(state["weight"], requires_grad=True)
    bias = torch.tensor(state["bias"], requires_grad=True)
    inputs = torch.cat([torch.tensor(x) for x, _ in batch])
    targets = torch.cat([torch.tensor(y) for _, y in batch])
    return torch.autograd.grad(F.mse_loss(F.linear(inputs, weight, bias), targets), [weight, bias])


def accumulation_rows(all_reduces=2, loss_scale=1.0, zero_grad=True, diverge=False):
    """What 2 ranks record for 8 micro-batches with K = 4, trained as the solution would, or not."""
    generator = torch.Generator().manual_seed(0)
    micro = [[[torch.randn(2, 4, generator=generator).tolist(), torch.randn(2, 1, generator=generator).tolist()]
              for _ in range(8)] for _ in range(2)]
    initial = {"weight": torch.randn(1, 4, generator=generator).tolist(), "bias": [0.1]}
    state, after, previous = initial, [], None
    for step in range(2):
        batch = [mb for rank in range(2) for mb in micro[rank][step * K:(step + 1) * K]]
        grads = [loss_scale * g for g in step_gradient(state, batch)]
        if previous is not None and not zero_grad:
            grads = [g + p for g, p in zip(grads, previous)]
        previous = grads
        state = {name: (torch.tensor(state[name]) - LR * g).tolist() for name, g in zip(("weight", "bias"), grads)}
        after.append(state)
    rows = [{"rank": rank, "accumulation_steps": K, "lr": LR, "all_reduces": all_reduces, "initial": initial,
             "after_steps": after, "micro_batches": micro[rank]} for rank in range(2)]
    if diverge:
        rows[1]["after_steps"] = [{"weight": [[0.0] * 4], "bias": [0.0]}] * 2
    return rows


def test_gradient_accumulation_passes_the_solutions_records():
    checks.gradient_accumulation(accumulation_rows())


@pytest.mark.parametrize("rows, hint", [
    (accumulation_rows(all_reduces=8), "once per micro-batch: run the forward AND the backward of the first 3 micro-batches"),
    (accumulation_rows(all_reduces=0), "the last micro-batch of each step must run its backward outside"),
    (accumulation_rows(loss_scale=K), "moved the weights 4x too far"),
    (accumulation_rows(zero_grad=False), "zero the gradients after each optimizer step"),
    (accumulation_rows(diverge=True), "the step used gradients that were not all-reduced"),
])
def test_gradient_accumulation_catches(rows, hint, fails_with):
    with fails_with(hint):
        checks.gradient_accumulation(rows)


def test_gradient_accumulation_tells_a_backward_only_no_sync_to_put_the_forward_inside_too(fails_with):
    # forward outside no_sync() + backward inside: DDP prepared the reducer in the forward, so every
    # micro-batch still all-reduces (measured on torch 2.13 gloo); the records show 8 all-reduces
    with fails_with("forward AND the backward"):
        checks.gradient_accumulation(accumulation_rows(all_reduces=8))
