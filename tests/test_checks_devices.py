"""`checks.devices` (exercise 3) passes torchrun's rank variables and the device rule; hints at wrong ones."""
import pytest

from ddp_lessons import checks


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


def test_torchrun_env_passes_and_catches_a_rank_numbered_the_wrong_way(fails_with):
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
def test_device_and_backend_catches(wrong, hint, fails_with):
    checks.device_and_backend(device_and_backend)
    with fails_with(hint):
        checks.device_and_backend(lambda env, gpus: device_and_backend(env, gpus, **wrong))
