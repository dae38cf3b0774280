"""Checks of exercise 2: every rank joins one process group, and all_reduce gives every rank the mean."""

from __future__ import annotations

from ddp_lessons import backend
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
