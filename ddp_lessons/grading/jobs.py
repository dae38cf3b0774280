"""Grading jobs: one submission per job, each in a scratch folder of its own (optionally sandboxed),
under the grader's limits (`limits`, enforced and measured by `watch`), ``--jobs N`` of them at once,
every process a job started killed by pid when it ends, runs late or goes over a limit.

Each job gets ``cores // N`` cores through `contract.CORES_ENV` (and ``OMP_NUM_THREADS``), so the
launcher's default threads per rank divide that share and N jobs do not oversubscribe the machine.
Grades come back in (student, exercise) order whatever N is.
"""

from __future__ import annotations

import json
import os
import shutil
import sys
import tempfile
import threading
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import nbformat

from ddp_lessons import i18n
from ddp_lessons.runtime import contract
from ddp_lessons.base.conventions import CELL_TIMEOUT, NOTEBOOK_PATTERN
from ddp_lessons.base.exercise_format import check_cells
from ddp_lessons.grading import plugin, sandbox, scoring, watch
from ddp_lessons.grading.limits import Limits, Plan
from ddp_lessons.grading.restore import prepare
from ddp_lessons.grading.scoring import Grade

NOTEBOOK_TIMEOUT = 900
"""Seconds one notebook may take in all, kernel start included, before its processes are killed."""


def default_jobs(cores: int | None = None) -> int:
    """Notebooks to grade at once: each exercise launches 2 ranks, so cores // 2, at least 1."""
    from ddp_lessons import backend  # imports torch: never at import time, the plugin loads this package
    return max(1, (cores or backend.cpu_cores()) // 2)


def job_environment(jobs: int, cores: int | None = None) -> dict[str, str]:
    """The environment of one of `jobs` parallel jobs: its share of the cores, for the launcher and torch."""
    from ddp_lessons import backend
    share = str(max(1, (cores or backend.cpu_cores()) // max(1, jobs)))
    return {**os.environ, contract.CORES_ENV: share, "OMP_NUM_THREADS": share, "MKL_NUM_THREADS": share}


def nbval_command(notebook: Path, report: Path, cell_timeout: float, limits_file: Path | None = None) -> list[str]:
    """The pytest command line that runs `notebook` under nbval with the grader's plugin."""
    # -s: the kernel inherits pytest's stdout, the log (where the grader counts what processes print to
    # the terminal), instead of a capture file in /tmp that nobody reads
    return [sys.executable, "-m", "pytest", "-q", "-s", "-p", "no:cacheprovider", "-p", plugin.__name__,
            "--nbval-lax", "--nbval-current-env", f"--nbval-cell-timeout={cell_timeout:g}",
            f"{plugin.REPORT_OPTION}={report}",
            *([f"{plugin.LIMITS_OPTION}={limits_file}"] if limits_file else []), str(notebook)]


def read_report(report: Path) -> dict[int, dict]:
    """The plugin's records by nbval cell number (empty when pytest never ran a cell)."""
    if not report.exists():
        return {}
    records = [json.loads(line) for line in report.read_text(encoding="utf-8").splitlines() if line]
    return {record["cell"]: record for record in records}


def last_line(log: Path) -> str:
    """The last non-empty line pytest printed (why it stopped before running any cell)."""
    text = log.read_text(encoding="utf-8", errors="replace").strip()
    return text.splitlines()[-1].strip() if text else "no output"


def running_cell(results: dict[int, dict]) -> int | None:
    """The cell that had started but not ended when the job was stopped (the plugin's start record)."""
    return max((cell for cell, record in results.items() if record.get("running")), default=None)


def unattributed_hit(hits: dict[str, int], results: dict[int, dict]) -> str | None:
    """A limit the job's cgroup counted a hit on that no cell record names (pytest itself was killed)."""
    named = {record.get("limit") for record in results.values()}
    return next((kind for kind in ("memory", "processes") if hits.get(kind) and kind not in named), None)


def run_nbval(notebook: Path, cell_timeout: float, notebook_timeout: float, *,
              box: sandbox.Sandbox | None = None, env: dict[str, str] | None = None,
              plan: Plan | None = None
              ) -> tuple[dict[int, dict], str | None, str, watch.Usage, scoring.LimitHit | None]:
    """Each cell's record from running `notebook` under nbval and `plan`'s limits, a reason voiding the
    run (or None), a status, what the run used at most, and the limit it went over outside any cell."""
    scratch = notebook.parent.parent
    report, log = scratch / "cells.jsonl", scratch / "pytest.log"
    plan = plan or Plan.probe(Limits(), sandboxed=box is not None)
    job = watch.Job(plan, scratch, log)
    try:
        command = nbval_command(notebook, report, cell_timeout,
                                watch.write_plugin_config(job, scratch / "limits.json"))
        if box is not None:
            command = box.command(command, scratch, notebook.parent,
                                  tmp_size=plan.limits.disk if plan.tmpfs_size else None)
        else:  # no private /tmp: temporary files go where the disk limit watches
            (scratch / "tmp").mkdir()
            env = {**(env or os.environ), "TMPDIR": str(scratch / "tmp")}
        outcome = job.run(command, notebook.parent, notebook_timeout, env)
    finally:
        job.close()
    results = read_report(report)
    usage = outcome.usage
    usage.output = max([usage.output] + [record.get("output", 0) or 0 for record in results.values()])
    hit = outcome.stopped_for or unattributed_hit(outcome.kernel_hits, results)
    if hit is not None:
        words, value = plan.limits.words(hit), getattr(plan.limits, hit)
        cell = running_cell(results)
        if cell is None and any(record.get("limit") for record in results.values()):
            return results, None, scoring.GRADED, usage, None  # the plugin named the cell already
        if cell is None:
            return (results, f"the notebook {words} (the grader's limit)", scoring.OVER_LIMIT, usage,
                    scoring.LimitHit(hit, value))
        results[cell] = {"cell": cell, "error": f"{words} (the grader's limit)", "hint": "", "timed_out": False,
                         "crashed": True, "limit": hit, "value": value}
        return results, None, scoring.GRADED, usage, None
    if outcome.timed_out:
        return (results, f"the notebook ran past its {notebook_timeout:g} s limit and was stopped",
                scoring.TIMED_OUT, usage, None)
    if not results:
        return (results, f"pytest stopped before running a cell: {last_line(log)}", scoring.DID_NOT_RUN,
                usage, None)
    return results, None, scoring.GRADED, usage, None


def grade_notebook(submission: Path, solution: Path, student: str = "", *, cell_timeout: float = CELL_TIMEOUT,
                   notebook_timeout: float = NOTEBOOK_TIMEOUT, box: sandbox.Sandbox | None = None,
                   env: dict[str, str] | None = None, workdir: Path | None = None,
                   plan: Plan | None = None) -> Grade:
    """Run `submission` in a scratch folder (in `workdir`, under `box` and `plan`'s limits: by default
    the grader's default limits) and score it against `solution`."""
    checks = check_cells(nbformat.read(solution, as_version=4), str(solution))
    if not submission.is_file():
        return scoring.unscored(student, solution.stem, checks, scoring.NOT_SUBMITTED, "not submitted")
    scratch = Path(tempfile.mkdtemp(prefix="ddp-grade-", dir=workdir))
    try:
        notebook = scratch / "notebook" / solution.name
        try:
            placed = prepare(submission, checks, notebook)
            language = i18n.notebook_language(nbformat.read(notebook, as_version=4))
        except Exception as error:  # any unreadable file scores zero instead of stopping the run
            reason = f"unreadable notebook: {plugin.first_line(str(error), type(error).__name__)}"
            return scoring.unscored(student, solution.stem, checks, scoring.UNREADABLE, reason)
        # a Spanish exercise's hints come out in Spanish: its scratch copy no longer sits in an es/ folder;
        # a graded notebook's answers and checks go into no learner's record
        env = {**(os.environ if env is None else env), contract.LANGUAGE_ENV: language, contract.JOURNAL_ENV: "off"}
        results, void, status, usage, limit = run_nbval(notebook, cell_timeout, notebook_timeout, box=box,
                                                        env=env, plan=plan)
    finally:
        shutil.rmtree(scratch, ignore_errors=True)
    grade = scoring.score(solution.stem, student, checks, placed, results, void, status, limit)
    grade.language = language
    grade.usage = usage
    return grade


def grade_folder(submissions: Path, solutions: Path, exercises: list[str] | None = None, *,
                 cell_timeout: float = CELL_TIMEOUT, notebook_timeout: float = NOTEBOOK_TIMEOUT,
                 jobs: int = 1, sandbox_mode: str = "none", limits: Limits | None = None) -> list[Grade]:
    """Grade every student folder in `submissions` on every exercise of `solutions` (or `exercises`),
    `jobs` notebooks at a time, each under `limits` (default: the grader's defaults); the grades come
    back in (student, exercise) order. The first line printed says every limit and how it is enforced."""
    keys = [path for path in sorted(solutions.glob(NOTEBOOK_PATTERN))
            if exercises is None or path.stem in exercises]
    students = sorted(path for path in submissions.iterdir()
                      if path.is_dir() and not path.name.startswith("."))
    tasks = [(student, solution) for student in students for solution in keys]
    env = job_environment(jobs)
    printing = threading.Lock()
    with tempfile.TemporaryDirectory(prefix="ddp-grading-") as workdir:
        box = None
        if sandbox.resolve(sandbox_mode):  # hide what no submission may see, all scratch folders included
            box = sandbox.Sandbox([submissions, solutions, Path(workdir)])
        plan = Plan.probe(limits or Limits(), sandboxed=box is not None)
        print(plan.line(cell_timeout, notebook_timeout), flush=True)

        def grade_one(task: tuple[Path, Path]) -> Grade:
            student, solution = task
            start = time.perf_counter()
            grade = grade_notebook(student / solution.name, solution, student.name, cell_timeout=cell_timeout,
                                   notebook_timeout=notebook_timeout, box=box, env=env, workdir=Path(workdir),
                                   plan=plan)
            with printing:
                status = "" if grade.status == scoring.GRADED else f" {grade.status}"
                used = f" [{grade.usage.text()}]" if grade.usage is not None else ""
                print(f"{student.name}/{solution.name}: {grade.points}/{grade.max_points}{status}{used} "
                      f"({time.perf_counter() - start:.1f} s)", flush=True)
            return grade

        with ThreadPoolExecutor(max_workers=max(1, jobs)) as pool:
            return list(pool.map(grade_one, tasks))
