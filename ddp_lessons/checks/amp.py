"""Check of exercise 13: an AMP training step under DDP (autocast, then scale -> backward -> step -> update).

The exercise's script records, on each rank and for each step, the batch, the dtype of the model's
output and of the loss, the scaler's scale before and after, whether the optimizer stepped, and the
weights after the step. The check replays the same steps in this process (both ranks' batches,
DDP's average of their gradients, the scaler's skip rule) and compares.
"""

from __future__ import annotations

import math
from typing import Any

import torch
from torch import nn
from torch.nn import functional as F

from ddp_lessons import launch, records
from ddp_lessons.checks.common import Rows, close, difference, factor, flat, passed, ranks_are

DTYPES = {"bf16": torch.bfloat16, "fp16": torch.float16}


def _model(sizes: list[int], state: dict[str, Any]) -> nn.Module:
    """The exercise's MLP, Linear(a, b) + ReLU + Linear(b, c), holding the weights `state`."""
    model = nn.Sequential(nn.Linear(sizes[0], sizes[1]), nn.ReLU(), nn.Linear(sizes[1], sizes[2]))
    model.load_state_dict({name: torch.tensor(value) for name, value in state.items()})
    return model


def reference_steps(rows: Rows) -> list[dict[str, Any]]:
    """Replay the ranks' steps in one process: per step the weights after it, whether it stepped, the scale."""
    first = rows[0]
    dtype, lr = DTYPES[first["dtype"]], first["lr"]
    model = _model(first["sizes"], first["initial"])
    scale = first["steps"][0]["scale"] if first["enabled_scaler"] else 1.0
    expected = []
    threads = torch.get_num_threads()
    torch.set_num_threads(1)  # as each rank ran
    try:
        for step in range(len(first["steps"])):
            averaged = [torch.zeros_like(p) for p in model.parameters()]
            for row in rows:  # each rank's gradient of its own batch, as DDP averages them
                batch = row["steps"][step]
                with torch.autocast("cpu", dtype=dtype):
                    loss = F.cross_entropy(model(torch.tensor(batch["inputs"])), torch.tensor(batch["targets"]))
                grads = torch.autograd.grad(loss * scale, list(model.parameters()))
                for total, grad in zip(averaged, grads):
                    total += grad / len(rows)
            unscaled = [g * (1.0 / scale) for g in averaged]
            finite = all(torch.isfinite(g).all() for g in unscaled)
            if finite:
                with torch.no_grad():
                    for p, g in zip(model.parameters(), unscaled):
                        p.add_(g, alpha=-lr)
            expected.append({"stepped": bool(finite), "scale": scale,
                             "weights": {k: v.tolist() for k, v in model.state_dict().items()}})
            if first["enabled_scaler"] and not finite:
                scale /= 2
    finally:
        torch.set_num_threads(threads)
    return expected


def amp_training(rows: Rows, nproc: int = 2) -> None:
    """Forward and loss under autocast, the scaler's calls in order: every step equals the replayed one."""
    ranks_are(rows, nproc, f"amp_{rows[0]['dtype'] if rows else ''}")
    name = rows[0]["dtype"]
    want = str(DTYPES[name])
    for row in rows:
        for i, step in enumerate(row["steps"]):
            assert step["output_dtype"] is not None, "the model was never called in train_step"
            assert step["output_dtype"] == want, (
                f"rank {row['rank']}, step {i}: the model's output was {step['output_dtype']}, not {want}: "
                f"run the forward inside `with torch.autocast(device_type, dtype=dtype):`")
            assert step["loss_dtype"] == "torch.float32", (
                f"the loss was {step['loss_dtype']}: compute it inside the autocast region too, where "
                "autocast runs cross_entropy in fp32; only the backward goes outside")
    got, inf_step = rows[0]["steps"], rows[0]["inf_step"]
    if rows[0]["enabled_scaler"] and 0 <= inf_step < len(got):
        for row in rows:
            assert not row["steps"][inf_step]["stepped"], (
                f"rank {row['rank']}'s optimizer stepped at step {inf_step} although the gradients held "
                "inf: call scaler.step(optimizer), not optimizer.step(); the scaler skips such steps")
    steps = len(got)
    for i in range(steps):
        for row in rows[1:]:
            assert close(row["steps"][i]["weights"], rows[0]["steps"][i]["weights"]), (
                f"after step {i}, rank {row['rank']}'s weights differ from rank 0's: every rank must "
                "step on the gradients DDP all-reduced in backward()")
    expected = reference_steps(rows)
    before = rows[0]["initial"]
    for i, (step, reference) in enumerate(zip(got, expected)):
        assert step["stepped"] == reference["stepped"], (
            f"step {i}: the optimizer {'skipped' if reference['stepped'] else 'stepped'} but should have "
            f"{'stepped' if reference['stepped'] else 'skipped'}: call scaler.step(optimizer) exactly once per step")
        assert step["scale_after"] == (reference["scale"] if reference["stepped"] else reference["scale"] / 2) \
            or not rows[0]["enabled_scaler"], (
            f"step {i}: the scale went from {step['scale']:g} to {step['scale_after']:g}: call "
            "scaler.update() once per step, after scaler.step(optimizer)")
        if not close(step["weights"], reference["weights"]):
            moved, right = flat(step["weights"]) - flat(before), flat(reference["weights"]) - flat(before)
            if math.isnan(moved.sum().item()):
                raise AssertionError(f"step {i} made the weights nan: step with scaler.step(optimizer), "
                                     "which skips steps whose gradients hold inf or nan")
            scale = factor(moved, right)
            if scale is not None and step["scale"] > 1 and math.isclose(scale, 1 / step["scale"], rel_tol=1e-2):
                raise AssertionError(
                    f"step {i} moved the weights {step['scale']:g}x too little: scaler.step() divides the "
                    "gradients by the scale, so backpropagate the scaled loss: scaler.scale(loss).backward()")
            if scale is not None and step["scale"] > 1 and math.isclose(scale, step["scale"], rel_tol=1e-2):
                raise AssertionError(
                    f"step {i} moved the weights {step['scale']:g}x too far: the gradients were still "
                    "scaled; step with scaler.step(optimizer), which unscales them first")
            assert i == 0, (f"step {i} differs although the steps before it were right: zero the "
                            "gradients after each step (optimizer.zero_grad()), or they add up across steps")
            raise AssertionError(f"after step {i} the weights differ from the replayed AMP step; "
                                 f"max |difference| {difference(step['weights'], reference['weights']):.3g}")
        before = step["weights"]
    skipped = [i for i, s in enumerate(got) if not s["stepped"]]
    passed(f"{name}: forward in {want.removeprefix('torch.')}, loss in fp32, {steps} steps equal to the "
           f"replayed AMP steps on all {nproc} ranks" + (f"; step {', '.join(map(str, skipped))} skipped on "
                                                        "every rank, scale halved" if skipped else ""))


ORDER_ERRORS = {
    "did not use scaler.scale": "backpropagate the scaled loss: scaler.scale(loss).backward()",
    "already been called since the last update": "call scaler.update() after each scaler.step(optimizer)",
    "No inf checks were recorded": "call scaler.update() after scaler.step(optimizer), not before it",
    "unscale_() has already been called": "call scaler.update() after each scaler.step(optimizer)",
}
"""torch's own GradScaler errors for calls out of order, and what to do about each."""


def order_hint(error: str) -> str | None:
    """The fix for a GradScaler error message about calls out of order, or None for other errors."""
    found = [hint for text, hint in ORDER_ERRORS.items() if text in error]
    return f"the scaler's calls are out of order ({found[0]}); the order is scale(loss).backward() -> " \
           "step(optimizer) -> update()" if found else None


def amp_run(script: str, dtype: str, nproc: int = 2, inf_step: int = 2) -> Rows:
    """Launch the exercise's script with `dtype` ('bf16', or 'fp16' with an inf on rank 1 at `inf_step`).

    Returns the ranks' records; a rank failing with a GradScaler order error becomes a hint.
    """
    args = ["--dtype", dtype] + (["--inf-step", str(inf_step)] if dtype == "fp16" else [])
    try:
        run = launch.run_torchrun(script, nproc, args=args)
    except launch.RankFailedError as error:
        hint = order_hint(str(error))
        if hint is None:
            raise
        raise AssertionError(hint) from None
    return records.load(run.run_dir, f"amp_{dtype}")
