"""World-size sweeps of DDP training: step time, samples/s, speedup, efficiency (lesson 9).

`run_bench(Settings(...))` launches the packaged script ``scripts/bench_train.py`` once per world
size (1, 2, 4, ... up to the CPU cores or GPUs) with `launch.run_torchrun`; inside each launch
the ranks run several measurements (models, weak/strong scaling, sync modes, bucket sizes), so
the seconds of torchrun start-up are paid once per world size and reported apart from training.
Per measurement and sync mode the result holds one row: the step time (median after warm-up,
with quartiles, min and max; each step counts as its slowest rank), samples/s, all-reduces per
step and their measured time, and speedup and efficiency against world size 1.
``python -m ddp_lessons bench`` does the same from a shell and saves the JSON.

The results document (``SCHEMA``): ``label`` (short name for plot legends), ``provenance`` (where
the numbers come from), ``notes``, ``created``, ``machine`` (cpu_model, cpu_cores, gpus, torch,
python, platform, backend, device), ``settings``, ``runs`` (per world size: launch wall time and
its parts: startup, init_process_group, DDP construction, measuring, teardown; and the load average
before and after, which shows whether other programs competed for the cores) and ``rows``.
Timing outputs are spreads: {median, q1, q3, min, max, count} in seconds.
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import os
import platform
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path
from types import ModuleType
from typing import Any

import torch

from ddp_lessons import backend, launch, records, scripts
from ddp_lessons.i18n import tr
from ddp_lessons.scripts import bench_train

from ddp_lessons.base.scaling_results import (  # noqa: F401  (re-exported: lessons use bench.select etc.)
    SCHEMA, add_speedup, format_rows, load, oversubscription, reference, rows_from_records, save,
    select, spread)


@dataclass
class Settings:
    """What to measure; every field is saved with the results."""

    world_sizes: list[int] | None = None  # None: 1, 2, 4, ... up to the devices available
    models: tuple[str, ...] = ("cnn", "mlp")
    scalings: tuple[str, ...] = ("weak", "strong")
    batch: int = 64  # per rank, weak scaling
    global_batch: int = 256  # across ranks, strong scaling
    steps: int = 20
    warmup: int = 5
    bucket_cap_mb: float = 25.0  # MiB: DDP's default cap, but set, so no 1 MiB first bucket (lesson 6)
    bucket_sweep: tuple[float, ...] = ()  # extra bucket sizes for `sweep_model`, world sizes >= 2
    accumulate: int = 1  # > 1: no_sync gradient accumulation against syncing every micro-step
    sweep_model: str = "mlp"  # model of the bucket sweep and the accumulation comparison
    oversubscribe: bool = False  # also run models[0] with every rank using all cores' threads
    threads: int | None = None  # threads per rank; None: max(1, cores // world)
    device: str = "auto"  # "cpu" hides GPUs from the ranks
    backend: str | None = None  # force "gloo" or "nccl"; None: ddp_lessons.backend.choose()
    timeout: float = 600.0  # seconds per launch


def script_path() -> Path:
    """Path of the packaged benchmark training script (torchrun runs it by path)."""
    return Path(scripts.path("bench_train.py"))


def load_script() -> ModuleType:
    """The benchmark script's module, ``ddp_lessons.scripts.bench_train`` (models and timed loop)."""
    return bench_train


def devices_available(device: str = "auto") -> int:
    """GPUs when there are any (and device is not 'cpu'), else CPU cores."""
    gpus = 0 if device == "cpu" else backend.gpu_count()
    return gpus or backend.cpu_cores()


def default_world_sizes(limit: int) -> list[int]:
    """1, 2, 4, ... below `limit`, and `limit` itself."""
    sizes = [1]
    while sizes[-1] * 2 < limit:
        sizes.append(sizes[-1] * 2)
    return sizes + [limit] if limit > 1 else sizes


def world_sizes_for(devices: int, max_world: int | None = None) -> list[int]:
    """World sizes lesson 9 and the bench measure with `devices` GPUs (or cores): 1, 2, 4, ... up to
    them, and [1, 2] with one device (two ranks share it) so multi-rank experiments still run."""
    return default_world_sizes(min(max(devices, 2), max_world or devices + 2))


def plan(settings: Settings, world: int, cores: int | None = None) -> list[dict[str, Any]]:
    """The measurements every rank of a `world`-rank launch runs, in order."""
    cores = cores or backend.cpu_cores()
    entries = []

    def add(name, model, per_rank_batch, sync=("every", "never"), accumulate=1,
            bucket_cap_mb=settings.bucket_cap_mb, threads=settings.threads, scaling="weak"):
        entries.append({"name": name, "model": model, "scaling": scaling,
                        "per_rank_batch": per_rank_batch, "accumulate": accumulate,
                        "sync": list(sync), "bucket_cap_mb": bucket_cap_mb, "threads": threads,
                        "steps": settings.steps, "warmup": settings.warmup})

    for model in settings.models:
        for scaling in settings.scalings:
            per_rank = settings.batch if scaling == "weak" else max(1, settings.global_batch // world)
            add(f"{model}/{scaling}", model, per_rank, scaling=scaling)
    if world > 1:
        model = settings.sweep_model
        for mb in settings.bucket_sweep:
            add(f"{model}/weak/bucket={mb:g}MB", model, settings.batch, ("every",), bucket_cap_mb=mb)
        if settings.accumulate > 1:
            add(f"{model}/weak/accumulate={settings.accumulate}", model, settings.batch,
                ("every", "last"), accumulate=settings.accumulate)
        if settings.oversubscribe:
            add(f"{settings.models[0]}/weak/oversubscribed", settings.models[0], settings.batch,
                ("every",), threads=cores)
    return entries


def run_world(settings: Settings, world: int,
              echo: bool = True) -> tuple[list[dict[str, Any]], dict[str, Any]]:
    """Launch one world size; return its rows and a breakdown of where the wall time went."""
    cores = backend.cpu_cores()
    with tempfile.TemporaryDirectory(prefix="ddp-bench-") as scratch:
        plan_file = Path(scratch) / "plan.json"
        plan_file.write_text(json.dumps(plan(settings, world, cores)))
        env = {"CUDA_VISIBLE_DEVICES": ""} if settings.device == "cpu" else None
        load_before = _load_average()
        launched_at = time.time()
        result = launch.run_torchrun(script_path(), world, ["--plan", plan_file], env=env,
                                     timeout=settings.timeout, backend=settings.backend,
                                     threads_per_rank=settings.threads, echo=echo)
        ended_at = launched_at + result.wall_seconds
    ranks = records.load(result.run_dir, "bench")
    ready_at = max(r["measurements"][0]["ready_at"] for r in ranks)
    finished_at = max(r["finished_at"] for r in ranks)
    run = {"world_size": world, "backend": ranks[0]["backend"], "device": ranks[0]["device"],
           "choice": ranks[0]["choice"], "launch_wall_s": result.wall_seconds,
           "startup_s": ready_at - launched_at,
           "torchrun_and_python_start_s": min(r["process_started_at"] for r in ranks) - launched_at,
           "init_process_group_s": max(r["init_process_group_s"] for r in ranks),
           "ddp_construct_s": max(r["measurements"][0]["ddp_construct_s"] for r in ranks),
           "measuring_s": finished_at - ready_at, "teardown_s": ended_at - finished_at,
           "load_average": [load_before, _load_average()]}
    return rows_from_records(ranks, world), run


def _load_average() -> float | None:
    """The machine's 1-minute load average (runnable processes; above the cores = contention)."""
    return os.getloadavg()[0] if hasattr(os, "getloadavg") else None


def time_without_torchrun(model: str = "cnn", batch: int = 64, steps: int = 20, warmup: int = 5,
                          threads: int | None = None, data_parallel: bool = False,
                          device: str = "auto") -> dict[str, float]:
    """Step-time spread of the bench's own loop on a plain model in this process (no torchrun).

    data_parallel wraps the model in `nn.DataParallel` (all visible GPUs; a no-op on CPU).
    """
    torch.set_num_threads(threads or backend.cpu_cores())
    on_gpu = device != "cpu" and backend.gpu_count() > 0
    where = torch.device("cuda", 0) if on_gpu else torch.device("cpu")
    net = bench_train.build_model(model).to(where)
    if data_parallel:
        net = torch.nn.DataParallel(net)
    batches = bench_train.rank_batches(batch, 0, 1, where)
    timing = {"accumulate": 1, "sync": ["every"], "steps": steps, "warmup": warmup}
    return spread(bench_train.time_steps(net, batches, timing)["every"]["step_s"])


def machine() -> dict[str, Any]:
    """This machine and software: CPU model, cores, GPUs, torch, python, platform."""
    cpu = platform.processor() or platform.machine()
    cpuinfo = Path("/proc/cpuinfo")
    if cpuinfo.exists():
        names = [line.split(":", 1)[1].strip() for line in cpuinfo.read_text().splitlines()
                 if line.startswith("model name")]
        cpu = names[0] if names else cpu
    return {"cpu_model": cpu, "cpu_cores": backend.cpu_cores(),
            "gpus": [torch.cuda.get_device_name(i) for i in range(backend.gpu_count())],
            "torch": torch.__version__, "python": platform.python_version(),
            "platform": platform.platform()}


def run_bench(settings: Settings, label: str = "", notes: str = "",
              echo: bool = True) -> dict[str, Any]:
    """Measure every world size in `settings`; return the results document (see `SCHEMA`).

    label: the short name plots give these curves (default "this machine"); notes: free text kept.
    """
    sizes = settings.world_sizes or world_sizes_for(devices_available(settings.device))
    rows, runs = [], []
    for world in sizes:
        world_rows, run = run_world(settings, world, echo)
        rows += world_rows
        runs.append(run)
    info = {**machine(), "backend": runs[0]["backend"], "device": runs[0]["device"]}
    created = time.strftime("%Y-%m-%d %H:%M")
    on_gpu = info["device"].startswith("cuda")
    hardware = ", ".join(info["gpus"]) if on_gpu else tr("{cpu}, {cores} cores", cpu=info["cpu_model"],
                                                           cores=info["cpu_cores"])
    return {"schema": SCHEMA, "label": label or tr("this machine"),
            "provenance": tr("measured by ddp_lessons.bench on {hardware} ({backend} on {device}, torch {torch}), "
                             "{created}", hardware=hardware, backend=info["backend"], device=info["device"],
                             torch=info["torch"], created=created),
            "notes": notes, "created": created, "machine": info,
            "settings": dataclasses.asdict(settings) | {"world_sizes": sizes},
            "runs": runs, "rows": add_speedup(rows)}


def add_arguments(parser: argparse.ArgumentParser) -> None:
    d = Settings()
    parser.add_argument("--world-sizes", type=int, nargs="+", help="default: 1, 2, 4, ... devices")
    parser.add_argument("--max-world", type=int, help="cap the default world sizes")
    parser.add_argument("--models", nargs="+", choices=("cnn", "mlp"), default=list(d.models),
                        help="cnn: compute-bound; mlp: as many parameters, ~15x less compute")
    parser.add_argument("--scalings", nargs="+", choices=("weak", "strong"), default=list(d.scalings),
                        help="weak: fixed batch per rank; strong: fixed global batch")
    parser.add_argument("--batch", type=int, default=d.batch, help="per-rank batch (weak scaling)")
    parser.add_argument("--global-batch", type=int, default=d.global_batch,
                        help="batch across ranks (strong scaling)")
    parser.add_argument("--steps", type=int, default=d.steps, help="timed steps per measurement")
    parser.add_argument("--warmup", type=int, default=d.warmup, help="untimed steps first")
    parser.add_argument("--bucket-cap-mb", type=float, default=d.bucket_cap_mb,
                        help="DDP bucket size of the main measurements")
    parser.add_argument("--bucket-sweep", type=float, nargs="+", default=[], metavar="MB",
                        help="also measure the sweep model with these bucket sizes (2+ ranks)")
    parser.add_argument("--accumulate", type=int, default=d.accumulate,
                        help="micro-steps per optimizer step for the no_sync comparison")
    parser.add_argument("--sweep-model", choices=("cnn", "mlp"), default=d.sweep_model,
                        help="model of the bucket sweep and the no_sync comparison")
    parser.add_argument("--oversubscribe", action="store_true",
                        help="also run the first model with every rank using all cores")
    parser.add_argument("--threads", type=int, help="threads per rank (default cores // world)")
    parser.add_argument("--device", choices=("auto", "cpu"), default=d.device,
                        help="cpu: hide the GPUs from the ranks")
    parser.add_argument("--backend", choices=backend.BACKENDS,
                        help="force a backend (default: nccl with a GPU per rank, else gloo)")
    parser.add_argument("--timeout", type=float, default=d.timeout, help="seconds per launch")
    parser.add_argument("--baseline", action="store_true",
                        help="also time world 1's loop without torchrun (first model, weak batch)")
    parser.add_argument("--label", default="", help="short name for these curves in plots")
    parser.add_argument("--notes", default="", help="free text saved with the results")
    parser.add_argument("--output", default="bench.json", help="JSON file to write")
    parser.add_argument("--quiet", action="store_true", help="do not stream the ranks' output")


def settings_from_args(args: argparse.Namespace) -> Settings:
    """The `Settings` that parsed ``bench`` command-line arguments ask for."""
    fields = {f.name for f in dataclasses.fields(Settings)}
    settings = Settings(**{k: tuple(v) if isinstance(v, list) and k != "world_sizes" else v
                           for k, v in vars(args).items() if k in fields})
    if settings.world_sizes is None and args.max_world:
        settings.world_sizes = world_sizes_for(devices_available(settings.device), args.max_world)
    return settings


def run(args: argparse.Namespace) -> int:
    settings = settings_from_args(args)
    result = run_bench(settings, args.label, args.notes, echo=not args.quiet)
    if args.baseline:
        model = settings.models[0]
        result["baseline_without_torchrun"] = {
            "model": model, "batch": settings.batch, "threads": settings.threads,
            "step_s": time_without_torchrun(model, settings.batch, settings.steps, settings.warmup,
                                            settings.threads, device=settings.device)}
    print(format_rows(result))
    print(tr("saved {path}", path=save(result, args.output)))
    return 0
