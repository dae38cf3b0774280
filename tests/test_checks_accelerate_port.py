"""`checks.accelerate_port` (exercise 14) passes a faithful port and names what a wrong one got wrong.

The records are built here as 2 ranks would write them: the DDP script's after 2 epochs, and the
port's after its first epoch and after it resumed, with one field changed per mistake (the numbers
for a missing `accumulate` and for `gather` are what the solution's script recorded with that mistake
put in). A port that never resumes fails in a real run, at the end.
"""
import copy

import pytest

from ddp_lessons import checks

WEIGHTS = {"0.weight": [[0.1, -0.2], [0.3, 0.4]], "0.bias": [0.01, -0.02]}


def shifted(weights, by):
    return {name: [[v + by for v in row] if isinstance(row, list) else row + by for row in values]
            for name, values in weights.items()}


DDP_ROWS = [{"rank": r, "first_epoch": 0, "optimizer_steps": 16, "samples_seen": 512, "mse": 0.4298,
             "eval_samples": 512, "weights": WEIGHTS} for r in range(2)]
PORT = {"num_processes": 2, "distributed_type": "DistributedType.MULTI_CPU", "model_type": "DistributedDataParallel",
        "sampler": "SeedableRandomSampler", "optimizer_steps": 8, "samples_seen": 256, "mse": 0.42980001,
        "eval_samples": 512, "weights": shifted(WEIGHTS, 3e-7)}
FIRST_ROWS = [{"rank": r, **PORT, "first_epoch": 0} for r in range(2)]
RESUMED_ROWS = [{"rank": r, **PORT, "first_epoch": 1} for r in range(2)]


def rows(base, **changes):
    changed = copy.deepcopy(base)
    for row in changed:
        row.update(changes)
    return changed


def test_a_faithful_port_passes(capsys):
    checks.accelerate_port(DDP_ROWS, FIRST_ROWS, RESUMED_ROWS)
    out = capsys.readouterr().out
    assert "8 optimizer steps" in out and "resumed at epoch 1" in out and "within 1e-05" in out


@pytest.mark.parametrize("first, resumed, hint", [
    # no cpu=True on a machine without GPUs: every process alone
    (rows(FIRST_ROWS, num_processes=1, distributed_type="DistributedType.NO"), RESUMED_ROWS,
     "Accelerator(cpu=True)"),
    # the model not passed to prepare
    (rows(FIRST_ROWS, model_type="Sequential"), RESUMED_ROWS, "pass it to accelerator.prepare"),
    # the loader not passed to prepare: the whole dataset in every process
    (rows(FIRST_ROWS, samples_seen=512), RESUMED_ROWS, "pass the DataLoader to accelerator.prepare"),
    # no accelerator.accumulate (or no gradient_accumulation_steps): a step after every batch
    (rows(FIRST_ROWS, optimizer_steps=16), RESUMED_ROWS, "with accelerator.accumulate(model):"),
    # the epoch not registered, or no resume: the second run starts over
    (FIRST_ROWS, rows(RESUMED_ROWS, first_epoch=0), "accelerator.register_for_checkpointing(progress)"),
    # accelerator.gather instead of gather_for_metrics: the padded samples counted
    (FIRST_ROWS, rows(RESUMED_ROWS, eval_samples=600), "gather with accelerator.gather_for_metrics"),
    # each process's own share, never gathered
    (FIRST_ROWS, rows(RESUMED_ROWS, eval_samples=300), "results of all processes"),
    # the shuffle not seeded like DistributedSampler's
    (rows(FIRST_ROWS, sampler="RandomSampler"), rows(RESUMED_ROWS, weights=shifted(WEIGHTS, 1e-3)),
     "use_seedable_sampler=True"),
    # loss.backward() instead of accelerator.backward: the loss not divided by the accumulation steps
    (FIRST_ROWS, rows(RESUMED_ROWS, weights=shifted(WEIGHTS, 1e-3)), "accelerator.backward(loss) inside"),
    # an evaluation that averages something else (e.g. per-batch means of uneven batches)
    (FIRST_ROWS, rows(RESUMED_ROWS, mse=0.44), "each counted once"),
], ids=["no-cpu", "model-not-prepared", "loader-not-prepared", "no-accumulate", "no-resume", "gather-padding",
        "not-gathered", "unseeded-shuffle", "loss-not-divided", "wrong-mean"])
def test_a_wrong_port_fails_with_the_hint(first, resumed, hint, fails_with):
    with fails_with(hint):
        checks.accelerate_port(DDP_ROWS, first, resumed)


def test_processes_that_end_apart_fail():
    resumed = rows(RESUMED_ROWS)
    resumed[1]["weights"] = shifted(WEIGHTS, 0.5)
    with pytest.raises(AssertionError, match="other weights than process 0"):
        checks.accelerate_port(DDP_ROWS, FIRST_ROWS, resumed)


@pytest.mark.slow
@pytest.mark.extended  # the verdict is tested from records above; this is its real run
def test_a_port_that_does_not_resume_is_told_to_call_resume(tmp_path, monkeypatch, fails_with, solution_script):
    """Run again with its snapshot folder, a port without resume writes checkpoint_0 again and fails."""
    monkeypatch.chdir(tmp_path)
    ddp = solution_script("14_accelerate", "14_ddp.py")
    port = solution_script("14_accelerate", "14_port.py", {
        "    accelerator.register_for_checkpointing(progress)  # the epoch goes into every snapshot\n": "",
        "    resume(accelerator, args.snapshot)  # after prepare: load_state fills the prepared objects\n": ""})
    with fails_with("call resume(accelerator, args.snapshot) after accelerator.prepare"):
        checks.accelerate_port_run(ddp, port, nproc=2)
