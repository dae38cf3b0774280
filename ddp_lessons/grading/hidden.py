"""Hidden checks (``grade --hidden DIR``): checks the instructor keeps and the student never sees.

``DIR/NN_topic/*.py`` holds the hidden checks of exercise ``NN_topic``, one file each, run in file-name
order after the notebook's last cell, in the same kernel (so they see what the student defined and
what the visible checks' runs left). A file is one code cell whose first lines say what it is::

    # Hidden check: coverage_counts counts every visit, a rank's repeated ones included
    # points: 1
    from ddp_lessons.i18n import choose
    counts = coverage_counts([[0, 0, 1], [1, 2, 2]], 3)
    assert list(counts) == [2, 2, 2], choose({"en": "...", "es": "..."}, counts=counts)

Its points add to the exercise's. The student's feedback names a failed hidden check by its title
(the first line) and shows its hint (the assertion's message) in the notebook's language, never its
code. Hints that must stay secret until grading cannot be `tr` templates (the package's message table
ships to students): they pass their own translations to `ddp_lessons.i18n.choose`.
docs/INSTRUCTORS.md, "Hidden checks", has the format and how to test a new one.
"""

from __future__ import annotations

import re
from pathlib import Path

import nbformat.v4 as v4
from nbformat import NotebookNode

from ddp_lessons.i18n import tr

TITLE = "# Hidden check:"
POINTS = re.compile(r"#\s*points:\s*(\d+)\s*$")
ID_PREFIX = "hidden-"
WRONG = ".wrong.py"
"""``NAME.wrong.py`` beside ``NAME.py``: the wrong answer the hidden check catches (tests/test_hidden_kit.py
grades it); never run by the grader."""


class HiddenCheckError(ValueError):
    """A hidden check file breaks the format (its header, its name) or sits where students can see it."""


def parse(path: Path) -> NotebookNode:
    """The hidden check in `path` as a check cell (metadata ``check``, ``points``, ``hidden``)."""
    source = path.read_text(encoding="utf-8")
    lines = source.splitlines()
    if not lines or not lines[0].startswith(TITLE) or not lines[0][len(TITLE):].strip():
        raise HiddenCheckError(tr("{path}: the first line must be '{title} <what it checks>'", path=str(path),
                                  title=TITLE))
    points = next((int(match[1]) for line in lines[1:4] if (match := POINTS.match(line.strip()))), None)
    if not points:
        raise HiddenCheckError(tr("{path}: one of the lines after the title must be '# points: N' (N > 0)",
                                  path=str(path)))
    if not re.fullmatch(r"[A-Za-z0-9_-]{1,55}", path.stem):
        raise HiddenCheckError(tr("{path}: name it with letters, digits, '-' and '_' only (at most 55)",
                                  path=str(path)))
    cell = v4.new_code_cell(source.rstrip("\n"))
    cell.id = ID_PREFIX + path.stem
    cell.metadata["ddp_lessons"] = {"check": True, "points": points, "hidden": True}
    return cell


def load(folder: Path | None, exercise: str) -> list[NotebookNode]:
    """Exercise `exercise`'s hidden checks in `folder`, in file-name order (none without a folder)."""
    if folder is None or not (folder / exercise).is_dir():
        return []
    return [parse(path) for path in sorted((folder / exercise).glob("*.py")) if not path.name.endswith(WRONG)]


def check_folder(folder: Path, private_to_students: list[Path]) -> list[str]:
    """Make sure `folder` exists and lies outside every folder students see (`private_to_students`:
    solutions, exercises, submissions); return the exercises it has hidden checks for."""
    if not folder.is_dir():
        raise HiddenCheckError(tr("--hidden {folder}: not a folder", folder=str(folder)))
    resolved = folder.resolve()
    for place in private_to_students:
        place = place.resolve()
        if resolved == place or resolved.is_relative_to(place) or place.is_relative_to(resolved):
            raise HiddenCheckError(tr("--hidden {folder}: keep hidden checks outside {place} (students see it)",
                                      folder=str(folder), place=str(place)))
    exercises = sorted(path.name for path in folder.iterdir() if path.is_dir() and load(folder, path.name))
    return exercises  # every file parsed (load raises on a malformed one) before a notebook is graded
