"""Gradescope's autograder format (``grade --gradescope DIR``): one ``DIR/<student>/results.json`` per
student, every check of every graded exercise a test (name, score, max_score, status, output,
visibility), so that the same solutions and hidden checks run as a Gradescope autograder.

The format is Gradescope's "Autograder Specifications" (results.json, "Output format"):
docs/schemas/gradescope-results.schema.json states it as a JSON Schema, and the tests validate every
file written against it. A visible check is ``"visible"``; a hidden check (``--hidden``) is
``"after_published"``: the student sees it, with its hint, once the instructor publishes the grades.
A test's output is the hint the student would read in their feedback, in their notebook's language.
"""

from __future__ import annotations

import json
from pathlib import Path

from ddp_lessons.grading import feedback
from ddp_lessons.grading.scoring import GRADED, NOT_SUBMITTED, Grade
from ddp_lessons.i18n import tr

VISIBLE, HIDDEN = "visible", "after_published"


def exercise_number(exercise: str) -> int | None:
    """``5`` for ``05_distributed_sampler`` (None without a leading number)."""
    digits = exercise.split("_", 1)[0]
    return int(digits) if digits.isdigit() else None


def tests(grade: Grade, lang: str) -> list[dict]:
    """One Gradescope test per check of `grade`, in notebook order."""
    found = []
    number = exercise_number(grade.exercise)
    for position, check in enumerate(grade.checks, start=1):
        test = {"name": f"{grade.exercise}: {check.title}", "score": check.points, "max_score": check.max_points,
                "status": "passed" if check.passed else "failed",
                "output": "" if check.passed else (check.hint or check.problem or ""),
                "visibility": HIDDEN if check.hidden else VISIBLE}
        if check.hidden and not check.passed:
            test["output"] = tr("A check the grader ran after yours failed:", lang=lang) + "\n" + test["output"]
        if number is not None:
            test["number"] = f"{number}.{position}"
        found.append(test)
    return found


def results_json(student: str, grades: list[Grade]) -> dict:
    """The results.json of one student: the total, a word on every exercise that did not run, every check."""
    mine = sorted((g for g in grades if g.student == student), key=lambda g: g.exercise)
    lang = feedback.student_language(mine)
    notes = []
    for grade in mine:
        if grade.status != GRADED:
            note = feedback.status_words(grade, lang)
            notes.append(f"{grade.exercise}: {note}" + (f"\n{grade.note}" if grade.note and grade.status
                                                        not in (NOT_SUBMITTED,) and grade.note not in note else ""))
    return {"score": sum(g.points for g in mine),
            "output": "\n\n".join(notes) if notes else tr("Every exercise ran; each check is listed below.",
                                                          lang=lang),
            "visibility": VISIBLE,
            "tests": [test for grade in mine for test in tests(grade, lang)]}


def write_results(grades: list[Grade], folder: Path) -> tuple[list[Path], list[str]]:
    """Write ``<folder>/<student>/results.json`` for every student whose exercises were all graded;
    return the files written and the students left out (a notebook not graded: no score to upload)."""
    written, skipped = [], []
    for student in sorted({grade.student for grade in grades}):
        if not all(grade.graded for grade in grades if grade.student == student):
            skipped.append(student)
            continue
        path = folder / student / "results.json"
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(json.dumps(results_json(student, grades), indent=1, ensure_ascii=False) + "\n",
                        encoding="utf-8")
        written.append(path)
    return written, skipped
