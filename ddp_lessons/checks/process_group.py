"""Checks of exercise 2: every rank joins one process group, and all_reduce gives every rank the mean."""

from __future__ import annotations

from ddp_lessons import backend, records, scripts
from ddp_lessons.checks.common import Rows, close, expect, fail, passed, ranks_are, recorded
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
    """`setup()` in `script`, run as rank 3 of a simulated job of 2 nodes with 2 GPUs and 2 ranks each (its
    LOCAL_RANK `local_rank`), sets its own GPU current before joining with nccl."""
    import os
    from unittest import mock

    import torch
    import torch.distributed as dist

    nodes, per_node = 2, 2
    rank = per_node + local_rank  # on the second node: a rank that differs from its local rank
    gpu = torch.device(f"cuda:{local_rank}")
    asked: list[int] = []

    def simulated_choose(local=None, *args, local_rank=None, **kwargs):
        """backend.choose on a node with one GPU per rank: nccl and cuda:<the local rank asked for>."""
        local = local if local is not None else local_rank
        local = int(os.environ["LOCAL_RANK"]) if local is None else int(local)
        asked.append(local)
        return backend.Choice("nccl", torch.device(f"cuda:{local}"), 1, "simulated: one GPU per rank")

    module = scripts.load_module(script, "student_setup")
    calls: list[tuple[str, object]] = []
    environment = {"RANK": str(rank), "LOCAL_RANK": str(local_rank), "WORLD_SIZE": str(nodes * per_node),
                   "LOCAL_WORLD_SIZE": str(per_node), "GROUP_RANK": "1"}
    with mock.patch.dict(os.environ, environment), \
            mock.patch.object(backend, "choose", simulated_choose), \
            mock.patch.object(torch.cuda, "set_device", lambda d: calls.append(("set_device", d))), \
            mock.patch.object(dist, "init_process_group",
                              lambda *a, **k: calls.append(("init", k.get("backend", a[0] if a else None)))):
        device = module.setup()
    where = tr("as rank {rank} (LOCAL_RANK {local_rank}) on node 1 of a simulated job of {nodes} nodes with {gpus} "
               "GPUs each", rank=rank, local_rank=local_rank, nodes=nodes, gpus=per_node)
    if asked and asked[0] == rank:
        fail("global-rank", tr("{where}, setup() asked backend.choose for the device of rank {rank}: that node's "
                               "GPUs are cuda:0 to cuda:{last}", where=where, rank=rank, last=per_node - 1),
             tr("a node numbers its GPUs from 0: choose by LOCAL_RANK, this process's index on its own machine "
                "(int(os.environ['LOCAL_RANK'])), not by RANK"))
    names = [name for name, _ in calls]
    joined = [value for name, value in calls if name == "init"]
    expect(joined, "no-init", tr("{where}, setup() never called dist.init_process_group", where=where),
           tr("join the default process group with dist.init_process_group(backend=...)"))
    expect(joined[0] == "nccl", "fixed-backend",
           tr("{where}, setup() joined with {got!r}, not the 'nccl' a GPU per rank calls for", where=where,
              got=joined[0]),
           tr("pass backend.choose(local_rank).backend to init_process_group, not a fixed name"))
    expect("set_device" in names, "no-set-device",
           tr("{where}, setup() never made its GPU current: every rank of the node would use cuda:0", where=where),
           tr("call torch.cuda.set_device(choice.device) before init_process_group"))
    expect(names.index("set_device") < names.index("init"), "late-set-device",
           tr("{where}, setup() made its GPU current only after init_process_group", where=where),
           tr("call torch.cuda.set_device before init_process_group: nccl binds the group to the current device"))
    set_to = [value for name, value in calls if name == "set_device"][0]
    set_to = torch.device("cuda", set_to) if isinstance(set_to, int) else torch.device(set_to)
    expect(set_to == gpu, "wrong-gpu", tr("{where}, setup() made {got} current, not {gpu}", where=where, got=set_to,
                                          gpu=gpu),
           tr("make the device of this rank's LOCAL_RANK current: torch.cuda.set_device(choice.device)"))
    expect(torch.device(device) == gpu, "wrong-device", tr("{where}, setup() returned {got}, not {gpu}", where=where,
                                                           got=device, gpu=gpu),
           tr("return the device backend.choose chose for this rank"))
    passed(tr("as rank {rank} (LOCAL_RANK {local_rank}) on the second of {nodes} simulated nodes, setup() sets {gpu} "
              "and joins with nccl", rank=rank, local_rank=local_rank, nodes=nodes, gpu=gpu))
