"""Communication benchmark for lesson 16 (`python -m ddp_lessons bench-comm` launches it with torchrun).

Every rank, in a joined process group, runs:

* `sweep_worlds`: `dist.all_reduce` of each message size after a barrier, several times, on 2, 3,
  ... ranks (subgroups of the first ranks);
* per model, `profile_model`: the plain model's steps (no DDP, nothing sent) and when each
  parameter's gradient is ready during backward (hooks);
* per model and bucket size, `run_ddp`: the buckets DDP actually all-reduces (a comm hook) and step
  times with communication and without (`no_sync`), every step started together on all ranks.

The lesson's live ranks import the same functions. Run it by path under torchrun (``tooling.comm_bench``
does) with ``--plan plan.json``; each rank writes its record ``bench_comm``.
"""

import time

PROCESS_STARTED_AT = time.time()

import argparse
import contextlib
import gc
import json
import statistics
from pathlib import Path
from typing import Sequence

import torch
import torch.distributed as dist
import torch.nn as nn
from torch.nn.parallel import DistributedDataParallel as DDP

from ddp_lessons import backend, records, timing
from ddp_lessons.i18n import tr
from ddp_lessons.scripts import bench_train

MODELS = ("cnn", "mlp", "deep")
LIVE_RANKS = 3
"""Ranks lesson 16 starts: the smallest ring where left and right neighbours differ."""


def build_model(name: str) -> nn.Module:
    """Lesson 9's 'cnn' (compute-bound) and 'mlp' (communication-bound), or 'deep': a 6-layer MLP
    with 4.7 M parameters (19 MB of gradients) whose gradients are ready layer after layer."""
    if name != "deep":
        return bench_train.build_model(name)
    torch.manual_seed(0)
    width = 768
    layers = [nn.Flatten(), nn.Linear(3 * 32 * 32, width), nn.ReLU()]
    for _ in range(4):
        layers += [nn.Linear(width, width), nn.ReLU()]
    return nn.Sequential(*layers, nn.Linear(width, bench_train.CLASSES))


def measuring_world(devices: int | None = None, live: int = LIVE_RANKS) -> int:
    """How many ranks measure: one per GPU (or CPU core), at least 2, at most `live`. More ranks
    than cores would time the scheduler sharing the cores, not the all-reduce (lesson 9)."""
    devices = devices if devices is not None else (backend.gpu_count() or backend.cpu_cores())
    return min(live, max(2, devices))


def subgroup(n: int):
    """The process group of ranks 0..n-1 (None: the whole world). Every rank must call it: nccl when
    each of them has a GPU of its own (backend.choose's rule), else the world's backend."""
    if n == dist.get_world_size():
        return None
    gpus = backend.gpu_count()
    return dist.new_group(list(range(n)), backend="nccl" if gpus >= n else dist.get_backend())


def synchronize(device: torch.device) -> None:
    """Wait for queued GPU work (a CUDA collective returns once queued); nothing on CPU."""
    if device.type == "cuda":
        torch.cuda.synchronize(device)


def allreduce_sweep(sizes: Sequence[int], repeats: int = 5, warmup: int = 2,
                    device: torch.device | str = "cpu", group=None) -> dict[int, list[float]]:
    """{message bytes: seconds of each timed float32 all_reduce on this rank}, a barrier before each."""
    device, out = torch.device(device), {}
    for size in sizes:
        tensor = torch.ones(max(1, size // 4), device=device)
        for _ in range(warmup):
            dist.all_reduce(tensor, group=group)
        times = []
        for _ in range(repeats):
            dist.barrier(group=group)
            synchronize(device)
            start = time.perf_counter()
            dist.all_reduce(tensor, group=group)
            synchronize(device)
            times.append(time.perf_counter() - start)
        out[int(size)] = times
    return out


def sweep_worlds(worlds: Sequence[int], sizes: Sequence[int], repeats: int = 5, warmup: int = 2,
                 device: torch.device | str = "cpu") -> list[dict]:
    """`allreduce_sweep` on ranks 0..n-1 for each n in `worlds` (every rank calls this): one row
    {world, bytes, seconds: [each repeat]} per size and world that includes this rank."""
    rows = []
    for n in worlds:
        group = subgroup(n)
        if dist.get_rank() < n:
            sweep = allreduce_sweep(sizes, repeats, warmup, device, group)
            rows += [{"world": n, "bytes": size, "seconds": times} for size, times in sweep.items()]
        dist.barrier()
    return rows


def gradient_readiness(model: nn.Module, batches: list, steps: int, device: torch.device,
                       group=None) -> dict:
    """Steps of `model` alone (no DDP): their seconds, the parameters' bytes in the order their
    gradients became ready (as DDP sees it: the order the hooks fire, not sorted by time, which
    jitter could swap) with when each was ready (ms after backward starts, median over `steps`),
    and backward's length. Ranks of `group` start each step together, as they would under DDP."""
    clock = timing.StepClock(device)
    params = [p for p in model.parameters() if p.requires_grad]
    optimizer = torch.optim.SGD(params, lr=0.01, momentum=0.9)
    stamps: list[dict[int, object]] = []

    def ready(index: int):
        def hook(param: torch.Tensor) -> None:
            stamps[-1].setdefault(index, clock.stamp())  # its .grad is written
        return hook

    handles = [p.register_post_accumulate_grad_hook(ready(i)) for i, p in enumerate(params)]
    ends, step_s = [], []
    try:
        for step in range(steps):
            x, y = batches[step % len(batches)]
            dist.barrier(group=group)
            synchronize(device)
            start = time.perf_counter()
            loss = nn.functional.cross_entropy(model(x), y)
            stamps.append({})
            clock.start()
            loss.backward()
            stamps[-1], end = clock.resolve((stamps[-1], clock.stamp()))
            optimizer.step()
            optimizer.zero_grad(set_to_none=True)
            synchronize(device)
            step_s.append(time.perf_counter() - start)
            ends.append(end)
    finally:
        for handle in handles:
            handle.remove()
    order = list(stamps[-1])  # the order the hooks fired in: what DDP rebuilds its buckets from
    return {"param_bytes": [params[i].numel() * params[i].element_size() for i in order],
            "ready_ms": [statistics.median(s[i] for s in stamps) for i in order],
            "backward_ms": statistics.median(ends), "step_s": step_s}


def profile_model(model_name: str, batch: int, steps: int, warmup: int, device: torch.device,
                  group=None) -> dict:
    """`gradient_readiness` of a fresh `model_name` after `warmup` untimed steps, on this rank's
    share of the data: what a prediction needs, measured without any communication."""
    model = build_model(model_name).to(device)
    rank, world = dist.get_rank(group), dist.get_world_size(group)
    batches = bench_train.rank_batches(batch, rank, world, device)
    gradient_readiness(model, batches, warmup, device, group)
    return {"model": model_name, "batch": batch, **gradient_readiness(model, batches, steps, device, group)}


def ddp_bucket_caps(bucket_cap_mb: float | None) -> tuple[int, int]:
    """(first bucket's cap, the others' cap) in bytes that this torch's DDP rebuilds its buckets
    with for `bucket_cap_mb` (None: the default). Read from torch's own bucket settings where it has
    them (torch 2.13: the first bucket is capped at 1 MiB only when bucket_cap_mb is left at its
    default); `run_ddp` records the buckets DDP really built, to check."""
    from torch.nn.parallel import distributed

    config = getattr(distributed, "_BucketCapacityConfig", None)
    if config is not None:
        caps = config.create(bucket_cap_mb, None, False)
        return int(caps.first_bucket_bytes_cap), int(caps.bucket_bytes_cap)
    return int(dist._DEFAULT_FIRST_BUCKET_BYTES), int((bucket_cap_mb or 25) * 1024 * 1024)


class BucketLog(bench_train.AllReduceLog):
    """Lesson 9's all-reduce log (count, seconds in flight on CPU), plus the group DDP reduces over
    and the bytes of each bucket of the last step that all-reduced, in launch order."""

    def __init__(self, device: torch.device, group=None):
        super().__init__(device)
        self.group = group
        self.sizes: list[int] = []
        self.built: list[int] = []

    def take(self) -> tuple[int, float | None]:
        if self.sizes:
            self.built, self.sizes = self.sizes, []
        return super().take()


def logged_allreduce(log: BucketLog, bucket: dist.GradBucket) -> torch.futures.Future[torch.Tensor]:
    """DDP's default comm hook over `log.group` (divide by its size, all-reduce SUM), timed from
    launch until the result is ready, noting the bucket's bytes."""
    start, grads = time.perf_counter(), bucket.buffer()
    log.calls += 1
    log.sizes.append(grads.numel() * grads.element_size())
    grads.div_(dist.get_world_size(log.group))

    def finished(fut):
        log.spans.append((start, time.perf_counter()))
        return fut.value()[0]
    return dist.all_reduce(grads, group=log.group, async_op=True).get_future().then(finished)


def time_steps(ddp: DDP, batches: list, steps: int, warmup: int, log: BucketLog,
               device: torch.device, group=None) -> dict:
    """Seconds of each step with communication ("every") and without ("never", inside `no_sync`),
    alternating, every step started together on all ranks (a barrier), so a step's time is its own
    and not how far the ranks had drifted apart; and the seconds all-reduces were in flight in each
    "every" step (None on GPUs, where the host only sees them queued)."""
    optimizer = torch.optim.SGD(ddp.parameters(), lr=0.01, momentum=0.9)
    out = {"step_s": {"every": [], "never": []}, "allreduce_s": []}
    for step in range(warmup + steps):
        for mode in ("every", "never"):
            x, y = batches[step % len(batches)]
            dist.barrier(group=group)
            synchronize(device)
            start = time.perf_counter()
            bench_train.train_step(ddp, optimizer, [(x, y)], 1, mode)
            synchronize(device)
            seconds = time.perf_counter() - start
            busy = log.take()[1]
            if step >= warmup:
                out["step_s"][mode].append(seconds)
                if mode == "every":
                    out["allreduce_s"].append(busy)
    return out


def run_ddp(model_name: str, bucket_cap_mb: float | None, batch: int, steps: int, warmup: int,
            device: torch.device, group=None) -> dict:
    """`model_name` in DDP with `bucket_cap_mb` on this rank: the buckets it all-reduces (bytes, in
    launch order, after the warm-up steps rebuilt them) and `time_steps`."""
    model = build_model(model_name).to(device)
    device_ids = [device.index] if device.type == "cuda" else None
    ddp = DDP(model, device_ids=device_ids, bucket_cap_mb=bucket_cap_mb, process_group=group)
    log = BucketLog(device, group)
    ddp.register_comm_hook(log, logged_allreduce)
    rank, world = dist.get_rank(group), dist.get_world_size(group)
    batches = bench_train.rank_batches(batch, rank, world, device)
    times = time_steps(ddp, batches, steps, warmup, log, device, group)
    first_cap, cap = ddp_bucket_caps(bucket_cap_mb)
    result = {"model": model_name, "bucket_cap_mb": bucket_cap_mb, "batch": batch,
              "first_cap_bytes": first_cap, "cap_bytes": cap, "buckets_built": log.built, **times}
    del ddp, model
    gc.collect()  # DDP sits in reference cycles: free it before the next one (and the group)
    return result


def overhead_alone(model_name: str, batch: int, steps: int, warmup: int, device: torch.device,
                   solo_group, rounds: int = 3) -> dict:
    """Step seconds of `model_name` plain and in DDP over `solo_group`, a process group of this rank
    alone (world size 1: nothing to send, DDP's own work remains), with lesson 9's loop; `rounds`
    alternations so both see the same machine conditions."""
    plain = build_model(model_name).to(device)
    device_ids = [device.index] if device.type == "cuda" else None
    ddp = DDP(build_model(model_name).to(device), device_ids=device_ids, process_group=solo_group)
    batches = bench_train.rank_batches(batch, 0, 1, device)
    plan = {"accumulate": 1, "sync": ["every"], "steps": steps, "warmup": warmup}
    out = {"plain_s": [], "ddp_s": []}
    for _ in range(rounds):
        out["plain_s"] += bench_train.time_steps(plain, batches, plan)["every"]["step_s"]
        out["ddp_s"] += bench_train.time_steps(ddp, batches, plan)["every"]["step_s"]
    del ddp
    gc.collect()
    return out


def run_plan(plan: dict, device: torch.device) -> dict:
    """This rank's sweep, profiles and DDP runs, as the plan (see tooling.comm_bench.plan) lists them."""
    sweep = plan["sweep"]
    out = {"sweep": sweep_worlds(sweep["worlds"], sweep["sizes"], sweep["repeats"], sweep["warmup"],
                                 device), "profiles": {}, "runs": []}
    for entry in plan["models"]:
        name = entry["model"]
        if name not in out["profiles"]:
            out["profiles"][name] = profile_model(name, entry["batch"], entry["steps"], entry["warmup"],
                                                  device)
        out["runs"].append(run_ddp(name, entry["bucket_cap_mb"], entry["batch"], entry["steps"],
                                   entry["warmup"], device))
        every, never = (statistics.median(out["runs"][-1]["step_s"][m]) for m in ("every", "never"))
        print(tr("{name}, bucket_cap_mb={cap}: {every:.1f} ms/step, {never:.1f} ms without communication", name=name,
                 cap=entry["bucket_cap_mb"], every=every * 1e3, never=never * 1e3), flush=True)
    return out


def main(argv: Sequence[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--plan", required=True, help="JSON plan (see ddp_lessons.tooling.comm_bench.plan)")
    plan = json.loads(Path(parser.parse_args(argv).plan).read_text())
    choice = backend.choose()
    if choice.device.type == "cuda":
        torch.cuda.set_device(choice.device)
    torch.set_num_threads(choice.threads)
    dist.init_process_group(backend=choice.backend, device_id=choice.device_id)
    if dist.get_rank() == 0:
        print(choice.describe(), flush=True)
    ready_at = time.time()
    result = run_plan(plan, choice.device)
    records.write("bench_comm", {"backend": choice.backend, "device": str(choice.device),
                                 "threads": torch.get_num_threads(), "choice": choice.describe(),
                                 "process_started_at": PROCESS_STARTED_AT, "ready_at": ready_at,
                                 "finished_at": time.time(), **result})
    gc.collect()
    with contextlib.suppress(Exception):
        dist.barrier()
    dist.destroy_process_group()


if __name__ == "__main__":
    main()
