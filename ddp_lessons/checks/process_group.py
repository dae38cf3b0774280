"""Checks of exercise 2: every rank joins one process group, and all_reduce gives every rank the mean."""

from __future__ import annotations

from ddp_lessons import backend, scripts
from ddp_lessons.checks.common import Rows, close, passed, ranks_are


def process_group_setup(rows: Rows, nproc: int = 2) -> None:
    """Every rank joined one group of `nproc` with the backend and device this machine needs."""
    ranks_are(rows, nproc, "setup")
    for row in rows:
        rank = row["rank"]
        expected = backend.choose(local_rank=row["local_rank"], local_world_size=nproc)
        assert row["world"] == nproc, f"rank {rank} sees a world of {row['world']}, expected {nproc}"
        assert row["backend"] == expected.backend, (
            f"rank {rank} joined with {row['backend']!r}, but this machine needs {expected.backend!r} "
            f"({expected.reason}): pass backend.choose().backend to init_process_group, not a fixed name")
        assert row["device"] == str(expected.device), (
            f"rank {rank} computes on {row['device']}, expected {expected.device}: take the device "
            "from backend.choose(local_rank), where local_rank = int(os.environ['LOCAL_RANK'])")
        if expected.device.type == "cuda":
            assert row["cuda_device"] == expected.device.index, (
                f"rank {rank}'s current CUDA device is cuda:{row['cuda_device']}, expected "
                f"{expected.device}: call torch.cuda.set_device(device) before init_process_group")
    passed(f"{nproc} ranks joined with {rows[0]['backend']}, {_placement([row['device'] for row in rows])}")


def _placement(devices: list[str]) -> str:
    """'each on its own device: cuda:0, cuda:1', or which ranks share a device (e.g. one GPU)."""
    if len(set(devices)) == len(devices):
        return "each on its own device: " + ", ".join(devices)
    if devices[0] == "cpu" and len(set(devices)) == 1:
        return "all on the CPU (each a process of its own)"
    shared = {d: [r for r, x in enumerate(devices) if x == d] for d in dict.fromkeys(devices)}
    return "; ".join(f"ranks {', '.join(map(str, ranks))} share {d}" if len(ranks) > 1
                     else f"rank {ranks[0]} on {d}" for d, ranks in shared.items())


def mean_across_ranks(rows: Rows) -> None:
    """Every rank gets the mean of all ranks' values, and its own value is left unchanged."""
    total = [sum(column) for column in zip(*(row["value_before"] for row in rows))]
    mean = [value / len(rows) for value in total]
    for row in rows:
        rank, got = row["rank"], row["mean"]
        assert len(rows) == 1 or not close(got, total), (
            f"rank {rank} got the sum {got}: all_reduce sums by default; divide by dist.get_world_size()")
        assert not close(got, row["value_before"]), (
            f"rank {rank} got back its own value {got}: dist.all_reduce(tensor) combines the tensor "
            "across ranks")
        assert close(got, mean), f"rank {rank} got {got}, expected the mean {mean}"
        assert row["value_after"] == row["value_before"], (
            f"rank {rank}'s input changed from {row['value_before']} to {row['value_after']}: "
            "all_reduce works in place, so reduce a copy (value.clone())")
    passed(f"every rank got the mean {mean} and kept its own value")


def setup_on_simulated_gpus(script: str, local_rank: int = 1) -> None:
    """`setup()` in `script`, run with a simulated GPU per rank, sets the device and joins with nccl."""
    import os
    from unittest import mock

    import torch
    import torch.distributed as dist

    gpu = torch.device(f"cuda:{local_rank}")
    fake = backend.Choice("nccl", gpu, 1, "simulated: one GPU per rank")
    module = scripts.load_module(script, "student_setup")
    calls: list[tuple[str, object]] = []
    with mock.patch.dict(os.environ, {"LOCAL_RANK": str(local_rank)}), \
            mock.patch.object(backend, "choose", lambda *a, **k: fake), \
            mock.patch.object(torch.cuda, "set_device", lambda d: calls.append(("set_device", d))), \
            mock.patch.object(dist, "init_process_group",
                              lambda *a, **k: calls.append(("init", k.get("backend", a[0] if a else None)))):
        device = module.setup()
    names = [name for name, _ in calls]
    joined = [value for name, value in calls if name == "init"]
    assert joined, "setup() never called dist.init_process_group"
    assert joined[0] == "nccl", (
        f"with a GPU per rank setup() joined with {joined[0]!r}, not 'nccl': pass "
        "backend.choose(local_rank).backend to init_process_group, not a fixed name")
    assert "set_device" in names, (
        "with a GPU per rank setup() never called torch.cuda.set_device: every rank would use cuda:0; "
        "call torch.cuda.set_device(choice.device) before init_process_group")
    assert names.index("set_device") < names.index("init"), (
        "setup() called torch.cuda.set_device after init_process_group: call it before")
    set_to = [value for name, value in calls if name == "set_device"][0]
    set_to = torch.device("cuda", set_to) if isinstance(set_to, int) else torch.device(set_to)
    assert set_to == gpu, f"setup() set the CUDA device to {set_to}, expected {gpu} (LOCAL_RANK)"
    assert torch.device(device) == gpu, f"setup() returned {device}, expected {gpu}"
    passed(f"with a simulated GPU per rank, setup() sets {gpu} and joins with nccl")
