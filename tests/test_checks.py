"""`ddp_lessons.checks` passes the solutions' answers and fails wrong ones with the right hint.

Pure-function checks get wrong functions; record-based checks get the rows a wrong script would
record, built here with plain torch; the checkpoint check runs wrong variants of the solution's
script under torchrun (slow).
"""
import math
import re
from pathlib import Path

import nbformat
import pytest
import torch
from torch.nn import functional as F

from ddp_lessons import backend, checks, sampling

SOLUTIONS = Path(__file__).parents[1] / "solutions"


def fails_with(hint: str):
    return pytest.raises(AssertionError, match=re.escape(hint))


# --- Exercise 1 ----------------------------------------------------------------------------------

def replica_gradients(model, shards, zero=True, reduction="mean", whole_batch=False):
    inputs, targets = torch.cat([x for x, _ in shards]), torch.cat([y for _, y in shards])
    gradients = []
    for x, y in shards:
        if zero:
            model.zero_grad()
        F.mse_loss(model(inputs if whole_batch else x), targets if whole_batch else y,
                   reduction=reduction).backward()
        gradients.append([p.grad.clone() for p in model.parameters()])
    return gradients


def average(per_replica):
    return [torch.stack(grads).mean(dim=0) for grads in zip(*per_replica)]


def test_replica_gradients_pass_the_solution():
    checks.replica_gradients(replica_gradients)


@pytest.mark.parametrize("wrong, hint", [
    (dict(zero=False), "backward() adds to .grad, so zero the gradients"),
    (dict(reduction="sum"), "use the mean loss over the shard"),
    (dict(whole_batch=True), "this is the whole batch's gradient"),
])
def test_replica_gradients_catch(wrong, hint):
    with fails_with(hint):
        checks.replica_gradients(lambda model, shards: replica_gradients(model, shards, **wrong))


def test_untouched_exercise_fails_the_check():
    def untouched(*args):
        raise NotImplementedError()
    with pytest.raises(NotImplementedError):
        checks.replica_gradients(untouched)


def test_averaged_gradients_pass_the_mean_and_catch_sum_and_replica_zero():
    checks.averaged_gradients(average)
    with fails_with("you summed the replicas' gradients; DDP's all-reduce averages them"):
        checks.averaged_gradients(lambda per_replica: [torch.stack(g).sum(0) for g in zip(*per_replica)])
    with fails_with("that is replica 0's gradient alone"):
        checks.averaged_gradients(lambda per_replica: per_replica[0])


# --- Exercise 2 ----------------------------------------------------------------------------------

def setup_rows(nproc=2, **change):
    rows = []
    for rank in range(nproc):
        choice = backend.choose(local_rank=rank, local_world_size=nproc)
        value = [10.0 * rank + i for i in range(3)]
        rows.append({"rank": rank, "world": nproc, "local_rank": rank, "backend": choice.backend,
                     "device": str(choice.device), "cuda_device": choice.device.index,
                     "value_before": value, "value_after": value, "mean": [5.0, 6.0, 7.0],
                     **{k: v(rank) if callable(v) else v for k, v in change.items()}})
    return rows


def test_process_group_setup_passes_the_machines_choice():
    checks.process_group_setup(setup_rows())
    checks.mean_across_ranks(setup_rows())


def test_process_group_setup_catches_a_hard_coded_backend_and_a_wrong_device():
    wrong = "nccl" if backend.gpu_count() < 2 else "gloo"
    with fails_with("pass backend.choose().backend to init_process_group, not a fixed name"):
        checks.process_group_setup(setup_rows(backend=wrong))
    with fails_with("take the device from backend.choose(local_rank)"):
        checks.process_group_setup(setup_rows(device="cuda:7"))
    with fails_with("expected one 'setup' record from each rank 0..1"):
        checks.process_group_setup(setup_rows()[:1])


@pytest.mark.parametrize("change, hint", [
    (dict(mean=[10.0, 12.0, 14.0]), "all_reduce sums by default; divide by dist.get_world_size()"),
    (dict(mean=lambda rank: [10.0 * rank + i for i in range(3)]), "got back its own value"),
    (dict(value_after=lambda rank: [10.0, 12.0, 14.0]), "reduce a copy (value.clone())"),
])
def test_mean_across_ranks_catches(change, hint):
    with fails_with(hint):
        checks.mean_across_ranks(setup_rows(**change))


# --- Exercise 3 ----------------------------------------------------------------------------------

def torchrun_env(node_rank, local_rank, nnodes, nproc_per_node):
    return {"RANK": node_rank * nproc_per_node + local_rank, "LOCAL_RANK": local_rank,
            "WORLD_SIZE": nnodes * nproc_per_node, "LOCAL_WORLD_SIZE": nproc_per_node}


def device_and_backend(env, gpus, rank_key="LOCAL_RANK", ranks_key="LOCAL_WORLD_SIZE", shared="gloo",
                       wrap=True):
    rank, ranks = env[rank_key], env[ranks_key]
    if gpus == 0:
        return "cpu", "gloo"
    if gpus >= ranks:
        return f"cuda:{rank}", "nccl"
    return f"cuda:{rank % gpus if wrap else rank}", shared


def test_torchrun_env_passes_and_catches_a_rank_numbered_the_wrong_way():
    checks.torchrun_env(torchrun_env)
    with fails_with("RANK numbers the workers of the whole job"):
        checks.torchrun_env(lambda node, local, nnodes, nproc: {
            **torchrun_env(node, local, nnodes, nproc), "RANK": local * nnodes + node})
    with fails_with("LOCAL_WORLD_SIZE counts the workers on this node"):
        checks.torchrun_env(lambda *worker: {**torchrun_env(*worker), "LOCAL_WORLD_SIZE": 1})


@pytest.mark.parametrize("wrong, hint", [
    (dict(rank_key="RANK"), "use LOCAL_RANK, not RANK"),
    (dict(ranks_key="WORLD_SIZE"), "not with the whole job (WORLD_SIZE)"),
    (dict(shared="nccl"), "NCCL refuses two ranks on one GPU"),
    (dict(wrap=False), "does not exist on a node with 1 GPU(s)"),
])
def test_device_and_backend_catches(wrong, hint):
    checks.device_and_backend(device_and_backend)
    with fails_with(hint):
        checks.device_and_backend(lambda env, gpus: device_and_backend(env, gpus, **wrong))


# --- Exercise 4 ----------------------------------------------------------------------------------

GRADIENT = [[0.1, -0.2], [0.3]]


def gradient_rows(parameters=([[1.0, 2.0], [0.5]], [[1.0, 2.0], [0.5]]),
                  gradients=(GRADIENT, GRADIENT)):
    return [{"rank": rank, "parameters": parameters[rank], "gradients": gradients[rank],
             "single_process_gradients": GRADIENT} for rank in range(2)]


def test_ddp_gradients_pass_equal_averaged_gradients():
    checks.ddp_gradients(gradient_rows())


@pytest.mark.parametrize("rows, hint", [
    (gradient_rows(parameters=([[1.0, 2.0], [0.5]], [[-1.0, 0.0], [0.2]])), "Did you wrap the model?"),
    (gradient_rows(gradients=(GRADIENT, [[0.3, 0.0], [0.1]])), "run the forward pass through the DDP wrapper"),
    (gradient_rows(gradients=([[0.4, -0.8], [1.2]],) * 2), "the gradients are 4x one process's gradient"),
])
def test_ddp_gradients_catch(rows, hint):
    with fails_with(hint):
        checks.ddp_gradients(rows)


# --- Exercise 5 ----------------------------------------------------------------------------------

def contiguous(size, world, rank, **options):
    """The epoch's padded order cut into one block per rank: the wrong mental model."""
    per_rank = len(sampling.shard_indices(size, world, 0, **options))
    order = [None] * (per_rank * world)
    for r in range(world):
        order[r::world] = sampling.shard_indices(size, world, r, **options)
    return order[rank * per_rank:(rank + 1) * per_rank]


def unpadded(size, world, rank, epoch=0, seed=0, shuffle=True, drop_last=False):
    return sampling.epoch_order(size, epoch, seed, shuffle)[rank::world]


def padded_with_last(size, world, rank, epoch=0, seed=0, shuffle=True, drop_last=False):
    order = sampling.epoch_order(size, epoch, seed, shuffle)
    if drop_last:
        order = order[:size - size % world]
    order += order[-1:] * (math.ceil(size / world) * world - len(order))
    return order[rank::world]


def ignores_drop_last(size, world, rank, epoch=0, seed=0, shuffle=True, drop_last=False):
    return sampling.shard_indices(size, world, rank, epoch=epoch, seed=seed, shuffle=shuffle)


def ignores_epoch(size, world, rank, epoch=0, seed=0, shuffle=True, drop_last=False):
    return sampling.shard_indices(size, world, rank, seed=seed, shuffle=shuffle, drop_last=drop_last)


def never_shuffles(size, world, rank, epoch=0, seed=0, shuffle=True, drop_last=False):
    return sampling.shard_indices(size, world, rank, shuffle=False, drop_last=drop_last)


def test_sampler_shards_pass_the_course_sampler():
    checks.sampler_shards(sampling.shard_indices)


@pytest.mark.parametrize("wrong, hint", [
    (contiguous, "shards must be strided: rank r takes positions r, r+W, r+2W, ... of the epoch's order; "
                 "you returned contiguous blocks"),
    (unpadded, "too few indices: when the size does not divide by world_size, the order is padded"),
    (padded_with_last, "padding must repeat the first indices of the epoch's order"),
    (ignores_drop_last, "with drop_last=True the order is cut to floor(size / world_size) * world_size"),
    (ignores_epoch, "the order must change with the epoch: seed the generator with seed + epoch"),
    (never_shuffles, "with shuffle=True, first permute"),
])
def test_sampler_shards_catch(wrong, hint):
    with fails_with(hint):
        checks.sampler_shards(wrong)


def test_coverage_counts_pass_and_catch_distinct_counting():
    checks.coverage_counts(lambda shards, size: [sum(s.count(i) for s in shards) for i in range(size)])
    with fails_with("padded indices are visited more than once"):
        checks.coverage_counts(lambda shards, size: [int(any(i in s for s in shards)) for i in range(size)])


# --- Exercise 6 ----------------------------------------------------------------------------------

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
    (accumulation_rows(all_reduces=8), "once per micro-batch: run the backward of the first 3 micro-batches"),
    (accumulation_rows(all_reduces=0), "the last micro-batch of each step must run its backward outside"),
    (accumulation_rows(loss_scale=K), "moved the weights 4x too far"),
    (accumulation_rows(zero_grad=False), "zero the gradients after each optimizer step"),
    (accumulation_rows(diverge=True), "the step used gradients that were not all-reduced"),
])
def test_gradient_accumulation_catches(rows, hint):
    with fails_with(hint):
        checks.gradient_accumulation(rows)


# --- Exercise 7 ----------------------------------------------------------------------------------

def epoch_rows(epochs_seen):
    """Records of 2 ranks over 20 samples whose epoch e used the sampler order of epochs_seen[e]."""
    return [{"rank": rank, "size": 20, "seed": 0,
             "visited": [sampling.shard_indices(20, 2, rank, epoch=e) for e in epochs_seen]}
            for rank in range(2)]


def test_set_epoch_used_passes_and_catches_a_missing_or_late_set_epoch():
    checks.set_epoch_used(epoch_rows([0, 1, 2]))
    with fails_with("all 3 epochs visited the data in the same order"):
        checks.set_epoch_used(epoch_rows([0, 0, 0]))
    with fails_with("epoch 1 used epoch 0's order: set_epoch comes too late"):
        checks.set_epoch_used(epoch_rows([0, 0, 1]))


# --- Exercise 8 (launches torchrun) --------------------------------------------------------------

def checkpoint_script(tmp_path, replace):
    """The solution's checkpoint script with `replace` {old: new} applied, written to tmp_path."""
    notebook = nbformat.read(SOLUTIONS / "08_checkpointing.ipynb", as_version=4)
    source = next(c.source for c in notebook.cells if c.source.startswith("%%writefile"))
    source = source.split("\n", 1)[1]
    for old, new in replace.items():
        assert old in source, f"the solution no longer contains {old!r}"
        source = source.replace(old, new)
    path = tmp_path / "checkpoint.py"
    path.write_text(source)
    return path


@pytest.mark.slow
@pytest.mark.parametrize("replace, hint", [
    ({"    dist.barrier()": "    pass"}, "rank 1 called torch.load before rank 0's torch.save had finished"),
    ({"if dist.get_rank() == 0:": "if True:"}, "rank 1 saved too: only rank 0 writes the checkpoint"),
])
def test_checkpointing_catches_every_time(tmp_path, monkeypatch, replace, hint):
    monkeypatch.chdir(tmp_path)
    with fails_with(hint):
        checks.checkpointing(checkpoint_script(tmp_path, replace))


# --- Exercise 9 ----------------------------------------------------------------------------------

def strong(seconds):
    return {w: (seconds[1] / t, seconds[1] / t / w) for w, t in seconds.items()}


def weak(seconds):
    return {w: (w * seconds[1] / t, seconds[1] / t) for w, t in seconds.items()}


def test_scaling_passes_the_formulas():
    checks.strong_scaling(strong)
    checks.weak_scaling(weak)


@pytest.mark.parametrize("wrong, hint", [
    (lambda s: {w: v[::-1] for w, v in strong(s).items()}, "speedup and efficiency are swapped"),
    (lambda s: {w: (t / s[1], t / s[1] / w) for w, t in s.items()}, "speedup is inverted"),
    (lambda s: {w: (s[1] / t, s[1] / t * w) for w, t in s.items()}, "efficiency is speedup / W"),
])
def test_strong_scaling_catches(wrong, hint):
    with fails_with(hint):
        checks.strong_scaling(wrong)


def test_weak_scaling_catches_a_time_ratio_as_speedup():
    with fails_with("speedup is the throughput ratio W * T(1) / T(W), not T(1) / T(W)"):
        checks.weak_scaling(strong)
