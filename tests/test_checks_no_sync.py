"""`checks.no_sync` (exercise 6) passes the solution's records and fails a wrong loop's with a hint that names the
symptom first and the fix on a second failure.

The records are built here with plain torch, as 2 ranks would record them for 10 micro-batches with K = 4: two
full steps and a last one on 2 micro-batches.
"""
import pytest
import torch
from torch.nn import functional as F

from ddp_lessons import checks
from ddp_lessons.checks import common

K, LR, MICRO = 4, 0.1, 10
GROUPS = [range(0, 4), range(4, 8), range(8, 10)]


@pytest.fixture(autouse=True)
def fresh_kernel(monkeypatch):
    """Each test fails its checks as in a fresh kernel: no hint given yet."""
    monkeypatch.setattr(common, "_given", common.Counter())


def step_gradient(state, batch):
    """Gradient of one nn.Linear's mean squared error over `batch` [(x, y), ...] at weights `state`."""
    weight = torch.tensor(state["weight"], requires_grad=True)
    bias = torch.tensor(state["bias"], requires_grad=True)
    inputs = torch.cat([torch.tensor(x) for x, _ in batch])
    targets = torch.cat([torch.tensor(y) for _, y in batch])
    return torch.autograd.grad(F.mse_loss(F.linear(inputs, weight, bias), targets), [weight, bias])


def accumulation_rows(all_reduces=3, scale=lambda group: 1.0, zero_grad=True, diverge=False, steps=3):
    """What 2 ranks record for 10 micro-batches with K = 4, trained as the solution would, or not: `scale(group)`
    multiplies a step's gradient (the right one is the mean over the step's samples)."""
    generator = torch.Generator().manual_seed(0)
    micro = [[[torch.randn(2, 4, generator=generator).tolist(), torch.randn(2, 1, generator=generator).tolist()]
              for _ in range(MICRO)] for _ in range(2)]
    initial = {"weight": torch.randn(1, 4, generator=generator).tolist(), "bias": [0.1]}
    state, after, previous = initial, [], None
    for group in GROUPS[:steps]:
        batch = [micro[rank][i] for rank in range(2) for i in group]
        grads = [scale(group) * g for g in step_gradient(state, batch)]
        if previous is not None and not zero_grad:
            grads = [g + p for g, p in zip(grads, previous)]
        previous = grads
        state = {name: (torch.tensor(state[name]) - LR * g).tolist() for name, g in zip(("weight", "bias"), grads)}
        after.append(state)
    rows = [{"rank": rank, "accumulation_steps": K, "lr": LR, "all_reduces": all_reduces, "initial": initial,
             "after_steps": after, "micro_batches": micro[rank]} for rank in range(2)]
    if diverge:
        rows[1]["after_steps"] = [{"weight": [[0.0] * 4], "bias": [0.0]}] * 3
    return rows


def test_gradient_accumulation_passes_the_solutions_records(capsys):
    checks.gradient_accumulation(accumulation_rows())
    assert "3 steps for 10 micro-batches (4 + 4 + 2), 3 all-reduces per rank (not 10)" in capsys.readouterr().out


@pytest.mark.parametrize("rows, hint, symptom, fix", [
    # forward outside no_sync() + backward inside: DDP prepared the reducer in the forward, so every micro-batch
    # still all-reduces (measured on torch 2.13 gloo)
    (accumulation_rows(all_reduces=10), "no-sync-backward-only", "all-reduced 10 times, once per micro-batch",
     "run the forward AND the backward of every micro-batch but the last of a step inside"),
    (accumulation_rows(all_reduces=0), "never-synced", "no all-reduce ran on rank 0",
     "the last micro-batch of each step outside no_sync()"),
    (accumulation_rows(all_reduces=2, steps=2), "tail-dropped",
     "rank 0 took 2 optimizer steps for 10 micro-batches: the last 2 micro-batches never reached a step",
     "step on what the last, shorter group accumulated"),
    (accumulation_rows(all_reduces=2, diverge=True), "tail-unsynced",
     "rank 0 all-reduced 2 times for 3 steps: one step used gradients the ranks never combined",
     "the last step's included"),
    (accumulation_rows(scale=len), "loss-not-scaled",
     "step 0 moved the weights 4x as far as one process's SGD step on the same samples",
     "divide each micro-batch's loss by the number of micro-batches in its step"),
    (accumulation_rows(scale=lambda group: len(group) / K if len(group) < K else 1.0), "tail-scale",
     "the last step, on 2 micro-batches, moved the weights 0.5x as far", "2 for the last one here"),
    (accumulation_rows(zero_grad=False), "grad-carried", "step 1 differs from one process's SGD step although "
     "step 0 was right", "zero the gradients after each optimizer step"),
    (accumulation_rows(diverge=True), "ranks-diverge", "after step 0, rank 1's weights differ from rank 0's",
     "the step used gradients that were not all-reduced"),
], ids=["backward-only-in-no-sync", "never-synced", "tail-dropped", "tail-unsynced", "loss-not-scaled",
        "tail-scaled-by-k", "no-zero-grad", "ranks-diverge"])
def test_gradient_accumulation_names_the_symptom_then_the_fix(rows, hint, symptom, fix):
    with pytest.raises(common.CheckFailed) as first:
        checks.gradient_accumulation(rows)
    assert first.value.hint == hint and symptom in str(first.value) and fix not in str(first.value)
    with pytest.raises(common.CheckFailed, match="How to fix it: ") as second:
        checks.gradient_accumulation(rows)  # the same mistake again: now the fix
    assert second.value.fix_shown and fix in str(second.value)
