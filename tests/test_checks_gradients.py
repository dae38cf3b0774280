"""`checks.gradients` (exercises 1 and 4) passes right gradients and fails wrong ones with the right hint.

Exercise 1's checks get wrong functions; exercise 4's get the rows a wrong script would record.
"""
import pytest
import torch
from torch.nn import functional as F

from ddp_lessons import checks


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
    (gradient_rows(parameters=([[1.0, 2.0], [0.5]], [[-1.0, 0.0], [0.2]])), "Did you wrap the model?"),
    (gradient_rows(gradients=(GRADIENT, [[0.3, 0.0], [0.1]])), "run the forward pass through the DDP wrapper"),
    (gradient_rows(gradients=([[0.4, -0.8], [1.2]],) * 2), "the gradients are 4x one process's gradient"),
])
def test_ddp_gradients_catch(rows, hint, fails_with):
    with fails_with(hint):
        checks.ddp_gradients(rows)
