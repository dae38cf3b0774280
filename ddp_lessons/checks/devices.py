"""Checks of exercise 3: torchrun's rank variables, and each worker's device and backend, on 1-3 nodes."""

from __future__ import annotations

import itertools
from typing import Callable, Iterator, Sequence

from ddp_lessons import backend
from ddp_lessons.checks.common import passed, recorded
from ddp_lessons.i18n import tr


def _env_hint(key: str) -> str:
    """What one torchrun variable means, as a hint."""
    return {
        "RANK": tr("RANK numbers the workers of the whole job: node_rank * nproc_per_node + local_rank"),
        "LOCAL_RANK": tr("LOCAL_RANK numbers the workers on one node, from 0"),
        "WORLD_SIZE": tr("WORLD_SIZE counts every worker of the job: nnodes * nproc_per_node"),
        "LOCAL_WORLD_SIZE": tr("LOCAL_WORLD_SIZE counts the workers on this node: nproc_per_node"),
    }[key]


def _torchrun_env(node_rank: int, local_rank: int, nnodes: int, nproc_per_node: int) -> dict[str, int]:
    """The rank variables torchrun sets for one worker."""
    return {"RANK": node_rank * nproc_per_node + local_rank, "LOCAL_RANK": local_rank,
            "WORLD_SIZE": nnodes * nproc_per_node, "LOCAL_WORLD_SIZE": nproc_per_node}


def _workers(layouts: Sequence[tuple[int, int]]) -> Iterator[tuple[int, int, int, int]]:
    """(node_rank, local_rank, nnodes, nproc_per_node) of every worker of every (nnodes, nproc) job."""
    for nnodes, nproc in layouts:
        for node_rank, local_rank in itertools.product(range(nnodes), range(nproc)):
            yield node_rank, local_rank, nnodes, nproc


@recorded("03")
def torchrun_env(student_fn: Callable) -> None:
    """The rank variables torchrun sets for every worker of single- and multi-node jobs."""
    for worker in _workers([(1, 2), (2, 4), (3, 2), (2, 1)]):
        expected = _torchrun_env(*worker)
        got = student_fn(*worker)
        for key, value in expected.items():
            assert got.get(key) == value, tr(
                "node {node} of {nnodes}, local rank {local_rank} of {nproc}: {key} should be {value}, "
                "got {got!r}. {hint}", node=worker[0], nnodes=worker[2], local_rank=worker[1], nproc=worker[3],
                key=key, value=value, got=got.get(key), hint=_env_hint(key))
    passed(tr("RANK, LOCAL_RANK, WORLD_SIZE and LOCAL_WORLD_SIZE match torchrun's for 1-3 nodes"))


def _device_hint(got: tuple[str, str], env: dict[str, int], gpus: int) -> str:
    """What the (device, backend) `got` most likely got wrong, as a hint."""
    device, name = got
    rank, local_rank, local_world = env["RANK"], env["LOCAL_RANK"], env["LOCAL_WORLD_SIZE"]
    by_world = backend.choose(local_rank=local_rank, local_world_size=env["WORLD_SIZE"], gpus=gpus, cores=1)
    if gpus and rank != local_rank and device in (f"cuda:{rank}", f"cuda:{rank % gpus}"):
        return tr("use LOCAL_RANK, not RANK: every node numbers its GPUs from 0, while RANK counts "
                  "the workers of all nodes")
    if name == "nccl" and gpus == 0:
        return tr("nccl needs GPUs: on CPU use gloo")
    if name == "nccl" and gpus < local_world:
        return tr("NCCL refuses two ranks on one GPU ('Duplicate GPU detected'): when the ranks of a "
                  "node share its GPUs, use gloo")
    if got == (str(by_world.device), by_world.backend):
        return tr("compare the node's GPUs with the ranks on this node (LOCAL_WORLD_SIZE), "
                  "not with the whole job (WORLD_SIZE)")
    if gpus == 0:
        return tr("this node has no GPU: use 'cpu'")
    if not device.startswith("cuda:"):
        return tr("the node has GPUs: use one, named with its index, e.g. 'cuda:0'")
    if int(device.split(":")[1]) >= gpus:
        return tr("{device} does not exist on a node with {gpus} GPU(s): ranks share them as "
                  "cuda:(LOCAL_RANK % gpus)", device=device, gpus=gpus)
    if name == "gloo" and gpus >= local_world:
        return tr("every rank has a GPU of its own here: use nccl, the GPU backend")
    return tr("follow the rule of lesson 3")


@recorded("03")
def device_and_backend(student_fn: Callable) -> None:
    """Each worker's device and backend follow the course's rule on nodes with 0, 1, 2 or 4 GPUs."""
    for gpus in (0, 1, 2, 4):
        for worker in _workers([(1, 1), (1, 2), (2, 2), (2, 4)]):
            env = _torchrun_env(*worker)
            choice = backend.choose(local_rank=env["LOCAL_RANK"], local_world_size=env["LOCAL_WORLD_SIZE"],
                                    gpus=gpus, cores=1)
            expected = (str(choice.device), choice.backend)
            device, name = student_fn(dict(env), gpus)
            got = (str(device), name)
            assert got == expected, tr(
                "worker RANK={rank} (LOCAL_RANK={local_rank}, {nproc} per node, {nnodes} node(s)) on a node "
                "with {gpus} GPU(s): expected {expected}, got {got}. {hint}", rank=env["RANK"],
                local_rank=env["LOCAL_RANK"], nproc=worker[3], nnodes=worker[2], gpus=gpus, expected=expected,
                got=got, hint=_device_hint(got, env, gpus))
    passed(tr("devices and backends are right for 1-2 nodes of 1-4 ranks with 0-4 GPUs"))
