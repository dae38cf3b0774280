"""`python -m ddp_lessons make-exercises`: write exercises/ from solutions/ (one source, nbgrader-style).

Each exercise is its solution with the student's parts replaced by a stub (the format:
`ddp_lessons.base.exercise_format`). Code cells lose their outputs and execution counts; everything
else (cell ids, metadata, check cells) is kept as it is.
"""

from __future__ import annotations

import argparse
import copy
import sys
from pathlib import Path

import nbformat
from nbformat import NotebookNode

from ddp_lessons.base.conventions import NOTEBOOK_PATTERN
from ddp_lessons.i18n import tr
from ddp_lessons.base.exercise_format import (  # noqa: F401  (the format, as the tools name it)
    CODE_MARKERS, CODE_SHOWS, CODE_STUB, MARKDOWN_MARKERS, MARKDOWN_STUB, ExerciseFormatError, check_cells,
    is_check_cell, replace_regions)


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
    problems = [tr("{path}: missing", path=path) if not path.exists() else tr("{path}: differs from its solution", path=path)
                for path, text in expected.items()
                if not path.exists() or path.read_text(encoding="utf-8") != text]
    return problems + [tr("{path}: has no solution in {solutions}", path=path, solutions=solutions)
                       for path in orphans(solutions, exercises)]


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
                print(tr("run `python -m ddp_lessons make-exercises` to regenerate"), file=sys.stderr)
            return 1 if problems else 0
        changed = write_exercises(args.solutions, args.exercises)
    except ExerciseFormatError as error:
        print(tr("error: {error}", error=error), file=sys.stderr)
        return 1
    for path in changed:
        print(tr("wrote {path}", path=path))
    for path in orphans(args.solutions, args.exercises):
        print(tr("warning: {path} has no solution in {solutions}; delete it if it is retired", path=path,
                 solutions=args.solutions), file=sys.stderr)
    print(tr("{count} exercise(s) updated from {solutions}", count=len(changed), solutions=args.solutions))
    return 0
