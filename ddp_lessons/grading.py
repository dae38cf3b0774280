"""`python -m ddp_lessons grade SUBMISSIONS --out grades.csv`: run students' notebooks, score check cells.

Layout: ``SUBMISSIONS/<student>/<NN_topic>.ipynb``; every exercise in ``solutions/`` is graded for
every student. Each notebook runs in a scratch folder of its own (never in place): the grader clears
its outputs, restores each check cell's source and metadata from the solution (so editing a check or
its points changes nothing), and runs ``python -m pytest --nbval-lax --nbval-current-env
--nbval-cell-timeout=T`` on it. This module is also the small pytest plugin (``-p
ddp_lessons.grading``) that writes each cell's outcome to a report file.

A check cell scores its points only if it passed. A cell that times out, a kernel that dies, or a
notebook that runs past its overall limit scores zero for the exercise; at that limit pytest, the
kernel and everything they started are killed by pid, so one submission never stalls the run.
"""

from __future__ import annotations

import argparse
import csv
import json
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Iterable

import nbformat
from nbformat import NotebookNode

from ddp_lessons import processes
from ddp_lessons.exercises import NOTEBOOK_PATTERN, check_cells

CELL_TIMEOUT = 300
"""Seconds one cell may run before nbval interrupts it (the exercise then scores zero); the course's
nbval timeout, above `launch.DEFAULT_TIMEOUT` so that a hung torchrun job fails with its own message."""
NOTEBOOK_TIMEOUT = 900
"""Seconds one notebook may take in all, kernel start included, before its processes are killed."""
REPORT_OPTION = "--ddp-lessons-report"
_NBVAL_EXCEPTION = "Cell execution caused an exception"
_NBVAL_TIMEOUT = "Timeout of"
CSV_COLUMNS = ("student", "exercise", "points", "max_points", "failed_checks")


@dataclass
class Grade:
    """One student's result on one exercise, as a gradebook row."""

    student: str
    exercise: str
    points: int
    max_points: int
    failed_checks: list[str] = field(default_factory=list)

    def row(self) -> dict[str, str | int]:
        """The CSV row: failed checks joined with ' | '."""
        return {"student": self.student, "exercise": self.exercise, "points": self.points,
                "max_points": self.max_points, "failed_checks": " | ".join(self.failed_checks)}


# --- the pytest plugin, loaded in the grading subprocess with `-p ddp_lessons.grading` -------------

def pytest_addoption(parser) -> None:
    """Add the option naming the JSON-lines file that receives each cell's outcome."""
    parser.addoption(REPORT_OPTION, help="(ddp_lessons grading) append each cell's outcome here")


def pytest_runtest_makereport(item, call) -> None:
    """Append ``{"cell", "error", "timed_out"}`` for each nbval cell that reached its run phase."""
    report = item.config.getoption(REPORT_OPTION)
    if report is None or call.when != "call" or not hasattr(item, "cell_num"):
        return
    error = None if call.excinfo is None else failure_line(call.excinfo.value,
                                                           getattr(item, "test_outputs", None))
    record = {"cell": item.cell_num, "error": error,
              "timed_out": bool(error and error.startswith(_NBVAL_TIMEOUT))}
    with open(report, "a", encoding="utf-8") as out:
        out.write(json.dumps(record) + "\n")


def failure_line(exc: BaseException, outputs: list | None) -> str:
    """First line of why a cell failed: ``Ename: message`` for an exception, else nbval's reason."""
    message = str(exc).strip()
    errors = [out for out in outputs or [] if out.get("output_type") == "error"]
    if message == _NBVAL_EXCEPTION and errors:
        evalue = errors[-1]["evalue"].strip()
        message = errors[-1]["ename"] + (f": {evalue}" if evalue else "")
    return first_line(message, type(exc).__name__)


def first_line(text: str, fallback: str) -> str:
    """The first line of `text`, stripped, or `fallback` when there is none."""
    return text.strip().splitlines()[0].strip() if text.strip() else fallback


# --- running one notebook ---------------------------------------------------------------------------

def restore_checks(notebook: NotebookNode, checks: list[NotebookNode]) -> dict[str, int]:
    """Clear outputs, put the solution's check cells back; map each check id to its nbval cell number."""
    code_cells = [cell for cell in notebook.cells if cell.cell_type == "code"]
    for cell in code_cells:
        cell.outputs, cell.execution_count = [], None
    placed: dict[str, int] = {}
    for check in checks:
        number = find_check(code_cells, check, taken=set(placed.values()))
        if number is not None:
            code_cells[number].source = check.source
            code_cells[number].metadata = nbformat.from_dict(check.metadata)
            placed[check.id] = number
    return placed


def find_check(code_cells: list[NotebookNode], check: NotebookNode, taken: set[int]) -> int | None:
    """Position of `check` among the cells not `taken`: by cell id, else by unchanged source (a paste)."""
    free = [(number, cell) for number, cell in enumerate(code_cells) if number not in taken]
    by_id = [number for number, cell in free if cell.get("id") == check.id]
    by_source = [number for number, cell in free if cell.source == check.source]
    return (by_id + by_source + [None])[0]


def nbval_command(notebook: Path, report: Path, cell_timeout: float) -> list[str]:
    """The pytest command line that runs `notebook` under nbval with this module's plugin."""
    return [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "-p", "ddp_lessons.grading",
            "--nbval-lax", "--nbval-current-env", f"--nbval-cell-timeout={cell_timeout:g}",
            f"{REPORT_OPTION}={report}", str(notebook)]


def run_with_deadline(command: list[str], cwd: Path, log: Path, timeout: float) -> bool:
    """Run `command`, output to `log`; True if it ended in time. Its whole process tree is killed."""
    with open(log, "wb") as out:
        proc = subprocess.Popen(command, cwd=cwd, stdin=subprocess.DEVNULL, stdout=out,
                                stderr=subprocess.STDOUT)
    tree = processes.Tree()
    deadline = time.monotonic() + timeout
    try:
        while proc.poll() is None and time.monotonic() < deadline:
            tree.scan(proc.pid)
            time.sleep(0.2)
        finished = proc.poll() is not None
    finally:
        tree.kill([proc.pid])
        proc.wait()
    return finished


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


# --- scoring -----------------------------------------------------------------------------------------

def why_not_scored(cell: int, results: dict[int, dict], void: str | None, hang: int | None) -> str | None:
    """Why the check in nbval cell `cell` earns nothing, or None when it scores its points."""
    result = results.get(cell)
    if result and result["error"] and (hang is None or cell <= hang):
        return result["error"]
    if void:
        return f"not scored: {void}"
    return "did not run" if result is None else None


def score(exercise: str, student: str, checks: list[NotebookNode], placed: dict[str, int],
          results: dict[int, dict], void: str | None = None) -> Grade:
    """Total the points of the checks that passed; `void` is a reason that voids the exercise."""
    grade = Grade(student, exercise, 0, max_points(checks))
    hang = min((cell for cell, result in results.items() if result["timed_out"]), default=None)
    if void is None and hang is not None:
        void = f"cell {hang} timed out"
        if hang not in placed.values():  # the cause first, when it is the student's cell
            grade.failed_checks.append(f"cell {hang}: {results[hang]['error']}")
    for check in checks:
        if check.id not in placed:
            grade.failed_checks.append(f"check {check.id}: missing from the notebook")
            continue
        reason = why_not_scored(placed[check.id], results, void, hang)
        if reason is None:
            grade.points += check_points(check)
        else:
            grade.failed_checks.append(f"cell {placed[check.id]}: {reason}")
    return grade


def check_points(check: NotebookNode) -> int:
    """The points a check cell is worth."""
    return check.metadata["ddp_lessons"]["points"]


def max_points(checks: list[NotebookNode]) -> int:
    """The points an exercise is worth: the sum over its check cells."""
    return sum(check_points(check) for check in checks)


def grade_notebook(submission: Path, solution: Path, student: str = "", *, cell_timeout: float = CELL_TIMEOUT,
                   notebook_timeout: float = NOTEBOOK_TIMEOUT) -> Grade:
    """Run `submission` in a scratch folder and score its checks against `solution`'s."""
    checks = check_cells(nbformat.read(solution, as_version=4), str(solution))
    if not submission.is_file():
        return Grade(student, solution.stem, 0, max_points(checks), ["not submitted"])
    with tempfile.TemporaryDirectory(prefix="ddp-grade-") as scratch:
        notebook = Path(scratch) / "notebook" / solution.name
        try:
            placed = prepare(submission, checks, notebook)
        except Exception as error:  # any unreadable file scores zero instead of stopping the run
            reason = f"unreadable notebook: {first_line(str(error), type(error).__name__)}"
            return Grade(student, solution.stem, 0, max_points(checks), [reason])
        results, void = run_nbval(notebook, cell_timeout, notebook_timeout)
    return score(solution.stem, student, checks, placed, results, void)


def prepare(submission: Path, checks: list[NotebookNode], notebook: Path) -> dict[str, int]:
    """Write `notebook`, the scratch copy of `submission` with its checks restored; say where they are."""
    submitted = nbformat.read(submission, as_version=4)
    placed = restore_checks(submitted, checks)
    notebook.parent.mkdir()
    nbformat.write(submitted, notebook)
    # an empty ini file makes this folder pytest's root: no stray config or conftest from above it
    (notebook.parent / "pytest.ini").write_text("[pytest]\n", encoding="utf-8")
    return placed


def run_nbval(notebook: Path, cell_timeout: float,
              notebook_timeout: float) -> tuple[dict[int, dict], str | None]:
    """Each cell's record from running `notebook` under nbval, and a reason that voids the run (or None)."""
    report, log = notebook.parent.parent / "cells.jsonl", notebook.parent.parent / "pytest.log"
    finished = run_with_deadline(nbval_command(notebook, report, cell_timeout), notebook.parent, log,
                                 notebook_timeout)
    results = read_report(report)
    if not finished:
        return results, f"the notebook ran past its {notebook_timeout:g} s limit and was stopped"
    if not results:
        return results, f"pytest stopped before running a cell: {last_line(log)}"
    return results, None


# --- a folder of submissions -------------------------------------------------------------------------

def grade_folder(submissions: Path, solutions: Path, exercises: list[str] | None = None, *,
                 cell_timeout: float = CELL_TIMEOUT,
                 notebook_timeout: float = NOTEBOOK_TIMEOUT) -> list[Grade]:
    """Grade every student folder in `submissions` on every exercise of `solutions` (or `exercises`)."""
    keys = [path for path in sorted(solutions.glob(NOTEBOOK_PATTERN))
            if exercises is None or path.stem in exercises]
    students = sorted(path for path in submissions.iterdir()
                      if path.is_dir() and not path.name.startswith("."))
    grades = []
    for student in students:
        for solution in keys:
            start = time.perf_counter()
            grade = grade_notebook(student / solution.name, solution, student.name,
                                   cell_timeout=cell_timeout, notebook_timeout=notebook_timeout)
            print(f"{student.name}/{solution.name}: {grade.points}/{grade.max_points} "
                  f"({time.perf_counter() - start:.1f} s)", flush=True)
            grades.append(grade)
    return grades


def write_gradebook(grades: list[Grade], path: Path) -> None:
    """Write the gradebook CSV: student, exercise, points, max_points, failed_checks."""
    with open(path, "w", newline="", encoding="utf-8") as out:
        writer = csv.DictWriter(out, fieldnames=CSV_COLUMNS)
        writer.writeheader()
        writer.writerows(grade.row() for grade in grades)


def summary_table(grades: list[Grade]) -> str:
    """Points per student (rows) and exercise (columns), with each student's total."""
    exercises = sorted({grade.exercise for grade in grades})
    rows = [["student", *exercises, "total"]]
    for student in sorted({grade.student for grade in grades}):
        mine = [grade for grade in grades if grade.student == student]
        rows.append([student, *(fraction(g for g in mine if g.exercise == name) for name in exercises),
                     fraction(mine)])
    widths = [max(map(len, column)) for column in zip(*rows)]
    return "\n".join("  ".join([row[0].ljust(widths[0])] + [text.rjust(width) for text, width
                                                           in zip(row[1:], widths[1:])]) for row in rows)


def fraction(grades: Iterable[Grade]) -> str:
    """``points/max_points`` summed over `grades`."""
    grades = list(grades)
    return f"{sum(g.points for g in grades)}/{sum(g.max_points for g in grades)}"


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """Options of ``grade``."""
    parser.add_argument("submissions", type=Path, help="folder of <student>/<NN_topic>.ipynb")
    parser.add_argument("--out", type=Path, default=Path("grades.csv"), help="gradebook CSV to write")
    parser.add_argument("--solutions", type=Path, default=Path("solutions"),
                        help="solution notebooks: which exercises exist and what each check is worth")
    parser.add_argument("--exercise", action="append", metavar="NN_topic",
                        help="grade only this exercise (repeat for more); default: all")
    parser.add_argument("--cell-timeout", type=float, default=CELL_TIMEOUT,
                        help=f"seconds per cell (default {CELL_TIMEOUT})")
    parser.add_argument("--notebook-timeout", type=float, default=NOTEBOOK_TIMEOUT,
                        help=f"seconds per notebook, then it is killed (default {NOTEBOOK_TIMEOUT})")


def run(args: argparse.Namespace) -> int:
    """Grade the submissions, write the gradebook and print the summary; 1 if nothing could be graded."""
    if not args.submissions.is_dir():
        print(f"error: {args.submissions} is not a folder of student folders", file=sys.stderr)
        return 1
    grades = grade_folder(args.submissions, args.solutions, args.exercise,
                          cell_timeout=args.cell_timeout, notebook_timeout=args.notebook_timeout)
    if not grades:
        print(f"error: nothing to grade (no student folders in {args.submissions} or no "
              f"{NOTEBOOK_PATTERN} in {args.solutions})", file=sys.stderr)
        return 1
    write_gradebook(grades, args.out)
    print(summary_table(grades))
    print(f"gradebook: {args.out}")
    return 0
