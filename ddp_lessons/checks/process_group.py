"""Checks of exercise 2: every rank joins one process group, and all_reduce gives every rank the mean."""

from __future__ import annotations

from ddp_lessons import backend, records, scripts
from ddp_lessons.checks.common import Rows, close, passed, ranks_are, recorded
from ddp_lessons.i18n import tr


@recorded("02")
def process_group_setup(rows: Rows, nproc: int = 2) -> None:
    """Every rank joined one group of `nproc` with the backend and device this machine needs."""
    ranks_are(rows, nproc, "setup")
    for row in rows:
        rank = row["rank"]
        expected = backend.choose(local_rank=row["local_rank"], local_world_size=nproc)
        assert row["world"] == nproc, tr("rank {rank} sees a world of {world}, expected {nproc}",
                                         rank=rank, world=row["world"], nproc=nproc)
        assert row["backend"] == expected.backend, tr(
            "rank {rank} joined with {got!r}, but this machine needs {expected!r} ({reason}): pass "
            "backend.choose().backend to init_process_group, not a fixed name",
            rank=rank, got=row["backend"], expected=expected.backend, reason=expected.reason)
        assert row["device"] == str(expected.device), tr(
            "rank {rank} computes on {got}, expected {expected}: take the device from "
            "backend.choose(local_rank), where local_rank = int(os.environ['LOCAL_RANK'])",
            rank=rank, got=row["device"], expected=expected.device)
        if expected.device.type == "cuda":
            assert row["cuda_device"] == expected.device.index, tr(
                "rank {rank}'s current CUDA device is cuda:{got}, expected {expected}: call "
                "torch.cuda.set_device(device) before init_process_group",
                rank=rank, got=row["cuda_device"], expected=expected.device)
    passed(tr("{nproc} ranks joined with {backend}, {placement}", nproc=nproc, backend=rows[0]["backend"],
              placement=_placement([row["device"] for row in rows])))


def _placement(devices: list[str]) -> str:
    """'each on its own device: cuda:0, cuda:1', or which ranks share a device (e.g. one GPU)."""
    if len(set(devices)) == len(devices):
        return tr("each on its own device: {devices}", devices=", ".join(devices))
    if devices[0] == "cpu" and len(set(devices)) == 1:
        return tr("all on the CPU (each a process of its own)")
    shared = {d: [r for r, x in enumerate(devices) if x == d] for d in dict.fromkeys(devices)}
    return "; ".join(tr("ranks {ranks} share {device}", ranks=", ".join(map(str, ranks)), device=d)
                     if len(ranks) > 1 else tr("rank {rank} on {device}", rank=ranks[0], device=d)
                     for d, ranks in shared.items())


@recorded("02")
def launched_records(run, name: str = "setup") -> Rows:
    """What the ranks of an earlier check cell's launch (`run`, None if it failed) recorded as `name`."""
    assert run is not None, tr(
        "the launch in the check cell above must succeed first: this check reads what its ranks recorded "
        "(fix the script until that cell runs without error)")
    return records.load(run.run_dir, name)


@recorded("02")
def mean_across_ranks(rows: Rows) -> None:
    """Every rank gets the mean of all ranks' values, and its own value is left unchanged."""
    total = [sum(column) for column in zip(*(row["value_before"] for row in rows))]
    mean = [value / len(rows) for value in total]
    for row in rows:
        rank, got = row["rank"], row["mean"]
        assert len(rows) == 1 or not close(got, total), tr(
            "rank {rank} got the sum {got}: all_reduce sums by default; divide by dist.get_world_size()",
            rank=rank, got=got)
        assert not close(got, row["value_before"]), tr(
            "rank {rank} got back its own value {got}: dist.all_reduce(tensor) combines the tensor across ranks",
            rank=rank, got=got)
        assert close(got, mean), tr("rank {rank} got {got}, expected the mean {mean}", rank=rank, got=got, mean=mean)
        assert row["value_after"] == row["value_before"], tr(
            "rank {rank}'s input changed from {before} to {after}: all_reduce works in place, so reduce a copy "
            "(value.clone())", rank=rank, before=row["value_before"], after=row["value_after"])
    passed(tr("every rank got the mean {mean} and kept its own value", mean=mean))


@recorded("02")
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
    assert joined, tr("setup() never called dist.init_process_group")
    assert joined[0] == "nccl", tr(
        "with a GPU per rank setup() joined with {got!r}, not 'nccl': pass "
        "backend.choose(local_rank).backend to init_process_group, not a fixed name", got=joined[0])
    assert "set_device" in names, tr(
        "with a GPU per rank setup() never called torch.cuda.set_device: every rank would use cuda:0; "
        "call torch.cuda.set_device(choice.device) before init_process_group")
    assert names.index("set_device") < names.index("init"), tr(
        "setup() called torch.cuda.set_device after init_process_group: call it before")
    set_to = [value for name, value in calls if name == "set_device"][0]
    set_to = torch.device("cuda", set_to) if isinstance(set_to, int) else torch.device(set_to)
    assert set_to == gpu, tr("setup() set the CUDA device to {got}, expected {gpu} (LOCAL_RANK)", got=set_to, gpu=gpu)
    assert torch.device(device) == gpu, tr("setup() returned {got}, expected {gpu}", got=device, gpu=gpu)
    passed(tr("with a simulated GPU per rank, setup() sets {gpu} and joins with nccl", gpu=gpu))
