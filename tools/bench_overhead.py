"""Does a 1-rank bench run time the same step as the bench's loop without torchrun (within 10 %)?

The bench reports torchrun's start-up apart from training; if it did not, the 1-rank step time would
miss by orders of magnitude. This runs the 1-rank bench (cnn, weak scaling, 1 thread) between two
timings of the same loop on a plain model in a fresh process, and prints both medians and their ratio.
Other programs on a shared machine disturb single tries, so it tries up to `--tries` times and exits
non-zero when the last try is still beyond `--tolerance`:
    .venv/bin/python tools/bench_overhead.py [--tries 3] [--tolerance 0.10]
"""
import argparse
import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path

from ddp_lessons import bench

ONE_RANK = bench.Settings(world_sizes=[1], models=("cnn",), scalings=("weak",), batch=32, steps=20,
                          warmup=5, threads=1)


def plain_loop_median() -> float:
    """Median step time of the bench's loop on a plain model, in a fresh process without torchrun."""
    code = ("import json; from ddp_lessons import bench; print(json.dumps(bench.time_without_torchrun("
            f"'cnn', {ONE_RANK.batch}, {ONE_RANK.steps}, {ONE_RANK.warmup}, threads=1)))")
    out = subprocess.run([sys.executable, "-c", code], env={**os.environ, "OMP_NUM_THREADS": "1"},
                         capture_output=True, text=True, check=True)
    return json.loads(out.stdout.splitlines()[-1])["median"]


def one_try() -> tuple[float, float, float]:
    """(1-rank DDP median step s, plain loop median step s, the launch's start-up s)."""
    before = plain_loop_median()
    with tempfile.TemporaryDirectory(prefix="bench-overhead-") as scratch:
        cwd = os.getcwd()
        os.chdir(scratch)  # run directories go to ./runs
        try:
            result = bench.run_bench(ONE_RANK, echo=False)
        finally:
            os.chdir(cwd)
    ddp = bench.select(result, "cnn/weak", "every")[0]["step_s"]["median"]
    return ddp, (before + plain_loop_median()) / 2, result["runs"][0]["startup_s"]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--tries", type=int, default=3, help="tries before giving up (default 3)")
    parser.add_argument("--tolerance", type=float, default=0.10, help="allowed |ratio - 1| (default 0.10)")
    args = parser.parse_args(argv)
    load = os.getloadavg()[0] if hasattr(os, "getloadavg") else float("nan")
    print(f"{ONE_RANK.models[0]}, batch {ONE_RANK.batch}, 1 thread; load average {load:.2f} "
          f"on {os.cpu_count()} cores")
    for attempt in range(1, args.tries + 1):
        ddp, plain, startup = one_try()
        ratio = ddp / plain
        print(f"try {attempt}: 1-rank DDP {ddp * 1e3:.1f} ms/step, plain loop {plain * 1e3:.1f} ms/step, "
              f"ratio {ratio:.3f}; start-up {startup:.1f} s, reported apart")
        if startup <= 10 * ddp:
            print("start-up is not reported apart from the step time")
            return 1
        if abs(ratio - 1) <= args.tolerance:
            print(f"within {args.tolerance:.0%}")
            return 0
    print(f"beyond {args.tolerance:.0%} after {args.tries} tries")
    return 1


if __name__ == "__main__":
    sys.exit(main())
