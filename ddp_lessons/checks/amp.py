"""Check of exercise 13: an AMP training step under DDP with gradient accumulation and clipping.

The step: for each micro-batch, forward and loss under autocast, the scaled loss (divided by the number
of micro-batches) backpropagated, all but the last inside ``no_sync()``; then ``unscale_`` ->
``clip_grad_norm_`` -> ``step`` -> ``update``. The exercise's script records, on each rank and for each
step, the micro-batches, the dtype of the model's outputs and of the loss, the scale before and after,
whether the optimizer stepped, how many all-reduces DDP ran, and the weights after the step. The check
replays the same steps in this process (both ranks' micro-batches, DDP's average, clipping, the
scaler's skip rule) and compares; a static look at the source catches ``backward()`` inside autocast.
"""

from __future__ import annotations

import ast
import math
import os
from typing import Any

import torch
from torch import nn
from torch.nn import functional as F

from ddp_lessons import launch, records
from ddp_lessons.checks.common import Rows, close, difference, flat, passed, ranks_are

DTYPES = {"bf16": torch.bfloat16, "fp16": torch.float16}
BUCKETS = 1
"""All-reduces (buckets) in one synchronised backward of the exercise's model: 212 parameters, one bucket."""


def _model(sizes: list[int], state: dict[str, Any]) -> nn.Module:
    """The exercise's MLP, Linear(a, b) + ReLU + Linear(b, c), holding the weights `state`."""
    model = nn.Sequential(nn.Linear(sizes[0], sizes[1]), nn.ReLU(), nn.Linear(sizes[1], sizes[2]))
    model.load_state_dict({name: torch.tensor(value) for name, value in state.items()})
    return model


def _clipped(grads: list[torch.Tensor], max_norm: float) -> tuple[list[torch.Tensor], float, bool]:
    """(`grads` as clip_grad_norm_ leaves them, their total norm before, whether clipping changed them)."""
    norm = torch.linalg.vector_norm(torch.stack([torch.linalg.vector_norm(g) for g in grads])).item()
    coefficient = min(1.0, max_norm / (norm + 1e-6))  # what clip_grad_norm_ multiplies by
    return [g * coefficient for g in grads], norm, coefficient < 1


def reference_steps(rows: Rows) -> list[dict[str, Any]]:
    """Replay the ranks' steps in one process: per step the weights after it, whether it stepped,
    the scale, the gradient norm before clipping, whether clipping changed the gradients, and the
    averaged unscaled gradients (to replay mistakes with, see `MISTAKES`)."""
    first = rows[0]
    dtype, lr, max_norm = DTYPES[first["dtype"]], first["lr"], first["max_norm"]
    model = _model(first["sizes"], first["initial"])
    scale = first["steps"][0]["scale"] if first["enabled_scaler"] else 1.0
    expected = []
    threads = torch.get_num_threads()
    torch.set_num_threads(1)  # as each rank ran
    try:
        for step in range(len(first["steps"])):
            averaged = [torch.zeros_like(p) for p in model.parameters()]
            for row in rows:  # each rank's accumulated gradient of its micro-batches, as DDP averages them
                micro = row["steps"][step]["micro_batches"]
                for batch in micro:
                    with torch.autocast("cpu", dtype=dtype):
                        loss = F.cross_entropy(model(torch.tensor(batch["inputs"])), torch.tensor(batch["targets"]))
                    grads = torch.autograd.grad(loss / len(micro) * scale, list(model.parameters()))
                    for total, grad in zip(averaged, grads):
                        total += grad / len(rows)
            unscaled = [g * (1.0 / scale) for g in averaged]
            finite = all(torch.isfinite(g).all() for g in unscaled)
            used, norm, clipped = _clipped(unscaled, max_norm)
            if finite:
                with torch.no_grad():
                    for p, g in zip(model.parameters(), used):
                        p.add_(g, alpha=-lr)
            expected.append({"stepped": bool(finite), "scale": scale, "norm": norm, "clipped": finite and clipped,
                             "grads": unscaled, "weights": {k: v.tolist() for k, v in model.state_dict().items()}})
            if first["enabled_scaler"] and not finite:
                scale /= 2
    finally:
        torch.set_num_threads(threads)
    return expected


MISTAKES = {
    "clip before unscale_": (
        lambda g, s, m, n: [x / s for x in _clipped([x * s for x in g], n)[0]],
        "clip_grad_norm_ measured the gradients while they were still {scale:g}x too large (the loss "
        "scale), and cut them to almost nothing: call scaler.unscale_(optimizer) first, then clip, then "
        "scaler.step(optimizer)"),
    "no clipping": (
        lambda g, s, m, n: g,
        "its gradient norm was {norm:.3g}, above max_norm = {max_norm:g}, and nothing clipped it: call "
        "torch.nn.utils.clip_grad_norm_(ddp_model.parameters(), max_norm) after scaler.unscale_(optimizer)"),
    "loss not divided by the micro-batches": (
        lambda g, s, m, n: _clipped([x * m for x in g], n)[0],
        "the gradients of the {micro} micro-batches add up, so the step used {micro}x the average gradient: "
        "divide each micro-batch's loss by {micro} before backward"),
    "unscaled loss backpropagated": (
        lambda g, s, m, n: _clipped([x / s for x in g], n)[0],
        "the gradients came out {scale:g}x too small: unscale_ and step divide by the scale, so backpropagate "
        "the scaled loss, scaler.scale(loss).backward()"),
    "scaled gradients stepped": (
        lambda g, s, m, n: _clipped([x * s for x in g], n)[0],
        "the optimizer stepped on gradients still {scale:g}x too large: unscale them with "
        "scaler.unscale_(optimizer) before clipping, and step with scaler.step(optimizer)"),
}
"""Single mistakes in the step, each as (the gradients the optimizer then uses, from the right unscaled
gradients g, the scale s, the number of micro-batches m and max_norm n; the hint)."""


def _step_hint(i: int, got: Any, before: Any, reference: dict, rows: Rows) -> str | None:
    """The hint of the single mistake that best turns `before` into step `i`'s weights `got`, if one does.

    Moves are compared relative to their size: a mistake that shrinks the gradients by the loss scale
    moves the weights by ~1e-6, within any absolute tolerance of the weights themselves."""
    first, micro = rows[0], len(rows[0]["steps"][0]["micro_batches"])
    model = _model(first["sizes"], before)
    start = flat(before)
    moved, right = flat(got) - start, flat(reference["weights"]) - start

    def distance(a: torch.Tensor, b: torch.Tensor) -> float:
        return ((a - b).norm() / max(b.norm().item(), 1e-12)).item()

    best = None
    for gradients, hint in MISTAKES.values():
        used = gradients(reference["grads"], reference["scale"], micro, first["max_norm"])
        replayed = flat({name: (param.detach() - first["lr"] * grad).tolist()
                         for name, param, grad in zip(model.state_dict(), model.parameters(), used)}) - start
        if distance(replayed, right) > 0.05 and distance(moved, replayed) < 0.05:
            if best is None or distance(moved, replayed) < best[0]:
                best = (distance(moved, replayed), hint)
    if best is None:
        return None
    return f"step {i} went wrong: " + best[1].format(scale=reference["scale"], norm=reference["norm"],
                                                     max_norm=first["max_norm"], micro=micro)


def amp_training(rows: Rows, nproc: int = 2) -> None:
    """Micro-batches under autocast and no_sync, then unscale_, clip, step, update: every step equals the replay."""
    ranks_are(rows, nproc, f"amp_{rows[0]['dtype'] if rows else ''}")
    name, micro_batches = rows[0]["dtype"], len(rows[0]["steps"][0]["micro_batches"])
    want = str(DTYPES[name])
    for row in rows:
        for i, step in enumerate(row["steps"]):
            assert step["output_dtypes"], "the model was never called in train_step"
            assert all(dtype == want for dtype in step["output_dtypes"]), (
                f"rank {row['rank']}, step {i}: the model's outputs were {step['output_dtypes']}, not {want}: "
                f"run every forward inside `with torch.autocast(device_type, dtype=dtype):`")
            assert step["loss_dtype"] == "torch.float32", (
                f"the loss was {step['loss_dtype']}: compute it inside the autocast region too, where "
                "autocast runs cross_entropy in fp32; only the backward goes outside")
            assert len(step["output_dtypes"]) == micro_batches, (
                f"rank {row['rank']}, step {i}: the model ran {len(step['output_dtypes'])} forward(s) for "
                f"{micro_batches} micro-batches: one forward and one backward per micro-batch")
            assert step["allreduces"] != micro_batches * BUCKETS or micro_batches == 1, (
                f"rank {row['rank']}, step {i}: DDP all-reduced the gradients after every one of the "
                f"{micro_batches} micro-batches: run the forward and backward of all but the last inside "
                "`with ddp_model.no_sync():`, so that only the last backward communicates")
            assert step["allreduces"] == BUCKETS, (
                f"rank {row['rank']}, step {i}: DDP ran {step['allreduces']} all-reduce(s) instead of "
                f"{BUCKETS}: " + ("the last micro-batch's forward and backward must run outside no_sync(), or "
                                  "the ranks never average their gradients" if step["allreduces"] == 0 else
                                  "one synchronised backward per step, in the last micro-batch"))
    got, inf_step = rows[0]["steps"], rows[0]["inf_step"]
    if rows[0]["enabled_scaler"] and 0 <= inf_step < len(got):
        for row in rows:
            assert not row["steps"][inf_step]["stepped"], (
                f"rank {row['rank']}'s optimizer stepped at step {inf_step} although the gradients held "
                "inf: call scaler.step(optimizer), not optimizer.step(); the scaler skips such steps")
    for i in range(len(got)):
        for row in rows[1:]:
            assert close(row["steps"][i]["weights"], rows[0]["steps"][i]["weights"]), (
                f"after step {i}, rank {row['rank']}'s weights differ from rank 0's: every rank must "
                "step on the gradients DDP all-reduced in the last backward")
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
            if math.isnan(flat(step["weights"]).sum().item()):
                raise AssertionError(f"step {i} made the weights nan: step with scaler.step(optimizer), which "
                                     "skips steps whose gradients hold inf or nan")
            hint = _step_hint(i, step["weights"], before, reference, rows)
            if hint:
                raise AssertionError(hint)
            assert i == 0, (f"step {i} differs although the steps before it were right: zero the "
                            "gradients after each step (optimizer.zero_grad()), or they add up across steps")
            raise AssertionError(
                f"after step {i} the weights differ from the replayed step (max |difference| "
                f"{difference(step['weights'], reference['weights']):.3g}): accumulate the gradients of every "
                "micro-batch (a backward for each, no zero_grad in between), then unscale_, clip, step, update")
        before = step["weights"]
    skipped = [i for i, s in enumerate(got) if not s["stepped"]]
    clipped = [i for i, s in enumerate(expected) if s["clipped"]]
    passed(f"{name}: {micro_batches} micro-batches per step, forward in {want.removeprefix('torch.')}, loss in "
           f"fp32, one all-reduce per step, clipped at step(s) {', '.join(map(str, clipped))}; "
           f"{len(got)} steps equal to the replay on all {nproc} ranks"
           + (f"; step {', '.join(map(str, skipped))} skipped on every rank, scale halved" if skipped else ""))


ORDER_ERRORS = {
    "did not use scaler.scale": "backpropagate the scaled loss: scaler.scale(loss).backward()",
    "already been called since the last update": "call scaler.update() after each scaler.step(optimizer)",
    "No inf checks were recorded": "call scaler.update() after scaler.step(optimizer), not before it",
    "unscale_() has already been called": "call scaler.unscale_(optimizer) once per step, after the last "
                                          "backward, and scaler.update() after each scaler.step(optimizer)",
}
"""torch's own GradScaler errors for calls out of order, and what to do about each."""


def order_hint(error: str) -> str | None:
    """The fix for a GradScaler error message about calls out of order, or None for other errors."""
    found = [hint for text, hint in ORDER_ERRORS.items() if text in error]
    return f"the scaler's calls are out of order ({found[0]}); the order is scale(loss).backward() for each " \
           "micro-batch -> unscale_(optimizer) -> clip -> step(optimizer) -> update()" if found else None


def backward_outside_autocast(script: str | os.PathLike, function: str = "train_step") -> None:
    """Assert that no ``.backward()`` call in `function` of `script` sits inside a ``with ...autocast(...)``."""
    tree = ast.parse(open(script).read(), filename=str(script))
    for node in ast.walk(tree):
        if isinstance(node, ast.FunctionDef) and node.name == function:
            for block in ast.walk(node):
                if isinstance(block, (ast.With, ast.AsyncWith)) and any(
                        isinstance(item.context_expr, ast.Call)
                        and ast.unparse(item.context_expr.func).endswith("autocast") for item in block.items):
                    for inner in (n for statement in block.body for n in ast.walk(statement)):
                        if isinstance(inner, ast.Call) and isinstance(inner.func, ast.Attribute) \
                                and inner.func.attr == "backward":
                            raise AssertionError(
                                f"line {inner.lineno}: backward() runs inside the autocast block: autocast is "
                                "for the forward and the loss only; call scaler.scale(loss).backward() after "
                                "the `with torch.autocast(...)` block")


def amp_run(script: str, dtype: str, nproc: int = 2, inf_step: int = 2) -> Rows:
    """Launch the exercise's script with `dtype` ('bf16', or 'fp16' with an inf on rank 1 at `inf_step`).

    Returns the ranks' records; a rank failing with a GradScaler order error becomes a hint.
    """
    backward_outside_autocast(script)
    args = ["--dtype", dtype] + (["--inf-step", str(inf_step)] if dtype == "fp16" else [])
    try:
        run = launch.run_torchrun(script, nproc, args=args)
    except launch.RankFailedError as error:
        hint = order_hint(str(error))
        if hint is None:
            raise
        raise AssertionError(hint) from None
    return records.load(run.run_dir, f"amp_{dtype}")
