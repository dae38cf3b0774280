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


@pytest.mark.parametrize("gpus, ranks, device_id", [
    (0, 2, None),                        # CPU: gloo has no device to bind
    (1, 1, torch.device("cuda", 0)),     # 1 GPU, 1 rank: nccl on it
    (1, 2, None),                        # 1 GPU shared by 2 ranks: gloo
    (2, 2, torch.device("cuda", 1)),     # each rank its own GPU: nccl, bound to local rank 1's
    (4, 4, torch.device("cuda", 1)),
])
def test_init_process_group_gets_a_device_id_only_under_nccl(gpus, ranks, device_id):
    choice = backend.choose(local_rank=min(1, ranks - 1), local_world_size=ranks, gpus=gpus, forced=None)
    assert choice.device_id == device_id
    assert (choice.device_id is not None) == (choice.backend == "nccl")


def test_every_course_script_passes_device_id_to_init_process_group():
    """nccl's barrier() warns (and may guess the wrong GPU) in a group that was given no device."""
    import re

    from ddp_lessons.diffs import written_scripts
    from helpers import NOTEBOOKS, ROOT, SOLUTIONS
    sources = {str(p.relative_to(ROOT)): p.read_text() for p in (ROOT / "ddp_lessons" / "scripts").glob("*.py")}
    for folder in (NOTEBOOKS, SOLUTIONS):
        for nb in sorted(folder.glob("*.ipynb")):
            for path, text in written_scripts(nb):
                sources[f"{nb.relative_to(ROOT)}: {path}"] = text
    calls = {name: re.findall(r"dist\.init_process_group\((.*)\)", text) for name, text in sources.items()}
    calls = {name: [c for c in found if not c.startswith(('"gloo"', 'backend="gloo"'))]  # CPU-only
             for name, found in calls.items()}
    calls = {name: found for name, found in calls.items() if found}
    assert len(calls) >= 10
    missing = [name for name, found in calls.items() if any("device_id=" not in c for c in found)]
    assert not missing, f"init_process_group without device_id= in {missing}"


def test_launcher_threads_are_what_ranks_use(monkeypatch):
    monkeypatch.setenv(backend.THREADS_ENV, "3")
    assert backend.choose(local_rank=0, local_world_size=1, gpus=0, forced=None).threads == 3
    assert backend.choose(local_rank=0, local_world_size=1, gpus=0, cores=8).threads == 8  # explicit
    monkeypatch.delenv(backend.THREADS_ENV)
    assert backend.choose(local_rank=0, local_world_size=2, gpus=0, cores=8).threads == 4


def test_gloo_forced_by_the_launcher_says_why(monkeypatch):
    monkeypatch.setenv(backend.BACKEND_REASON_ENV, "simulated nodes share 2 GPU(s)")
    choice = backend.choose(local_rank=1, local_world_size=2, gpus=2, forced="gloo")
    assert (choice.backend, choice.reason) == ("gloo", "simulated nodes share 2 GPU(s)")


@pytest.mark.slow
@pytest.mark.parametrize("gpus", [1, 2])
def test_simulated_nodes_see_their_own_gpus_or_none_and_say_why(monkeypatch, tmp_path, gpus):
    """2 nodes x 2 ranks: with 2 GPUs each node gets one (its ranks share it over gloo); with 1 GPU
    no node gets one (gloo on CPU, and the reason says why); threads are cores // 4 ranks."""
    from ddp_lessons import launch, records
    from pathlib import Path
    monkeypatch.delenv("CUDA_VISIBLE_DEVICES", raising=False)
    monkeypatch.setattr(launch._backend, "gpu_count", lambda: gpus)
    monkeypatch.setattr(launch._backend, "cpu_cores", lambda: 4)
    script = Path(__file__).parent / "scripts" / "choice_on_fake_gpus.py"
    launch.run_torchrun(script, nproc=2, nnodes=2, run_dir=tmp_path, timeout=90, echo=False)
    rows = records.load(tmp_path, "choice")
    assert all(r["threads"] == 1 for r in rows)  # 4 cores // 4 ranks, not 4 // LOCAL_WORLD_SIZE
    if gpus == 2:
        assert [r["visible"] for r in rows] == [["0"], ["0"], ["1"], ["1"]] or \
            [r["visible"] for r in rows] == [["1"], ["1"], ["0"], ["0"]]  # c10d may number either node 0
        assert [(r["backend"], r["device"]) for r in rows] == [("gloo", "cuda:0")] * 4
        assert all(r["reason"] == "2 ranks share 1 GPU(s): nccl allows one rank per GPU" for r in rows)
    else:
        assert all(r["visible"] == [] and (r["backend"], r["device"]) == ("gloo", "cpu") for r in rows)
        assert all(r["reason"] == "1 GPU(s) cannot be split over 2 simulated nodes, so no node sees one: "
                   "gloo on CPU" for r in rows)


def test_a_graders_core_share_sets_the_threads_each_rank_gets(monkeypatch):
    """`grade --jobs N` gives each job DDP_LESSONS_CORES; ranks (and the launcher's default) divide it."""
    monkeypatch.setenv(backend.CORES_ENV, "4")
    assert backend.cpu_cores() == 4
    assert backend.threads_per_rank(2) == 2
    monkeypatch.setenv(backend.CORES_ENV, "")
    assert backend.cpu_cores() == len(os.sched_getaffinity(0))
