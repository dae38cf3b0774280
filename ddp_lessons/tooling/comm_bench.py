"""All-reduce sweep, α–β fit, and DDP's communication predicted against measured (lesson 16).

`run_bench_comm(Settings(...))` launches the packaged script ``scripts/bench_comm.py`` once with
`launch.run_torchrun`: every rank sweeps `dist.all_reduce` over message sizes (on 2, 3, ... ranks
up to the world, as subgroups), then measures each model at each bucket size (gradient readiness,
the buckets DDP builds, step times with and without communication). The notebook side fits α and
β on the sweep (`comm_model.fit`; β again on the messages of at least 1 MiB, the sizes of DDP's
buckets, for the predictions) and predicts every model's communication from its buckets and its
backward (`comm_results.model_row`). ``python -m ddp_lessons bench-comm`` prints the fit, one
summary line per row with the ratio predicted / measured, and saves the JSON document:
``schema``, ``created``, ``machine`` (as `bench.machine`, plus backend and device), ``settings``,
``run`` (launch wall time, load average before and after), ``sweep`` (points and their fit),
``rows``.
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import os
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ddp_lessons import backend, bench, comm_model, comm_results, launch, records
from ddp_lessons.i18n import number, tr
from ddp_lessons.scripts import bench_comm

DEFAULT_SIZES = tuple(4096 * 2 ** k for k in range(14))  # 4 KiB .. 32 MiB


@dataclass
class Settings:
    """What to measure; every field is saved with the results."""

    world: int | None = None  # None: one rank per GPU or core, 2 to 4 (bench_comm.measuring_world)
    sizes: tuple[int, ...] = DEFAULT_SIZES  # all-reduce message bytes
    repeats: int = 7  # timed all-reduces per size (their median counts)
    warmup: int = 2  # untimed all-reduces per size first
    models: tuple[str, ...] = bench_comm.MODELS
    bucket_caps: tuple[float | None, ...] = (1.0, None)  # bucket_cap_mb; None: DDP's default
    batch: int = 64  # per rank
    steps: int = 10  # timed steps per model and bucket size (and sync mode)
    step_warmup: int = 3
    device: str = "auto"  # "cpu" hides the GPUs from the ranks
    backend: str | None = None  # force "gloo" or "nccl"; None: ddp_lessons.backend.choose()
    timeout: float = 600.0


def plan(settings: Settings, world: int) -> dict[str, Any]:
    """What every rank runs: the sweep on 2..world ranks, then each model at each bucket cap."""
    return {"sweep": {"sizes": list(settings.sizes), "repeats": settings.repeats,
                      "warmup": settings.warmup, "worlds": list(range(2, world + 1))},
            "models": [{"model": model, "bucket_cap_mb": cap, "batch": settings.batch,
                        "steps": settings.steps, "warmup": settings.step_warmup}
                       for model in settings.models for cap in settings.bucket_caps]}


def document(rank_records: list[dict[str, Any]], settings: Settings, world: int,
             run: dict[str, Any]) -> dict[str, Any]:
    """The results document from every rank's ``bench_comm`` record."""
    points = comm_results.sweep_points([r["sweep"] for r in rank_records])
    every_size = comm_model.fit(points)
    fitted = comm_model.fit(points, bandwidth_from=comm_model.MB)  # DDP's buckets are megabytes
    rows = [comm_results.model_row([r["profiles"][run["model"]] for r in rank_records],
                                   [r["runs"][j] for r in rank_records], fitted, world)
            for j, run in enumerate(rank_records[0]["runs"])]
    first = rank_records[0]
    return {"schema": comm_results.SCHEMA, "created": time.strftime("%Y-%m-%d %H:%M"),
            "machine": {**bench.machine(), "backend": first["backend"], "device": first["device"],
                        "threads_per_rank": first["threads"]},
            "settings": dataclasses.asdict(settings) | {"world": world}, "run": run,
            "sweep": {"points": points, "alpha_s": fitted.alpha, "beta_s_per_byte": fitted.beta,
                      "bus_bandwidth_Bps": fitted.bus_bandwidth, "beta_from_bytes": comm_model.MB,
                      "every_size": {"alpha_s": every_size.alpha, "beta_s_per_byte": every_size.beta},
                      "knee_bytes": every_size.knee_bytes(world), "table": comm_model.sweep_table(every_size)},
            "rows": rows}


def run_bench_comm(settings: Settings, echo: bool = True) -> dict[str, Any]:
    """Launch the ranks once, measure, fit and predict; return the results document."""
    world = settings.world or bench_comm.measuring_world(bench.devices_available(settings.device), 4)
    with tempfile.TemporaryDirectory(prefix="ddp-bench-comm-") as scratch:
        plan_file = Path(scratch) / "plan.json"
        plan_file.write_text(json.dumps(plan(settings, world)))
        env = {"CUDA_VISIBLE_DEVICES": ""} if settings.device == "cpu" else None
        load_before = _load_average()
        result = launch.run_torchrun(bench_comm.__file__, world, ["--plan", plan_file], env=env,
                                     timeout=settings.timeout, backend=settings.backend, echo=echo)
    ranks = records.load(result.run_dir, "bench_comm")
    run = {"launch_wall_s": result.wall_seconds, "load_average": [load_before, _load_average()]}
    return document(ranks, settings, world, run)


def _load_average() -> float | None:
    """The 1-minute load average (processes wanting a core; above the core count = contention)."""
    return os.getloadavg()[0] if hasattr(os, "getloadavg") else None


def report(doc: dict[str, Any]) -> str:
    """The fit, the table, and one summary line per row, as the command prints them."""
    sweep, points = doc["sweep"], tuple(tuple(p) for p in doc["sweep"]["points"])
    every_size = comm_model.Fit(sweep["every_size"]["alpha_s"], sweep["every_size"]["beta_s_per_byte"], points)
    machine, world, load = doc["machine"], doc["settings"]["world"], doc["run"]["load_average"]
    lines = [tr("{cpu}, {cores} cores, {backend} on {device}, {world} ranks x {threads} thread(s), torch {torch}; "
                "load average {before} before, {after} after", cpu=machine["cpu_model"], cores=machine["cpu_cores"],
                backend=machine["backend"], device=machine["device"], world=world,
                threads=machine["threads_per_rank"], torch=machine["torch"], before=_fmt_load(load[0]),
                after=_fmt_load(load[1])),
             tr("all-reduce sweep: {fit}", fit=comm_results.fit_line(every_size, world)),
             tr("predictions use beta from messages of at least 1 MiB: bus bandwidth {gbs:.2f} GB/s",
                gbs=sweep["bus_bandwidth_Bps"] / 1e9), "",
             comm_results.format_rows(doc["rows"]), ""]
    lines += [comm_results.summary_line(row) for row in doc["rows"]]
    return "\n".join(lines)


def _fmt_load(value: float | None) -> str:
    return tr("unknown") if value is None else number(value, ".1f")


def add_arguments(parser: argparse.ArgumentParser) -> None:
    d = Settings()
    parser.add_argument("--world", type=int, help="ranks (default: one per GPU or core, at least 2, at most 4)")
    parser.add_argument("--sizes", type=int, nargs="+", default=list(d.sizes), metavar="BYTES",
                        help="all-reduce message sizes of the sweep (default 4 KiB to 32 MiB, x2 steps)")
    parser.add_argument("--repeats", type=int, default=d.repeats, help="timed all-reduces per size")
    parser.add_argument("--models", nargs="+", choices=bench_comm.MODELS, default=list(d.models),
                        help="cnn: compute-bound; mlp: communication-bound; deep: 19 MB of gradients "
                             "ready layer after layer")
    parser.add_argument("--bucket-caps", nargs="+", default=["1", "default"], metavar="MB",
                        help="bucket_cap_mb values ('default' leaves DDP's 25 MB with its 1 MiB first bucket)")
    parser.add_argument("--batch", type=int, default=d.batch, help="batch per rank")
    parser.add_argument("--steps", type=int, default=d.steps, help="timed steps per model and bucket size")
    parser.add_argument("--step-warmup", type=int, default=d.step_warmup, help="untimed steps first")
    parser.add_argument("--device", choices=("auto", "cpu"), default=d.device,
                        help="cpu: hide the GPUs from the ranks")
    parser.add_argument("--backend", choices=backend.BACKENDS, help="force a backend")
    parser.add_argument("--timeout", type=float, default=d.timeout, help="seconds for the launch")
    parser.add_argument("--output", default="bench_comm.json", help="JSON file to write")
    parser.add_argument("--quiet", action="store_true", help="do not stream the ranks' output")


def settings_from_args(args: argparse.Namespace) -> Settings:
    """The `Settings` that parsed ``bench-comm`` arguments ask for."""
    caps = tuple(None if cap == "default" else float(cap) for cap in args.bucket_caps)
    return Settings(world=args.world, sizes=tuple(args.sizes), repeats=args.repeats,
                    models=tuple(args.models), bucket_caps=caps, batch=args.batch, steps=args.steps,
                    step_warmup=args.step_warmup, device=args.device, backend=args.backend,
                    timeout=args.timeout)


def run(args: argparse.Namespace) -> int:
    doc = run_bench_comm(settings_from_args(args), echo=not args.quiet)
    print(report(doc))
    print(tr("saved {path}", path=comm_results.save(doc, args.output)))
    return 0
