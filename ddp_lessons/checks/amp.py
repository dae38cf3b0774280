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
from ddp_lessons.checks.common import Rows, close, difference, flat, passed, ranks_are, recorded, written
from ddp_lessons.i18n import tr

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
        lambda **fields: tr(
            "clip_grad_norm_ measured the gradients while they were still {scale:g}x too large (the loss "
            "scale), and cut them to almost nothing: call scaler.unscale_(optimizer) first, then clip, then "
            "scaler.step(optimizer)", **fields)),
    "no clipping": (
        lambda g, s, m, n: g,
        lambda **fields: tr(
            "its gradient norm was {norm:.3g}, above max_norm = {max_norm:g}, and nothing clipped it: call "
            "torch.nn.utils.clip_grad_norm_(ddp_model.parameters(), max_norm) after scaler.unscale_(optimizer)",
            **fields)),
    "loss not divided by the micro-batches": (
        lambda g, s, m, n: _clipped([x * m for x in g], n)[0],
        lambda **fields: tr(
            "the gradients of the {micro} micro-batches add up, so the step used {micro}x the average gradient: "
            "divide each micro-batch's loss by {micro} before backward", **fields)),
    "unscaled loss backpropagated": (
        lambda g, s, m, n: _clipped([x / s for x in g], n)[0],
        lambda **fields: tr(
            "the gradients came out {scale:g}x too small: unscale_ and step divide by the scale, so backpropagate "
            "the scaled loss, scaler.scale(loss).backward()", **fields)),
    "scaled gradients stepped": (
        lambda g, s, m, n: _clipped([x * s for x in g], n)[0],
        lambda **fields: tr(
            "the optimizer stepped on gradients still {scale:g}x too large: unscale them with "
            "scaler.unscale_(optimizer) before clipping, and step with scaler.step(optimizer)", **fields)),
}
"""Single mistakes in the step, each as (the gradients the optimizer then uses, from the right unscaled
gradients g, the scale s, the number of micro-batches m and max_norm n; the hint, given the fields
scale, norm, max_norm and micro)."""


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
    return tr("step {i} went wrong: {hint}", i=i, hint=best[1](scale=reference["scale"], norm=reference["norm"],
                                                              max_norm=first["max_norm"], micro=micro))


@recorded("13")
def amp_training(rows: Rows, nproc: int = 2) -> None:
    """Micro-batches under autocast and no_sync, then unscale_, clip, step, update: every step equals the replay."""
    ranks_are(rows, nproc, f"amp_{rows[0]['dtype'] if rows else ''}")
    name, micro_batches = rows[0]["dtype"], len(rows[0]["steps"][0]["micro_batches"])
    want = str(DTYPES[name])
    for row in rows:
        for i, step in enumerate(row["steps"]):
            assert step["output_dtypes"], tr("the model was never called in train_step")
            assert all(dtype == want for dtype in step["output_dtypes"]), tr(
                "rank {rank}, step {i}: the model's outputs were {got}, not {want}: "
                "run every forward inside `with torch.autocast(device_type, dtype=dtype):`",
                rank=row["rank"], i=i, got=step["output_dtypes"], want=want)
            assert step["loss_dtype"] == "torch.float32", tr(
                "the loss was {got}: compute it inside the autocast region too, where "
                "autocast runs cross_entropy in fp32; only the backward goes outside", got=step["loss_dtype"])
            assert len(step["output_dtypes"]) == micro_batches, tr(
                "rank {rank}, step {i}: the model ran {forwards} forward(s) for "
                "{micro_batches} micro-batches: one forward and one backward per micro-batch",
                rank=row["rank"], i=i, forwards=len(step["output_dtypes"]), micro_batches=micro_batches)
            assert step["allreduces"] != micro_batches * BUCKETS or micro_batches == 1, tr(
                "rank {rank}, step {i}: DDP all-reduced the gradients after every one of the "
                "{micro_batches} micro-batches: run the forward and backward of all but the last inside "
                "`with ddp_model.no_sync():`, so that only the last backward communicates",
                rank=row["rank"], i=i, micro_batches=micro_batches)
            assert step["allreduces"] == BUCKETS, tr(
                "rank {rank}, step {i}: DDP ran {got} all-reduce(s) instead of {buckets}: {hint}",
                rank=row["rank"], i=i, got=step["allreduces"], buckets=BUCKETS,
                hint=tr("the last micro-batch's forward and backward must run outside no_sync(), or "
                        "the ranks never average their gradients") if step["allreduces"] == 0 else
                tr("one synchronised backward per step, in the last micro-batch"))
    got, inf_step = rows[0]["steps"], rows[0]["inf_step"]
    if rows[0]["enabled_scaler"] and 0 <= inf_step < len(got):
        for row in rows:
            assert not row["steps"][inf_step]["stepped"], tr(
                "rank {rank}'s optimizer stepped at step {i} although the gradients held "
                "inf: call scaler.step(optimizer), not optimizer.step(); the scaler skips such steps",
                rank=row["rank"], i=inf_step)
    for i in range(len(got)):
        for row in rows[1:]:
            assert close(row["steps"][i]["weights"], rows[0]["steps"][i]["weights"]), tr(
                "after step {i}, rank {rank}'s weights differ from rank 0's: every rank must "
                "step on the gradients DDP all-reduced in the last backward", i=i, rank=row["rank"])
    expected = reference_steps(rows)
    before = rows[0]["initial"]
    for i, (step, reference) in enumerate(zip(got, expected)):
        should_step = reference["stepped"]
        assert step["stepped"] == should_step, (tr(
            "step {i}: the optimizer skipped but should have stepped: call scaler.step(optimizer) exactly once "
            "per step", i=i) if should_step else tr(
            "step {i}: the optimizer stepped but should have skipped: call scaler.step(optimizer) exactly once "
            "per step", i=i))
        assert step["scale_after"] == (reference["scale"] if reference["stepped"] else reference["scale"] / 2) \
            or not rows[0]["enabled_scaler"], tr(
            "step {i}: the scale went from {before:g} to {after:g}: call "
            "scaler.update() once per step, after scaler.step(optimizer)",
            i=i, before=step["scale"], after=step["scale_after"])
        if not close(step["weights"], reference["weights"]):
            if math.isnan(flat(step["weights"]).sum().item()):
                raise AssertionError(tr("step {i} made the weights nan: step with scaler.step(optimizer), which "
                                        "skips steps whose gradients hold inf or nan", i=i))
            hint = _step_hint(i, step["weights"], before, reference, rows)
            if hint:
                raise AssertionError(hint)
            assert i == 0, tr("step {i} differs although the steps before it were right: zero the "
                              "gradients after each step (optimizer.zero_grad()), or they add up across steps", i=i)
            raise AssertionError(tr(
                "after step {i} the weights differ from the replayed step (max |difference| "
                "{difference:.3g}): accumulate the gradients of every "
                "micro-batch (a backward for each, no zero_grad in between), then unscale_, clip, step, update",
                i=i, difference=difference(step["weights"], reference["weights"])))
        before = step["weights"]
    skipped = [i for i, s in enumerate(got) if not s["stepped"]]
    clipped = [i for i, s in enumerate(expected) if s["clipped"]]
    passed(tr("{name}: {micro_batches} micro-batches per step, forward in {dtype}, loss in "
              "fp32, one all-reduce per step, clipped at step(s) {clipped}; "
              "{steps} steps equal to the replay on all {nproc} ranks",
              name=name, micro_batches=micro_batches, dtype=want.removeprefix("torch."),
              clipped=", ".join(map(str, clipped)), steps=len(got), nproc=nproc)
           + (tr("; step {skipped} skipped on every rank, scale halved", skipped=", ".join(map(str, skipped)))
              if skipped else ""))


ORDER_ERRORS = {
    "did not use scaler.scale": lambda: tr("backpropagate the scaled loss: scaler.scale(loss).backward()"),
    "already been called since the last update": lambda: tr("call scaler.update() after each "
                                                            "scaler.step(optimizer)"),
    "No inf checks were recorded": lambda: tr("call scaler.update() after scaler.step(optimizer), not before it"),
    "unscale_() has already been called": lambda: tr("call scaler.unscale_(optimizer) once per step, after the "
                                                     "last backward, and scaler.update() after each "
                                                     "scaler.step(optimizer)"),
}
"""torch's own GradScaler errors for calls out of order, and (a function giving) what to do about each."""


def order_hint(error: str) -> str | None:
    """The fix for a GradScaler error message about calls out of order, or None for other errors."""
    found = [hint for text, hint in ORDER_ERRORS.items() if text in error]
    return tr("the scaler's calls are out of order ({fix}); the order is scale(loss).backward() for each "
              "micro-batch -> unscale_(optimizer) -> clip -> step(optimizer) -> update()",
              fix=found[0]()) if found else None


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
                            raise AssertionError(tr(
                                "line {line}: backward() runs inside the autocast block: autocast is "
                                "for the forward and the loss only; call scaler.scale(loss).backward() after "
                                "the `with torch.autocast(...)` block", line=inner.lineno))


@recorded("13")
def amp_run(script: str, dtype: str, nproc: int = 2, inf_step: int = 2) -> Rows:
    """Launch the exercise's script with `dtype` ('bf16', or 'fp16' with an inf on rank 1 at `inf_step`).

    Returns the ranks' records; a rank failing with a GradScaler order error becomes a hint.
    """
    written(script)
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
