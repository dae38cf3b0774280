"""``python -m ddp_lessons bench-live``: what a live cell costs against a fresh torchrun launch.

Prints, on this machine: the time to start a live group; the median round trip of a trivial
``%%ranks`` cell and of a cell that all-reduces 1 MB, on N ranks; the same all-reduce as a fresh
`launch.run_torchrun` job (start, join, all-reduce, exit); and the ratio launch / live cell. The
load average before and after says whether other programs competed for the cores. The figures in
docs/LIVE.md come from this command.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import tempfile
import time
from pathlib import Path

from ddp_lessons import backend, launch
from ddp_lessons.i18n import tr
from ddp_lessons.live.group import RankGroup

MB = 1_000_000
TRIVIAL_CELL = "x = rank"
ALL_REDUCE_CELL = "dist.all_reduce(payload)"
SETUP_CELL = f"payload = torch.ones({MB // 4}, device=device)  # 1 MB of float32"
LAUNCH_SCRIPT = f"""import torch
import torch.distributed as dist
from ddp_lessons import backend

choice = backend.choose()
dist.init_process_group(backend=choice.backend)
payload = torch.ones({MB // 4}, device=choice.device)  # 1 MB of float32
dist.all_reduce(payload)
dist.destroy_process_group()
"""


def _timed(function, repeats: int) -> list[float]:
    times = []
    for _ in range(repeats):
        start = time.perf_counter()
        function()
        times.append(time.perf_counter() - start)
    return times


def _checked(result):
    """The cell result, or an error if it failed on a rank (a benchmark of failures means nothing)."""
    result.raise_for_failure()
    return result


def measure(nproc: int = 2, repeats: int = 20, launches: int = 3) -> dict:
    """Time a live group (start, trivial cell, 1 MB all-reduce cell) and fresh launches; seconds."""
    load_before = os.getloadavg()[0]
    with tempfile.TemporaryDirectory(prefix="ddp-bench-live-") as scratch:
        start = time.perf_counter()
        group = RankGroup(nproc, runs_root=scratch).start()
        started = time.perf_counter() - start
        try:
            _checked(group.execute(SETUP_CELL))
            _checked(group.execute(ALL_REDUCE_CELL))  # warm-up: gloo connects on first use
            trivial = _timed(lambda: _checked(group.execute(TRIVIAL_CELL)), repeats)
            all_reduce = _timed(lambda: _checked(group.execute(ALL_REDUCE_CELL)), repeats)
        finally:
            group.stop()
        script = Path(scratch) / "all_reduce_1mb.py"
        script.write_text(LAUNCH_SCRIPT)
        fresh = _timed(lambda: launch.run_torchrun(script, nproc, echo=False,
                                                   run_dir=Path(scratch) / "launch"), launches)
    return {"nproc": nproc, "cores": backend.cpu_cores(), "start": started,
            "trivial_cell": trivial, "all_reduce_cell": all_reduce, "fresh_launch": fresh,
            "load_before": load_before, "load_after": os.getloadavg()[0]}


def report(figures: dict) -> str:
    """The measurements as a few lines of text: medians, goals and the launch / live ratio."""
    median = {key: statistics.median(figures[key]) for key in ("trivial_cell", "all_reduce_cell",
                                                             "fresh_launch")}
    ratio = median["fresh_launch"] / median["all_reduce_cell"]
    return "\n".join([
        tr("live ranks on {nproc} ranks, {cores} CPU core(s); load average {before:.2f} before, {after:.2f} after",
           nproc=figures["nproc"], cores=figures["cores"], before=figures["load_before"], after=figures["load_after"]),
        tr("  start the live group (torchrun + engines): {seconds:7.2f} s (once)", seconds=figures["start"]),
        tr("  trivial %%ranks cell, median of {count:>3}: {seconds:7.3f} s  (goal <= 0.5 s)",
           count=len(figures["trivial_cell"]), seconds=median["trivial_cell"]),
        tr("  1 MB all_reduce cell, median of {count:>3}: {seconds:7.3f} s  (goal <= 1 s)",
           count=len(figures["all_reduce_cell"]), seconds=median["all_reduce_cell"]),
        tr("  same all_reduce as a fresh run_torchrun, median of {count}: {seconds:7.2f} s",
           count=len(figures["fresh_launch"]), seconds=median["fresh_launch"]),
        tr("  fresh launch / live cell: {ratio:7.0f} x", ratio=ratio)])


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--nproc", type=int, default=2, help="ranks (default 2)")
    parser.add_argument("--repeats", type=int, default=20, help="timed live cells of each kind")
    parser.add_argument("--launches", type=int, default=3, help="timed fresh torchrun launches")
    parser.add_argument("--json", action="store_true", help="also print every time as JSON")


def run(args: argparse.Namespace) -> int:
    figures = measure(args.nproc, args.repeats, args.launches)
    print(report(figures))
    if args.json:
        print(json.dumps(figures, indent=1))
    return 0
