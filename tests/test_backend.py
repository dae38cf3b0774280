"""Which backend, device and threads a rank gets on each kind of machine."""
import os

import pytest
import torch

from ddp_lessons import backend


def test_cpu_only_machine_gets_gloo_on_cpu():
    choice = backend.choose(local_rank=1, local_world_size=2, gpus=0, cores=8, forced=None)
    assert (choice.backend, choice.device, choice.threads) == ("gloo", torch.device("cpu"), 4)
    assert "no GPU" in choice.describe()


def test_one_gpu_per_rank_gets_nccl_on_its_own_gpu():
    choice = backend.choose(local_rank=3, local_world_size=4, gpus=4, cores=16, forced=None)
    assert (choice.backend, choice.device) == ("nccl", torch.device("cuda", 3))


def test_world_one_on_a_gpu_gets_nccl():
    assert backend.choose(local_rank=0, local_world_size=1, gpus=1, forced=None).backend == "nccl"


def test_ranks_sharing_a_gpu_get_gloo_on_that_gpu():
    choice = backend.choose(local_rank=1, local_world_size=2, gpus=1, forced=None)
    assert (choice.backend, choice.device) == ("gloo", torch.device("cuda", 0))
    assert "share" in choice.reason


def test_forced_gloo_on_gpus_is_respected():
    choice = backend.choose(local_rank=1, local_world_size=2, gpus=2, forced="gloo")
    assert (choice.backend, choice.device) == ("gloo", torch.device("cuda", 1))


def test_forced_nccl_needs_a_gpu_per_rank():
    with pytest.raises(RuntimeError, match="one GPU per local rank"):
        backend.choose(local_rank=0, local_world_size=2, gpus=1, forced="nccl")


def test_environment_from_torchrun_is_read(monkeypatch):
    monkeypatch.setenv("LOCAL_RANK", "1")
    monkeypatch.setenv("LOCAL_WORLD_SIZE", "2")
    monkeypatch.setattr(backend, "gpu_count", lambda: 2)
    monkeypatch.delenv(backend.BACKEND_ENV, raising=False)
    choice = backend.choose()
    assert (choice.backend, choice.device) == ("nccl", torch.device("cuda", 1))
    monkeypatch.setenv(backend.BACKEND_ENV, "gloo")
    assert backend.choose().backend == "gloo"


def test_bad_forced_backend_is_refused():
    with pytest.raises(ValueError, match="choose one of"):
        backend.choose(local_rank=0, local_world_size=1, gpus=0, forced="mpi")


@pytest.mark.parametrize("ranks, cores, threads", [(1, 2, 2), (2, 2, 1), (4, 2, 1), (4, 16, 4), (3, 16, 5)])
def test_threads_never_oversubscribe(ranks, cores, threads):
    assert backend.threads_per_rank(ranks, cores) == threads
    assert ranks * threads <= max(cores, ranks)


def test_a_graders_core_share_sets_the_threads_each_rank_gets(monkeypatch):
    """`grade --jobs N` gives each job DDP_LESSONS_CORES; ranks (and the launcher's default) divide it."""
    monkeypatch.setenv(backend.CORES_ENV, "4")
    assert backend.cpu_cores() == 4
    assert backend.threads_per_rank(2) == 2
    monkeypatch.setenv(backend.CORES_ENV, "")
    assert backend.cpu_cores() == len(os.sched_getaffinity(0))
