"""How much `grade --slurm` costs over local grading: one class graded with local `--jobs N` and through a
SLURM job array on a one-node cluster started here (tests/slurm_cluster.py: munged, slurmctld and slurmd from
Debian's slurm-wlm and munge), repeated; both must give the same gradebook. With --costs, instead: the
seconds of grading every solution and every untouched exercise alone, per exercise (the per-notebook costs
of docs/INSTRUCTORS.md's model of a class on K nodes).

    .venv/bin/python tools/grade_slurm_bench.py [--students 24] [--exercise 01_why_ddp ...] [--repeat 2]
    .venv/bin/python tools/grade_slurm_bench.py --costs

The class is tools/grade_bench.py's (by student number: correct, half done, untouched, not submitted, a
kernel crash every 10th): 24 students x 2 exercises hand in 40 notebooks. On a 2-core machine the default
is `--jobs 1` locally and, on SLURM, 2 CPUs per task, so both grade one notebook at a time: the difference
is what SLURM adds (submission, scheduling, each task's start, the driver's polling). Each run prints its
wall time, the seconds spent inside the notebooks (the sum of the grader's per-notebook lines: what the
machine's load moves) and the rest, outside them; the SLURM run also the start-up of each of its tasks.
"""
import argparse
import json
import os
import re
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path[:0] = [str(ROOT / "tests"), str(ROOT / "tools")]

from grade_bench import build_class  # noqa: E402
from slurm_cluster import SlurmCluster, require_slurm  # noqa: E402

LINE = re.compile(r"^(\S+)/(\d\d_\w+)\.ipynb: (\d+)/(\d+)(.*?) \(([\d.]+) s\)$", re.MULTILINE)


def grade(submissions: Path, out: Path, exercises: list[str], env: dict, *options: str) -> tuple[float, str]:
    """Run `grade`; its wall seconds and what it printed."""
    command = [sys.executable, "-m", "ddp_lessons", "grade", str(submissions), "--out", str(out),
               "--solutions", str(ROOT / "solutions"), *[f"--exercise={name}" for name in exercises], *options]
    start = time.perf_counter()
    done = subprocess.run(command, env=env, capture_output=True, text=True)
    seconds = time.perf_counter() - start
    if done.returncode != 0:
        sys.exit(f"grade failed ({done.returncode}):\n{done.stdout[-3000:]}\n{done.stderr[-3000:]}")
    return seconds, done.stdout


def load() -> str:
    return " / ".join(f"{value:.1f}" for value in os.getloadavg())


def notebook_seconds(text: str) -> list[float]:
    """The seconds of every notebook handed in, from the lines the grader (or a task) printed."""
    return [float(match[5]) for match in LINE.findall(text) if "not submitted" not in match[4]]


def compare(students: int, exercises: list[str], repeat: int, jobs: int) -> None:
    """Grade the class locally, then through SLURM (each attempt); print both wall times, their ratio, and
    what each spent outside its notebooks (wall time minus the sum of the notebooks' own seconds): the
    machine's load moves the notebooks' seconds, and that part is what SLURM adds."""
    require_slurm()
    with tempfile.TemporaryDirectory(prefix="grade-slurm-bench-") as scratch:
        scratch = Path(scratch)
        counts = build_class(scratch / "submissions", students, exercises)
        handed_in = sum(count for kind, count in counts.items() if kind != "not submitted") * len(exercises)
        print(f"class: {students} students x {len(exercises)} exercises ({', '.join(exercises)}): {counts}; "
              f"{handed_in} notebooks handed in; this machine: {os.cpu_count()} cores", flush=True)
        with SlurmCluster(scratch / "slurm") as cluster:
            for attempt in range(repeat):
                wall = {}
                for route in ("local", "slurm"):
                    out = scratch / f"{route}-{attempt}" / "grades.csv"
                    out.parent.mkdir()
                    before = load()
                    options = ("--jobs", str(jobs)) if route == "local" else ("--slurm",)
                    seconds, printed = grade(scratch / "submissions", out, exercises, cluster.env, *options)
                    wall[route] = seconds
                    logs = sorted((out.parent / "grades-run" / "slurm").glob("round-*/task-*.out"))
                    graded = notebook_seconds(printed if route == "local" else
                                              "".join(log.read_text() for log in logs))
                    print(f"run {attempt + 1} {route:5}: {seconds:6.1f} s (load {before} before, {load()} after); "
                          f"{len(graded)} notebooks graded, {sum(graded):.1f} s in them "
                          f"({sum(graded) / max(1, len(graded)):.1f} s each), {seconds - sum(graded):.1f} s outside",
                          flush=True)
                    if route == "slurm":
                        markers = [json.loads(path.read_text()) for path in
                                   sorted((out.parent / "grades-run" / "slurm").glob("round-*/task-*.done"))]
                        print(f"        {len(logs)} task(s), their start-ups {[m.get('startup') for m in markers]} s; "
                              f"--slurm / local: {seconds / wall['local']:.2f}", flush=True)
                        local = (scratch / f"local-{attempt}" / "grades.csv").read_text()
                        print(f"        same gradebook as local: {out.read_text() == local}", flush=True)


def costs() -> None:
    """Grade every solution and every untouched exercise alone, at --jobs 1: seconds per notebook."""
    with tempfile.TemporaryDirectory(prefix="grade-costs-") as scratch:
        scratch = Path(scratch)
        for kind, folder in (("solution", ROOT / "solutions"), ("untouched", ROOT / "exercises")):
            (scratch / kind / kind).mkdir(parents=True)
            for path in sorted(folder.glob("[0-9][0-9]_*.ipynb")):
                (scratch / kind / kind / path.name).write_bytes(path.read_bytes())
            print(f"{kind}: load {load()} before", flush=True)
            _, printed = grade(scratch / kind, scratch / f"{kind}.csv", [], os.environ.copy(), "--jobs", "1")
            for student, exercise, points, most, status, seconds in LINE.findall(printed):
                print(f"  {exercise}: {float(seconds):5.1f} s ({points}/{most}{status.split(' [')[0]})", flush=True)
            print(f"{kind}: load {load()} after", flush=True)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--students", type=int, default=24)
    parser.add_argument("--exercise", action="append", metavar="NN_topic",
                        help="exercises of the class (repeat); default 01_why_ddp and 05_distributed_sampler")
    parser.add_argument("--repeat", type=int, default=2)
    parser.add_argument("--jobs", type=int, default=1, help="local --jobs (default 1: what a 2-core machine runs)")
    parser.add_argument("--costs", action="store_true", help="per-exercise seconds of a solution and an untouched "
                                                             "exercise, instead of the comparison")
    args = parser.parse_args()
    if args.costs:
        costs()
    else:
        compare(args.students, args.exercise or ["01_why_ddp", "05_distributed_sampler"], args.repeat, args.jobs)


if __name__ == "__main__":
    main()
