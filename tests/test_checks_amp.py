"""`checks.amp_training` (exercise 13) passes a correct AMP step's records and names each mistake.

Two ranks are simulated in this process: each replica accumulates the gradients of its micro-batches,
they are averaged as DDP's all-reduce does (in the last backward, or in every one without no_sync),
and each replica's own GradScaler decides whether to step. `mistake` changes one thing in the step,
as a student might.
"""
import pytest
import torch
from torch import nn
from torch.nn import functional as F

from ddp_lessons import checks

SIZES, STEPS, MICRO, LR, MAX_NORM, INF_STEP = [8, 16, 4], 5, 2, 0.5, 0.5, 2


def weights(model):
    return {name: p.detach().tolist() for name, p in model.state_dict().items()}


def simulate(dtype_name, mistake=None):
    """The records 2 ranks write for STEPS steps of the exercise's script, with one `mistake` or none."""
    dtype = {"bf16": torch.bfloat16, "fp16": torch.float16}[dtype_name]
    fp16 = dtype == torch.float16
    torch.manual_seed(0)
    models = [nn.Sequential(nn.Linear(8, 16), nn.ReLU(), nn.Linear(16, 4)) for _ in range(2)]
    models[1].load_state_dict(models[0].state_dict())
    initial = weights(models[0])
    optimizers = [torch.optim.SGD(m.parameters(), lr=LR) for m in models]
    scalers = [torch.amp.GradScaler("cpu", init_scale=2.0**16, enabled=fp16) for _ in models]
    generators = [torch.Generator().manual_seed(rank) for rank in range(2)]
    rows = [{"rank": r, "dtype": dtype_name, "sizes": SIZES, "lr": LR, "max_norm": MAX_NORM, "enabled_scaler": fp16,
             "initial": initial, "inf_step": INF_STEP if fp16 else -1, "steps": []} for r in range(2)]
    for step in range(STEPS):
        records = [{"micro_batches": [], "output_dtypes": [], "allreduces": 0} for _ in models]
        for micro in range(MICRO):
            synced = micro == MICRO - 1 or mistake == "no no_sync"
            if mistake == "no_sync for every micro-batch":
                synced = False
            for rank, model in enumerate(models):
                x = torch.randn(4, 8, generator=generators[rank])
                y = torch.randint(4, (4,), generator=generators[rank])
                records[rank]["micro_batches"].append({"inputs": x.tolist(), "targets": y.tolist()})
                if fp16 and (step, rank, micro) == (INF_STEP, 1, 0):
                    x[0, 0] = records[rank]["micro_batches"][-1]["inputs"][0][0] = float("inf")
                with torch.autocast("cpu", dtype=dtype, enabled=mistake != "no autocast"):
                    out = model(x)
                    loss = F.cross_entropy(out, y) if mistake != "loss outside autocast" else None
                if loss is None:
                    loss = F.cross_entropy(out, y)
                records[rank]["output_dtypes"].append(str(out.dtype))
                records[rank]["loss_dtype"] = str(loss.dtype)
                if mistake != "loss not divided by the micro-batches":
                    loss = loss / MICRO
                scaled = scalers[rank].scale(loss)  # a student may call it and still backpropagate `loss`
                (loss if mistake == "scaled loss unused" else scaled).backward()
                records[rank]["allreduces"] += synced
            if synced:  # DDP: average the ranks' (accumulated) gradients
                for params in zip(*(m.parameters() for m in models)):
                    mean = sum(p.grad for p in params) / 2
                    for p in params:
                        p.grad = mean.clone()
        for rank, (model, optimizer, scaler) in enumerate(zip(models, optimizers, scalers)):
            scale, stepped = scaler.get_scale(), []
            handle = optimizer.register_step_post_hook(lambda *_: stepped.append(True))
            if mistake == "clip before unscale_":
                torch.nn.utils.clip_grad_norm_(model.parameters(), MAX_NORM)
                scaler.unscale_(optimizer)
            elif mistake != "no clipping" and mistake != "optimizer.step":
                scaler.unscale_(optimizer)
                torch.nn.utils.clip_grad_norm_(model.parameters(), MAX_NORM)
            if mistake == "optimizer.step":
                torch.nn.utils.clip_grad_norm_(model.parameters(), MAX_NORM)
                optimizer.step()
            else:
                scaler.step(optimizer)
                if mistake != "no update":
                    scaler.update()
            handle.remove()
            if mistake != "no zero_grad":
                optimizer.zero_grad()
            rows[rank]["steps"].append({**records[rank], "scale": scale, "scale_after": scaler.get_scale(),
                                        "stepped": bool(stepped), "weights": weights(model)})
    return rows


@pytest.mark.parametrize("dtype", ["bf16", "fp16"])
def test_amp_training_passes_a_correct_step(dtype, capsys):
    checks.amp_training(simulate(dtype))
    out = capsys.readouterr().out
    assert out.startswith(f"✓ {dtype}: 2 micro-batches per step") and "one all-reduce per step" in out


def test_the_replay_skips_the_step_with_an_inf_halves_the_scale_and_clips_some_steps_only():
    expected = checks.amp.reference_steps(simulate("fp16"))
    assert [s["stepped"] for s in expected] == [True, True, False, True, True]
    assert [s["scale"] for s in expected] == [2.0**16, 2.0**16, 2.0**16, 2.0**15, 2.0**15]
    clipped = [s["clipped"] for s in expected]
    assert any(clipped) and not all(clipped[i] for i in (0, 1, 3, 4)), clipped  # clipping is seen, and its absence


@pytest.mark.parametrize("dtype, mistake, hint", [
    ("bf16", "no autocast", "run every forward inside `with torch.autocast(device_type, dtype=dtype):`"),
    ("bf16", "loss outside autocast", "compute it inside the autocast region too"),
    ("bf16", "no zero_grad", "zero the gradients after each step"),
    ("bf16", "no clipping", "and nothing clipped it: call torch.nn.utils.clip_grad_norm_"),
    ("bf16", "loss not divided by the micro-batches", "divide each micro-batch's loss by 2"),
    ("bf16", "no no_sync", "all-reduced the gradients after every one of the 2 micro-batches"),
    ("bf16", "no_sync for every micro-batch", "the last micro-batch's forward and backward must run outside no_sync()"),
    ("fp16", "scaled loss unused", "backpropagate the scaled loss, scaler.scale(loss).backward()"),
    ("fp16", "optimizer.step", "call scaler.step(optimizer), not optimizer.step()"),
    ("fp16", "clip before unscale_", "call scaler.unscale_(optimizer) first, then clip"),
])
def test_amp_training_names_the_mistake(dtype, mistake, hint, fails_with):
    with fails_with(hint):
        checks.amp_training(simulate(dtype, mistake))


def test_ranks_whose_weights_drift_apart_fail(fails_with):
    rows = simulate("bf16")
    rows[1]["steps"][1]["weights"] = rows[1]["steps"][0]["weights"]
    with fails_with("rank 1's weights differ from rank 0's"):
        checks.amp_training(rows)


def test_backward_inside_autocast_is_caught_in_the_source(solution_script, fails_with):
    right = solution_script("13_mixed_precision", "13_amp_step.py")
    checks.amp.backward_outside_autocast(right)
    wrong = solution_script("13_mixed_precision", "13_amp_step.py", {
        "                loss = F.cross_entropy(ddp_model(inputs), targets)  # autocast runs the loss in fp32\n"
        "            scaler.scale(loss / len(micro_batches)).backward()":
        "                loss = F.cross_entropy(ddp_model(inputs), targets)  # autocast runs the loss in fp32\n"
        "                scaler.scale(loss / len(micro_batches)).backward()"})
    with fails_with("backward() runs inside the autocast block"):
        checks.amp.backward_outside_autocast(wrong)


def scaler_error(calls):
    """The message torch's GradScaler raises when `calls` ('scale', 'unscale', 'step', 'update') run in this order."""
    model = nn.Linear(2, 1)
    optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
    scaler = torch.amp.GradScaler("cpu")
    try:
        for call in calls:
            if call == "scale":
                scaler.scale(model(torch.ones(1, 2)).sum()).backward()
            elif call == "unscale":
                scaler.unscale_(optimizer)
            elif call == "step":
                scaler.step(optimizer)
            else:
                scaler.update()
    except (RuntimeError, AssertionError) as error:
        return str(error)
    raise AssertionError(f"torch accepted {calls}")


@pytest.mark.parametrize("calls, fix", [
    (["step"], "backpropagate the scaled loss"),
    (["scale", "update"], "not before it"),
    (["scale", "step", "scale", "step"], "call scaler.update() after each scaler.step(optimizer)"),
    (["unscale"], "backpropagate the scaled loss"),
    (["scale", "unscale", "scale", "unscale"], "call scaler.unscale_(optimizer) once per step"),
])
def test_torchs_errors_for_scaler_calls_out_of_order_become_hints(calls, fix):
    hint = checks.amp.order_hint(scaler_error(calls))
    assert fix in hint and "unscale_(optimizer) -> clip -> step(optimizer) -> update()" in hint


def test_other_errors_get_no_order_hint():
    assert checks.amp.order_hint("RuntimeError: mat1 and mat2 shapes cannot be multiplied") is None
