"""Grading jobs: one submission per job, each in a scratch folder of its own (optionally sandboxed),
under the grader's limits (`limits`, enforced and measured by `watch`), ``--jobs N`` of them at once,
every process a job started killed by pid when it ends, runs late or goes over a limit.

`grade_notebooks` is the per-notebook step both ways of grading share: local ``--jobs`` runs it on the
whole class, each SLURM array task (`task`) on its slice. Each grade is written to the run folder as
soon as it is known (`results`), and `results.merge` makes the class's grades from them.

Each job gets ``cores // N`` cores through `contract.CORES_ENV` (and ``OMP_NUM_THREADS``), so the
launcher's default threads per rank divide that share and N jobs do not oversubscribe the machine.
Grades come back in (student, exercise) order whatever N is.
"""

from __future__ import annotations

import functools
import os
import shutil
import sys
import tempfile
import threading
import time
from concurrent.futures import ThreadPoolExecutor
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Callable

import nbformat

from ddp_lessons import i18n
from ddp_lessons.runtime import contract
from ddp_lessons.base.conventions import CELL_TIMEOUT, NOTEBOOK_PATTERN
from ddp_lessons.base.exercise_format import check_cells, is_hidden_check
from ddp_lessons.grading import cells, hidden, plugin, results, sandbox, scoring, watch
from ddp_lessons.grading.cells import CellRecord
from ddp_lessons.grading.limits import Limits, Plan
from ddp_lessons.grading.restore import prepare
from ddp_lessons.grading.results import Notebook
from ddp_lessons.grading.scoring import Grade, LimitHit, Status

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


@dataclass(frozen=True)
class Settings:
    """How every notebook of a class is graded, the same on this machine and in every SLURM task."""

    submissions: Path
    solutions: Path
    hidden: Path | None = None
    cell_timeout: float = CELL_TIMEOUT
    notebook_timeout: float = NOTEBOOK_TIMEOUT
    limits: Limits = field(default_factory=Limits)
    sandbox: str = "none"

    def to_dict(self) -> dict:
        """JSON-ready, paths absolute (a SLURM task reads it on another node)."""
        data = asdict(self)
        for key in ("submissions", "solutions", "hidden"):
            data[key] = None if data[key] is None else str(Path(data[key]).resolve())
        data["limits"] = asdict(self.limits)
        return data

    @classmethod
    def from_dict(cls, data: dict) -> "Settings":
        paths = {key: None if data.get(key) is None else Path(data[key]) for key in ("submissions", "solutions",
                                                                                      "hidden")}
        return cls(**paths, cell_timeout=data["cell_timeout"], notebook_timeout=data["notebook_timeout"],
                   limits=Limits(**data["limits"]), sandbox=data["sandbox"])

    def solution(self, exercise: str) -> Path:
        return self.solutions / f"{exercise}.ipynb"

    def submission(self, notebook: Notebook) -> Path:
        return self.submissions / notebook.student / f"{notebook.exercise}.ipynb"

    @functools.cache
    def checks(self, exercise: str) -> tuple:
        """The exercise's check cells: the solution's, then the instructor's hidden ones."""
        solution = self.solution(exercise)
        return (*check_cells(nbformat.read(solution, as_version=4), str(solution)),
                *hidden.load(self.hidden, exercise))


def plan(submissions: Path, solutions: Path, exercises: list[str] | None = None) -> list[Notebook]:
    """Every student folder in `submissions` times every exercise of `solutions` (or `exercises`), sorted."""
    keys = [path.stem for path in sorted(solutions.glob(NOTEBOOK_PATTERN))
            if exercises is None or path.stem in exercises]
    students = sorted(path.name for path in submissions.iterdir()
                      if path.is_dir() and not path.name.startswith("."))
    return [Notebook(student, exercise) for student in students for exercise in keys]


PYTEST_MAIN = "import sys; sys.modules['rfc3987_syntax'] = None; import pytest; sys.exit(pytest.main())"
"""pytest's own entry point, started without `rfc3987_syntax`. nbval reads notebooks with nbformat, which
imports jsonschema, which imports rfc3987_syntax (where installed: Jupyter's jsonschema[format-nongpl]) for two
format checkers nbformat never uses; that import compiles a grammar, about 0.9 s of CPU. A class of 300 x 16
notebooks would pay it 4,800 times."""


def nbval_command(notebook: Path, report: Path, cell_timeout: float, limits_file: Path | None = None) -> list[str]:
    """The pytest command line that runs `notebook` under nbval with the grader's plugin."""
    # -s: the kernel inherits pytest's stdout, the log (where the grader counts what processes print to
    # the terminal), instead of a capture file in /tmp that nobody reads
    return [sys.executable, "-c", PYTEST_MAIN, "-q", "-s", "-p", "no:cacheprovider", "-p", plugin.__name__,
            "--nbval-lax", "--nbval-current-env", f"--nbval-cell-timeout={cell_timeout:g}",
            f"{plugin.REPORT_OPTION}={report}",
            *([f"{plugin.LIMITS_OPTION}={limits_file}"] if limits_file else []), str(notebook)]


def read_report(report: Path) -> dict[int, CellRecord]:
    """The plugin's records by nbval cell number (empty when pytest never ran a cell)."""
    return cells.read(report)


def last_line(log: Path) -> str:
    """The last non-empty line pytest printed (why it stopped before running any cell)."""
    text = log.read_text(encoding="utf-8", errors="replace").strip()
    return text.splitlines()[-1].strip() if text else "no output"


def running_cell(results: dict[int, CellRecord]) -> int | None:
    """The cell that had started but not ended when the job was stopped (the plugin's start record)."""
    return max((cell for cell, record in results.items() if record.running), default=None)


def unattributed_hit(hits: dict[str, int], results: dict[int, CellRecord]) -> str | None:
    """A limit the job's cgroup counted a hit on that no cell record names (pytest itself was killed)."""
    named = {record.limit for record in results.values()}
    return next((kind for kind in ("memory", "processes") if hits.get(kind) and kind not in named), None)


@dataclass
class NotebookRun:
    """What running one scratch notebook under nbval gave: each cell's record, and whether the run as a
    whole went wrong (a reason voiding it, its status, the limit it went over outside any cell)."""

    cells: dict[int, CellRecord]
    usage: watch.Usage
    void: str | None = None
    status: Status = Status.GRADED
    limit: LimitHit | None = None


def run_nbval(notebook: Path, cell_timeout: float, notebook_timeout: float, *,
              box: sandbox.Sandbox | None = None, env: dict[str, str] | None = None,
              plan: Plan | None = None) -> NotebookRun:
    """Run `notebook` under nbval and `plan`'s limits: each cell's record, what the run used at most,
    and what voids it (past the notebook timeout, over a limit outside any cell, never started)."""
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
    run = NotebookRun(read_report(report), outcome.usage)
    run.usage.output = max([run.usage.output] + [record.output for record in run.cells.values()])
    hit = outcome.stopped_for or unattributed_hit(outcome.kernel_hits, run.cells)
    if hit is not None:
        words, value = plan.limits.words(hit), getattr(plan.limits, hit)
        cell = running_cell(run.cells)
        if cell is None and any(record.limit for record in run.cells.values()):
            return run  # the plugin named the cell already
        if cell is None:
            run.void, run.status = f"the notebook {words} (the grader's limit)", Status.OVER_LIMIT
            run.limit = LimitHit(hit, value)
            return run
        run.cells[cell] = CellRecord(cell, error=f"{words} (the grader's limit)", crashed=True, limit=hit,
                                     value=value)
        return run
    if outcome.timed_out:
        run.void = f"the notebook ran past its {notebook_timeout:g} s limit and was stopped"
        run.status = Status.TIMED_OUT
    elif not run.cells:
        run.void, run.status = f"pytest stopped before running a cell: {last_line(log)}", Status.DID_NOT_RUN
    return run


def grade_notebook(submission: Path, solution: Path, student: str = "", *, cell_timeout: float = CELL_TIMEOUT,
                   notebook_timeout: float = NOTEBOOK_TIMEOUT, box: sandbox.Sandbox | None = None,
                   env: dict[str, str] | None = None, workdir: Path | None = None,
                   plan: Plan | None = None, checks: list | None = None) -> Grade:
    """Run `submission` in a scratch folder (in `workdir`, under `box` and `plan`'s limits: by default
    the grader's default limits) and score it against `solution`'s checks (or `checks`: the solution's
    then hidden ones)."""
    if checks is None:
        checks = check_cells(nbformat.read(solution, as_version=4), str(solution))
    if not submission.is_file():
        return scoring.unscored(student, solution.stem, checks, scoring.NOT_SUBMITTED, "not submitted")
    scratch = Path(tempfile.mkdtemp(prefix="ddp-grade-", dir=workdir))
    try:
        notebook = scratch / "notebook" / solution.name
        try:
            placed = prepare(submission, [check for check in checks if not is_hidden_check(check)], notebook,
                             [check for check in checks if is_hidden_check(check)])
            language = i18n.notebook_language(nbformat.read(notebook, as_version=4))
        except Exception as error:  # any unreadable file scores zero instead of stopping the run
            reason = f"unreadable notebook: {plugin.first_line(str(error), type(error).__name__)}"
            return scoring.unscored(student, solution.stem, checks, scoring.UNREADABLE, reason)
        # a Spanish exercise's hints come out in Spanish: its scratch copy no longer sits in an es/ folder;
        # a graded notebook's answers and checks go into no learner's record
        env = {**(os.environ if env is None else env), contract.LANGUAGE_ENV: language, contract.JOURNAL_ENV: "off"}
        run = run_nbval(notebook, cell_timeout, notebook_timeout, box=box, env=env, plan=plan)
    finally:
        shutil.rmtree(scratch, ignore_errors=True)
    grade = scoring.score(solution.stem, student, checks, placed, run.cells, run.void, run.status, run.limit)
    grade.language = language
    grade.usage = run.usage
    return grade


def graded_line(notebook: Notebook, grade: Grade, seconds: float) -> str:
    """``alice/05_distributed_sampler.ipynb: 3/4 [peak 812 MiB memory, ...] (12.3 s)``: the line per notebook
    (in the command's language: ``0/4 no entregado (0,0 s)``)."""
    status = "" if grade.status == scoring.GRADED else f" {scoring.said(grade.status)}"
    used = f" [{grade.usage.text()}]" if grade.usage is not None else ""
    return f"{notebook.name}.ipynb: {grade.points}/{grade.max_points}{status}{used} ({i18n.number(seconds, '.1f')} s)"


def grade_notebooks(settings: Settings, notebooks: list[Notebook], jobs: int = 1, *, run: Path | None = None,
                    cores: int | None = None, on_graded: Callable[[str], None] | None = None) -> dict[Notebook, Grade]:
    """The per-notebook step, `jobs` notebooks at a time (each with `cores` // `jobs` cores): grade each
    of `notebooks` under `settings`, store each grade in the run folder `run` as soon as it is known, and
    return them. The first line printed says every limit and how it is enforced here."""
    env = job_environment(jobs, cores)
    printing = threading.Lock()
    say = on_graded or (lambda line: print(line, flush=True))
    with tempfile.TemporaryDirectory(prefix="ddp-grading-") as workdir:
        box = None
        if sandbox.resolve(settings.sandbox):  # hide what no submission may see, all scratch folders included
            private = [settings.submissions, settings.solutions, Path(workdir), settings.hidden, run]
            box = sandbox.Sandbox([path for path in private if path is not None])
        limits_plan = Plan.probe(settings.limits, sandboxed=box is not None)
        say(limits_plan.line(settings.cell_timeout, settings.notebook_timeout))

        def grade_one(notebook: Notebook) -> tuple[Notebook, Grade]:
            start = time.perf_counter()
            submission = settings.submission(notebook)
            submitted = results.fingerprint(submission)
            grade = grade_notebook(submission, settings.solution(notebook.exercise), notebook.student,
                                   cell_timeout=settings.cell_timeout, notebook_timeout=settings.notebook_timeout,
                                   box=box, env=env, workdir=Path(workdir), plan=limits_plan,
                                   checks=list(settings.checks(notebook.exercise)))
            if run is not None:
                results.write_result(run, notebook, grade, submitted)
            with printing:
                say(graded_line(notebook, grade, time.perf_counter() - start))
            return notebook, grade

        with ThreadPoolExecutor(max_workers=max(1, jobs)) as pool:
            return dict(pool.map(grade_one, notebooks))


def grade_folder(submissions: Path, solutions: Path, exercises: list[str] | None = None, *,
                 cell_timeout: float = CELL_TIMEOUT, notebook_timeout: float = NOTEBOOK_TIMEOUT,
                 jobs: int = 1, sandbox_mode: str = "none", limits: Limits | None = None,
                 hidden_checks: Path | None = None) -> list[Grade]:
    """Grade every student folder in `submissions` on every exercise of `solutions` (or `exercises`),
    `jobs` notebooks at a time, each under `limits` (default: the grader's defaults), with the hidden
    checks in `hidden_checks` if given; the grades come back in (student, exercise) order."""
    settings = Settings(submissions, solutions, hidden_checks, cell_timeout, notebook_timeout,
                        limits or Limits(), sandbox_mode)
    notebooks = plan(submissions, solutions, exercises)
    found = grade_notebooks(settings, notebooks, jobs)
    return results.merge(notebooks, found, settings.checks)
