"""Benchmark training script for lesson 9 (`python -m ddp_lessons bench` launches it with torchrun).

Every rank runs the measurements listed in a plan file (JSON, written by `ddp_lessons.bench`):
each one builds a fresh seeded model, wraps it in DDP, and times optimizer steps after warm-up.
Steps alternate between sync modes so that every mode sees the same machine conditions:
"every" all-reduces each micro-step, "last" uses `no_sync()` on all but the last micro-step
(gradient accumulation), "never" skips the all-reduce (compute only). A comm hook counts the
all-reduces and times them.

Run it by path under torchrun (``bench.run_world`` does) or as ``-m ddp_lessons.scripts.bench_train``;
import it (``from ddp_lessons.scripts import bench_train``) to run the same loop in-process: on a plain
model without torchrun (``bench.time_without_torchrun``), or `run_plans` in a process group of one.
"""

import time

PROCESS_STARTED_AT = time.time()  # before `import torch`: startup is measured, not training

import argparse
import contextlib
import gc
import json
import os
import statistics
from pathlib import Path
from typing import Sequence

import torch
import torch.distributed as dist
import torch.nn as nn
from torch.nn.parallel import DistributedDataParallel as DDP
from torch.utils.data import DataLoader, DistributedSampler, TensorDataset

from ddp_lessons import backend, records
from ddp_lessons.i18n import tr

IMAGE_SHAPE, CLASSES, DISTINCT_BATCHES = (3, 32, 32), 10, 4


def build_model(name: str) -> nn.Module:
    """'cnn' (compute-bound, 1.15 M params) or 'mlp' (1.09 M params, ~15x fewer FLOPs per sample)."""
    torch.manual_seed(0)
    if name == "cnn":
        return nn.Sequential(
            nn.Conv2d(3, 32, 3, padding=1), nn.ReLU(), nn.MaxPool2d(2),
            nn.Conv2d(32, 64, 3, padding=1), nn.ReLU(), nn.MaxPool2d(2),
            nn.Conv2d(64, 128, 3, padding=1), nn.ReLU(), nn.MaxPool2d(2),
            nn.Flatten(), nn.Linear(128 * 4 * 4, 512), nn.ReLU(), nn.Linear(512, CLASSES))
    if name == "mlp":
        return nn.Sequential(nn.Flatten(), nn.Linear(3 * 32 * 32, 320), nn.ReLU(),
                             nn.Linear(320, 320), nn.ReLU(), nn.Linear(320, CLASSES))
    raise ValueError(tr("unknown model {name!r}: choose 'cnn' or 'mlp'", name=name))


def rank_batches(batch: int, rank: int, world: int, device: torch.device) -> list:
    """This rank's share of a seeded synthetic image dataset, as batches already on `device`."""
    generator = torch.Generator().manual_seed(0)
    size = batch * world * DISTINCT_BATCHES
    dataset = TensorDataset(torch.randn(size, *IMAGE_SHAPE, generator=generator),
                            torch.randint(0, CLASSES, (size,), generator=generator))
    sampler = DistributedSampler(dataset, num_replicas=world, rank=rank, shuffle=True, seed=0)
    return [(x.to(device), y.to(device)) for x, y in DataLoader(dataset, batch, sampler=sampler)]


class AllReduceLog:
    """Comm hook state: how many all-reduces ran since the last `take`, and when (CPU only)."""

    def __init__(self, device: torch.device):
        self.wall_clock = device.type == "cpu"  # a CUDA future completes once work is queued
        self.calls, self.spans = 0, []

    def take(self) -> tuple[int, float | None]:
        """(all-reduces, seconds with at least one in flight, or None on CUDA); then reset."""
        spans, calls, busy, reach = sorted(self.spans), self.calls, 0.0, 0.0
        self.calls, self.spans = 0, []
        for start, end in spans:
            busy += max(0.0, end - max(start, reach))
            reach = max(reach, end)
        return calls, busy if self.wall_clock else None


def timed_allreduce(log: AllReduceLog,
                    bucket: dist.GradBucket) -> torch.futures.Future[torch.Tensor]:
    """DDP's default averaging all-reduce, counted and timed from launch until its result is ready."""
    start, tensor = time.perf_counter(), bucket.buffer().div_(dist.get_world_size())
    log.calls += 1

    def finished(fut):
        log.spans.append((start, time.perf_counter()))
        return fut.value()[0]
    return dist.all_reduce(tensor, async_op=True).get_future().then(finished)


def train_step(model, optimizer, batches, accumulate: int, sync: str) -> None:
    """One optimizer step over `accumulate` micro-batches, all-reducing as `sync` says."""
    for i, (x, y) in enumerate(batches):
        skip = sync == "never" or (sync == "last" and i < accumulate - 1)
        with model.no_sync() if skip else contextlib.nullcontext():
            (nn.functional.cross_entropy(model(x), y) / accumulate).backward()
    optimizer.step()
    optimizer.zero_grad(set_to_none=True)


def time_steps(model, batches, plan: dict, log: AllReduceLog | None = None) -> dict:
    """Per sync mode: seconds of each timed step, all-reduces per step, all-reduce busy seconds."""
    optimizer = torch.optim.SGD(model.parameters(), lr=0.01, momentum=0.9)
    device, accumulate = batches[0][0].device, plan["accumulate"]
    out = {mode: {"step_s": [], "allreduces": [], "allreduce_s": []} for mode in plan["sync"]}
    for step in range(plan["warmup"] + plan["steps"]):
        for mode in plan["sync"]:
            micro = [batches[(step * accumulate + i) % len(batches)] for i in range(accumulate)]
            start = time.perf_counter()
            train_step(model, optimizer, micro, accumulate, mode)
            if device.type == "cuda":
                torch.cuda.synchronize(device)
            seconds = time.perf_counter() - start
            count, busy = log.take() if log is not None else (0, None)
            if step >= plan["warmup"]:
                out[mode]["step_s"].append(seconds)
                out[mode]["allreduces"].append(count)
                out[mode]["allreduce_s"].append(busy)
    return out


def measure(plan: dict, choice: backend.Choice) -> dict:
    """Build the plan's model, wrap it in DDP, and time its steps on this rank."""
    torch.set_num_threads(plan["threads"] or choice.threads)
    model = build_model(plan["model"]).to(choice.device)
    start = time.perf_counter()
    if choice.device.type == "cuda":  # device index == LOCAL_RANK when each rank has its own GPU
        ddp = DDP(model, device_ids=[choice.device.index], bucket_cap_mb=plan["bucket_cap_mb"])
    else:
        ddp = DDP(model, bucket_cap_mb=plan["bucket_cap_mb"])
    ddp_s = time.perf_counter() - start
    log = AllReduceLog(choice.device)
    ddp.register_comm_hook(log, timed_allreduce)
    batches = rank_batches(plan["per_rank_batch"], dist.get_rank(), dist.get_world_size(),
                           choice.device)
    ready_at = time.time()
    return {**plan, "threads": torch.get_num_threads(), "ddp_construct_s": ddp_s,
            "ready_at": ready_at, "modes": time_steps(ddp, batches, plan, log)}


def run_plans(plans: list[dict], choice: backend.Choice) -> list[dict]:
    """This rank's result of every measurement in `plans` (process group already joined), each
    summarised in one printed line of median step times per sync mode."""
    results = []
    for plan in plans:
        results.append(measure(plan, choice))
        medians = {mode: statistics.median(r["step_s"]) for mode, r in results[-1]["modes"].items()}
        print(plan["name"], ", ".join(tr("sync={mode}: {ms:.1f} ms/step", mode=m, ms=s * 1e3) for m, s in medians.items()))
    return results


def main(argv: Sequence[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--plan", required=True, help="JSON list of measurements (see bench.plan)")
    plans = json.loads(Path(parser.parse_args(argv).plan).read_text())
    local_rank = int(os.environ["LOCAL_RANK"])
    choice = backend.choose()
    if choice.device.type == "cuda":
        torch.cuda.set_device(choice.device)
    torch.set_num_threads(choice.threads)
    start = time.perf_counter()
    dist.init_process_group(backend=choice.backend, device_id=choice.device_id)
    init_s = time.perf_counter() - start
    if local_rank == 0:
        print(choice.describe(), flush=True)
    results = run_plans(plans, choice)
    records.write("bench", {"backend": choice.backend, "device": str(choice.device),
                            "choice": choice.describe(), "process_started_at": PROCESS_STARTED_AT,
                            "init_process_group_s": init_s, "finished_at": time.time(),
                            "measurements": results})
    gc.collect()  # free every DDP (they sit in reference cycles) before the process group they use
    dist.destroy_process_group()


if __name__ == "__main__":
    main()
