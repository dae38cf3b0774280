"""`python -m ddp_lessons make-exercises`: write exercises/ from solutions/ (one source, nbgrader-style).

In ``solutions/NN_topic.ipynb`` the student's part of a code cell sits between a line
``### BEGIN SOLUTION`` and a line ``### END SOLUTION`` (any indentation). The exercise replaces each
region, markers included, with ``# YOUR CODE HERE`` and ``raise NotImplementedError()`` at the
marker's indentation; a markdown region between ``<!-- BEGIN SOLUTION -->`` and
``<!-- END SOLUTION -->`` becomes ``_Your answer here._``. A code region may end with a line
``### EXERCISE SHOWS`` followed by commented-out lines: the exercise then shows those lines,
uncommented, instead of the stub (a planted bug for a bug hunt; nothing at all if none follow). Code cells lose their outputs and
execution counts; everything else (cell ids, metadata, check cells) is kept as it is.

Check cells carry the cell metadata ``{"ddp_lessons": {"check": true, "points": N}}``; the grader
(`ddp_lessons.grading`) scores them and restores their source from the solution.
"""

from __future__ import annotations

import argparse
import copy
import sys
from pathlib import Path

import nbformat
from nbformat import NotebookNode

from ddp_lessons.tooling.conventions import NOTEBOOK_PATTERN

CODE_MARKERS = ("### BEGIN SOLUTION", "### END SOLUTION")
CODE_STUB = ("# YOUR CODE HERE", "raise NotImplementedError()")
CODE_SHOWS = "### EXERCISE SHOWS"
"""Inside a code region: the commented lines after it are what the exercise shows instead of the stub."""
MARKDOWN_MARKERS = ("<!-- BEGIN SOLUTION -->", "<!-- END SOLUTION -->")
MARKDOWN_STUB = ("_Your answer here._",)


class ExerciseFormatError(ValueError):
    """A solution notebook breaks the exercise format (markers or check-cell metadata)."""


def replace_regions(source: str, markers: tuple[str, str], stub: tuple[str, ...], where: str,
                    shows: str | None = None) -> str:
    """`source` with each marked region replaced by `stub`, indented like its BEGIN marker, or by
    the region's uncommented lines after a `shows` marker when it has one."""
    begin, end = markers
    kept: list[str] = []
    opened_at = None
    for number, line in enumerate(source.split("\n"), start=1):
        marker = line.strip()
        if marker == begin:
            if opened_at is not None:
                raise ExerciseFormatError(f"{where}, line {number}: {begin!r} inside the region "
                                          f"opened on line {opened_at} (regions cannot nest)")
            opened_at, shown = number, None
            indent = line[:len(line) - len(line.lstrip())]
        elif marker == end:
            if opened_at is None:
                raise ExerciseFormatError(f"{where}, line {number}: {end!r} without a {begin!r} before it")
            kept += [indent + stub_line for stub_line in stub] if shown is None else shown
            opened_at = None
        elif opened_at is None:
            kept.append(line)
        elif shows is not None and marker == shows:
            shown = []
        elif shown is not None:
            if not line.startswith(indent + "#"):
                raise ExerciseFormatError(f"{where}, line {number}: after {shows!r}, every line is "
                                          f"commented out at the marker's indentation ({indent + '# '!r})")
            shown.append(indent + line[len(indent) + 1:].removeprefix(" "))
    if opened_at is not None:
        raise ExerciseFormatError(f"{where}, line {opened_at}: {begin!r} is never closed by {end!r}")
    return "\n".join(kept)


def is_check_cell(cell: NotebookNode) -> bool:
    """True for a code cell marked ``{"ddp_lessons": {"check": true, ...}}``."""
    return cell.cell_type == "code" and bool(cell.metadata.get("ddp_lessons", {}).get("check"))


def check_cells(notebook: NotebookNode, name: str = "notebook") -> list[NotebookNode]:
    """The notebook's check cells, after making sure each has an id and positive whole points."""
    checks = [cell for cell in notebook.cells if is_check_cell(cell)]
    for cell in checks:
        points = cell.metadata["ddp_lessons"].get("points")
        where = f"{name}, check cell {cell.get('id', '(no id)')}"
        if not cell.get("id"):
            raise ExerciseFormatError(f"{where}: has no cell id (save it with nbformat >= 4.5)")
        if isinstance(points, bool) or not isinstance(points, int) or points <= 0:
            raise ExerciseFormatError(f"{where}: 'points' must be a whole number > 0, got {points!r}")
        if CODE_MARKERS[0] in cell.source:
            raise ExerciseFormatError(f"{where}: a check cell cannot hold a solution region")
    return checks


def make_exercise(solution: NotebookNode, name: str = "notebook") -> NotebookNode:
    """The student's version of `solution`: regions stubbed, code outputs cleared, the rest kept."""
    check_cells(solution, name)
    exercise = copy.deepcopy(solution)
    for index, cell in enumerate(exercise.cells):
        where = f"{name}, cell {index} (id {cell.get('id', '?')})"
        if cell.cell_type == "code":
            cell.source = replace_regions(cell.source, CODE_MARKERS, CODE_STUB, where, CODE_SHOWS)
            cell.outputs = []
            cell.execution_count = None
        elif cell.cell_type == "markdown":
            cell.source = replace_regions(cell.source, MARKDOWN_MARKERS, MARKDOWN_STUB, where)
    return exercise


def render(notebook: NotebookNode) -> str:
    """The exact text `nbformat.write` stores for `notebook` (what the drift check compares)."""
    text = nbformat.writes(notebook)
    return text if text.endswith("\n") else text + "\n"


def expected_exercises(solutions: Path, exercises: Path) -> dict[Path, str]:
    """Each exercise path under `exercises` mapped to the text generated from its solution."""
    return {exercises / path.name: render(make_exercise(nbformat.read(path, as_version=4), str(path)))
            for path in sorted(solutions.glob(NOTEBOOK_PATTERN))}


def drifted(solutions: Path, exercises: Path) -> list[str]:
    """Why each out-of-date exercise differs: missing, stale, or left without a solution."""
    expected = expected_exercises(solutions, exercises)
    problems = [f"{path}: missing" if not path.exists() else f"{path}: differs from its solution"
                for path, text in expected.items()
                if not path.exists() or path.read_text(encoding="utf-8") != text]
    return problems + [f"{path}: has no solution in {solutions}" for path in orphans(solutions, exercises)]


def orphans(solutions: Path, exercises: Path) -> list[Path]:
    """Exercise notebooks whose solution is gone (the generator never deletes them itself)."""
    return [path for path in sorted(exercises.glob(NOTEBOOK_PATTERN))
            if not (solutions / path.name).exists()]


def write_exercises(solutions: Path, exercises: Path) -> list[Path]:
    """Generate every exercise from its solution; return the paths whose text changed."""
    exercises.mkdir(parents=True, exist_ok=True)
    changed = []
    for path, text in expected_exercises(solutions, exercises).items():
        if not path.exists() or path.read_text(encoding="utf-8") != text:
            path.write_text(text, encoding="utf-8")
            changed.append(path)
    return changed


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """Options of ``make-exercises``."""
    parser.add_argument("--solutions", type=Path, default=Path("solutions"), help="source notebooks")
    parser.add_argument("--exercises", type=Path, default=Path("exercises"), help="generated notebooks")
    parser.add_argument("--check", action="store_true",
                        help="write nothing; exit 1 and list the exercises that are out of date")


def run(args: argparse.Namespace) -> int:
    """Generate (or with --check, verify) the exercises; 0 when they match their solutions."""
    try:
        if args.check:
            problems = drifted(args.solutions, args.exercises)
            for problem in problems:
                print(problem, file=sys.stderr)
            if problems:
                print("run `python -m ddp_lessons make-exercises` to regenerate", file=sys.stderr)
            return 1 if problems else 0
        changed = write_exercises(args.solutions, args.exercises)
    except ExerciseFormatError as error:
        print(f"error: {error}", file=sys.stderr)
        return 1
    for path in changed:
        print(f"wrote {path}")
    for path in orphans(args.solutions, args.exercises):
        print(f"warning: {path} has no solution in {args.solutions}; delete it if it is retired",
              file=sys.stderr)
    print(f"{len(changed)} exercise(s) updated from {args.solutions}")
    return 0
