"""`checks.gradients` (exercises 1 and 4) passes right gradients and fails wrong ones with the right hint.

Exercise 1's checks get wrong functions; exercise 4's get the rows a wrong script would record, and wrong
scripts whose forward_backward runs here on simulated nodes.
"""
import re

import pytest
import torch
from torch.nn import functional as F

from ddp_lessons import checks
from ddp_lessons.checks import common, gradients


@pytest.fixture
def fresh_kernel(monkeypatch):
    """Checks fail as in a fresh kernel: no hint given yet."""
    monkeypatch.setattr(common, "_given", common.Counter())


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
def test_replica_gradients_catch(wrong, hint, fails_with):
    with fails_with(hint):
        checks.replica_gradients(lambda model, shards: replica_gradients(model, shards, **wrong))


def test_untouched_exercise_fails_the_check():
    def untouched(*args):
        raise NotImplementedError()
    with pytest.raises(NotImplementedError):
        checks.replica_gradients(untouched)


def test_averaged_gradients_pass_the_mean_and_catch_sum_and_replica_zero(fails_with):
    checks.averaged_gradients(average)
    with fails_with("you summed the replicas' gradients; DDP's all-reduce averages them"):
        checks.averaged_gradients(lambda per_replica: [torch.stack(g).sum(0) for g in zip(*per_replica)])
    with fails_with("that is replica 0's gradient alone"):
        checks.averaged_gradients(lambda per_replica: per_replica[0])


# --- Exercise 4 ----------------------------------------------------------------------------------

GRADIENT = [[0.1, -0.2], [0.3]]


def gradient_rows(parameters=([[1.0, 2.0], [0.5]], [[1.0, 2.0], [0.5]]),
                  gradients=(GRADIENT, GRADIENT)):
    return [{"rank": rank, "parameters": parameters[rank], "gradients": gradients[rank],
             "single_process_gradients": GRADIENT} for rank in range(2)]


def test_ddp_gradients_pass_equal_averaged_gradients():
    checks.ddp_gradients(gradient_rows())


@pytest.mark.parametrize("rows, hint", [
    (gradient_rows(parameters=([[1.0, 2.0], [0.5]], [[-1.0, 0.0], [0.2]])), "rank 1's weights differ from rank 0's"),
    (gradient_rows(gradients=(GRADIENT, [[0.3, 0.0], [0.1]])), "rank 1's gradients differ from rank 0's"),
    (gradient_rows(gradients=([[0.4, -0.8], [1.2]],) * 2), "the gradients are 4x one process's gradient"),
])
def test_ddp_gradients_catch(rows, hint, fails_with):
    with fails_with(hint):
        checks.ddp_gradients(rows)


def test_ddp_gradients_name_the_symptom_first_then_the_fix(fresh_kernel):
    rows = gradient_rows(gradients=(GRADIENT, [[0.3, 0.0], [0.1]]))
    with pytest.raises(common.CheckFailed, match="rank 1's gradients differ from rank 0's") as first:
        checks.ddp_gradients(rows)
    assert first.value.hint == "not-through-wrapper" and "DDP wrapper" not in str(first.value)
    with pytest.raises(common.CheckFailed, match="How to fix it: run the forward pass through the DDP wrapper"):
        checks.ddp_gradients(rows)


# --- Exercise 4: device_ids on simulated nodes (the student's function runs here, DDP replaced) ---------

SCRIPT = '''
import os
import torch
import torch.distributed as dist
import torch.nn.functional as F
from torch.nn.parallel import DistributedDataParallel as DDP


def forward_backward(model, device, inputs, targets):
{body}
'''


def wrap_script(tmp_path, body):
    """A script whose forward_backward wraps with `body`'s DDP call (then the forward and backward)."""
    path = tmp_path / "04_wrap.py"
    path.write_text(SCRIPT.format(body="\n".join("    " + line for line in body.splitlines())
                                  + "\n    F.mse_loss(ddp_model(inputs), targets).backward()"))
    return path


RIGHT = {
    "device-index": 'ddp_model = DDP(model, device_ids=[device.index]) if device.type == "cuda" else DDP(model)',
    "local-rank-env": ('local_rank = int(os.environ["LOCAL_RANK"])\n'
                       'ddp_model = DDP(model, device_ids=[local_rank]) if torch.cuda.is_available() else DDP(model)'),
    "the-device-itself": 'ddp_model = DDP(model, device_ids=[device] if device.type == "cuda" else None)',
    "no-device-ids": "ddp_model = DDP(model)",
    "torch-name": ('ddp_model = torch.nn.parallel.DistributedDataParallel(\n'
                   '    model, device_ids=[torch.cuda.current_device()] if device.type == "cuda" else None)'),
}


@pytest.mark.parametrize("body", RIGHT.values(), ids=RIGHT.keys())
def test_device_ids_on_every_node_pass_a_rank_s_own_gpu(tmp_path, body, capsys):
    checks.device_ids_on_every_node(wrap_script(tmp_path, body))
    assert capsys.readouterr().out.startswith("✓ on simulated jobs (2 nodes, 2 ranks and 2 GPUs per node; ")


@pytest.mark.parametrize("body, hint, symptom, fix", [
    ('ddp_model = DDP(model, device_ids=[dist.get_rank()]) if device.type == "cuda" else DDP(model)', "global-rank",
     "on a simulated job with 2 nodes, 2 ranks and 2 GPUs per node, rank 2 (LOCAL_RANK 0, its model on cuda:0) "
     "asked DDP for GPU 2: its node's GPUs are cuda:0 to cuda:1", "not the global rank dist.get_rank()"),
    ('rank = int(os.environ["RANK"])\n'
     'ddp_model = DDP(model, device_ids=[rank]) if device.type == "cuda" else DDP(model)', "global-rank",
     "rank 2 (LOCAL_RANK 0, its model on cuda:0) asked DDP for GPU 2", "device_ids=[device.index] (its LOCAL_RANK)"),
    ('ddp_model = DDP(model, device_ids=[dist.get_rank() % 2]) if device.type == "cuda" else DDP(model)',
     "wrong-gpu", "2 nodes, 3 ranks and 3 GPUs per node, rank 2 (LOCAL_RANK 2, its model on cuda:2) asked DDP for "
     "device_ids=[0]", "the one GPU this rank computes on"),
    ("ddp_model = DDP(model, device_ids=[device.index])", "cpu-device-ids",
     "on CPU ranks, forward_backward gave DDP device_ids=[None]", "on the CPU call DDP(model)"),
    ("ddp_model = model", "no-ddp", "forward_backward never called DDP(...)", "wrap the model"),
    ('ddp_model = DDP(model, device_ids=[int(os.environ["LOCAL_WORLD_RANK"])])', "raised", "forward_backward raised KeyError",
     "take the GPU from `device`"),
], ids=["dist-get-rank", "rank-env", "two-gpus-per-node", "device-ids-on-cpu", "no-ddp", "raises"])
def test_device_ids_on_every_node_reject_another_node_s_gpu(tmp_path, body, hint, symptom, fix, fresh_kernel):
    script = wrap_script(tmp_path, body)
    with pytest.raises(common.CheckFailed, match=re.escape(symptom)) as first:
        checks.device_ids_on_every_node(script)
    assert first.value.hint == hint and fix not in str(first.value)
    with pytest.raises(common.CheckFailed, match=re.escape(fix)):
        checks.device_ids_on_every_node(script)


def test_device_ids_on_every_node_says_the_stub_is_still_there(tmp_path):
    script = wrap_script(tmp_path, "# YOUR CODE HERE\nraise NotImplementedError()")
    with pytest.raises(AssertionError, match="still raises NotImplementedError"):
        checks.device_ids_on_every_node(script)


def test_ddp_device_ids_simulates_nodes_with_more_gpus_than_ranks(tmp_path):
    """What the kit's hidden check uses: rank % device_count() fits nodes with a GPU per rank, not these."""
    modulo = wrap_script(tmp_path, "ddp_model = DDP(model, device_ids=[dist.get_rank() % torch.cuda.device_count()])")
    assert gradients.ddp_device_ids(modulo, nodes=2, ranks_per_node=2) == [[0], [1], [0], [1]]
    assert gradients.ddp_device_ids(modulo, nodes=2, ranks_per_node=2, gpus_per_node=4) == [[0], [1], [2], [3]]
