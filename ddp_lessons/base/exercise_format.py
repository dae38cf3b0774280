"""The exercise-cell format: how a solution marks the student's part, what the exercise shows instead,
and which cells are checks. `tooling.exercises` writes exercises with it; the grader (`grading`) and
`checks` read it (the stub a check refuses to launch, the check cells a submission is scored on).

In ``solutions/NN_topic.ipynb`` the student's part of a code cell sits between a line
``### BEGIN SOLUTION`` and a line ``### END SOLUTION`` (any indentation). The exercise replaces each
region, markers included, with ``# YOUR CODE HERE`` and ``raise NotImplementedError()`` at the
marker's indentation; a markdown region between ``<!-- BEGIN SOLUTION -->`` and
``<!-- END SOLUTION -->`` becomes ``_Your answer here._``. A code region may end with a line
``### EXERCISE SHOWS`` followed by commented-out lines: the exercise then shows those lines,
uncommented, instead of the stub (a planted bug for a bug hunt; nothing at all if none follow).

Check cells carry the cell metadata ``{"ddp_lessons": {"check": true, "points": N}}``; the grader
scores them and restores their source from the solution. A hidden check (``grade --hidden``: never in
a solution or an exercise) adds ``"hidden": true``; the grader appends it to the scratch copy it runs.
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING

if TYPE_CHECKING:  # only a type here: importing nbformat costs about 1 s of CPU (jsonschema's format checkers),
    from nbformat import NotebookNode  # paid by every kernel that imports `checks` and every rank's launcher

CODE_MARKERS = ("### BEGIN SOLUTION", "### END SOLUTION")
CODE_STUB = ("# YOUR CODE HERE", "raise NotImplementedError()")
STUB = re.compile(r"[ \t]*\n[ \t]*".join(re.escape(line) for line in CODE_STUB))
"""The stub, its two lines at any indentation, as it appears in an exercise's code."""
CODE_SHOWS = "### EXERCISE SHOWS"
"""Inside a code region: the commented lines after it are what the exercise shows instead of the stub."""
MARKDOWN_MARKERS = ("<!-- BEGIN SOLUTION -->", "<!-- END SOLUTION -->")
MARKDOWN_STUB = ("_Your answer here._",)


def holds_stub(code: str) -> bool:
    """True while `code` still holds an exercise's stub: the student has not written that part yet."""
    return STUB.search(code) is not None


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


def is_hidden_check(cell: NotebookNode) -> bool:
    """True for a check cell the grader added from the instructor's hidden checks."""
    return is_check_cell(cell) and bool(cell.metadata["ddp_lessons"].get("hidden"))


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
