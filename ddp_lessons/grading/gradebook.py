"""The gradebook: the long CSV (one row per student and exercise), the wide CSV (one row per student,
one column per exercise, for spreadsheets), the LMS CSV (`LMS_COLUMNS`: what a learning management
system imports) and the summary table printed at the end.

A notebook the grader could not grade (NOT_GRADED) has no points anywhere: an empty cell, and an
empty total for its student, never a zero that an upload would take for a grade."""

from __future__ import annotations

import csv
from pathlib import Path
from typing import Iterable

from ddp_lessons.grading.scoring import Grade
from ddp_lessons.i18n import tr

CSV_COLUMNS = ("student", "exercise", "points", "max_points", "failed_checks")
LMS_COLUMNS = ("student_id", "total")
"""The LMS CSV's first columns; one column per exercise follows, named NN_topic, in order.
docs/INSTRUCTORS.md ("For an LMS") documents the file; tests/test_grading_formats.py checks it."""


def write_gradebook(grades: list[Grade], path: Path) -> None:
    """Write the gradebook CSV: student, exercise, points, max_points, failed_checks."""
    with open(path, "w", newline="", encoding="utf-8") as out:
        writer = csv.DictWriter(out, fieldnames=CSV_COLUMNS)
        writer.writeheader()
        writer.writerows(grade.row() for grade in grades)


def wide_path(path: Path) -> Path:
    """Where the wide CSV goes next to gradebook `path`: ``grades.csv`` -> ``grades-wide.csv``."""
    return path.with_name(f"{path.stem}-wide{path.suffix or '.csv'}")


def lms_path(path: Path) -> Path:
    """Where the LMS CSV goes next to gradebook `path`: ``grades.csv`` -> ``grades-lms.csv``."""
    return path.with_name(f"{path.stem}-lms{path.suffix or '.csv'}")


def points_cell(grade: Grade | None) -> str | int:
    """A gradebook cell: the points, or empty when there is no grade (not graded, not in this run)."""
    return grade.points if grade is not None and grade.graded else ""


def total_cell(grades: Iterable[Grade]) -> str | int:
    """A student's total, or empty when one of their notebooks could not be graded."""
    grades = list(grades)
    return sum(grade.points for grade in grades) if all(grade.graded for grade in grades) else ""


def wide_rows(grades: list[Grade]) -> list[dict[str, str | int]]:
    """One row per student: points per exercise, then total and max_total (students and exercises sorted)."""
    exercises = sorted({grade.exercise for grade in grades})
    rows = []
    for student in sorted({grade.student for grade in grades}):
        mine = {grade.exercise: grade for grade in grades if grade.student == student}
        row: dict[str, str | int] = {"student": student}
        row.update({name: points_cell(mine.get(name)) for name in exercises})
        row["total"] = total_cell(mine.values())
        row["max_total"] = sum(grade.max_points for grade in mine.values())
        rows.append(row)
    return rows


def write_wide(grades: list[Grade], path: Path) -> None:
    """Write the wide CSV: student, one column of points per exercise, total, max_total."""
    rows = wide_rows(grades)
    columns = ["student", *sorted({grade.exercise for grade in grades}), "total", "max_total"]
    with open(path, "w", newline="", encoding="utf-8") as out:
        writer = csv.DictWriter(out, fieldnames=columns)
        writer.writeheader()
        writer.writerows(rows)


def lms_rows(grades: list[Grade]) -> list[dict[str, str | int]]:
    """One row per student: student_id (the submission folder's name), total, points per exercise."""
    exercises = sorted({grade.exercise for grade in grades})
    rows = []
    for student in sorted({grade.student for grade in grades}):
        mine = {grade.exercise: grade for grade in grades if grade.student == student}
        rows.append({"student_id": student, "total": total_cell(mine.values()),
                     **{name: points_cell(mine.get(name)) for name in exercises}})
    return rows


def write_lms(grades: list[Grade], path: Path) -> None:
    """Write the LMS CSV: student_id, total, one column of points per exercise (UTF-8, comma, header row)."""
    columns = [*LMS_COLUMNS, *sorted({grade.exercise for grade in grades})]
    with open(path, "w", newline="", encoding="utf-8") as out:
        writer = csv.DictWriter(out, fieldnames=columns)
        writer.writeheader()
        writer.writerows(lms_rows(grades))


def summary_table(grades: list[Grade]) -> str:
    """Points per student (rows) and exercise (columns), with each student's total (the command prints it, in
    its language)."""
    exercises = sorted({grade.exercise for grade in grades})
    rows = [[tr("student"), *exercises, tr("total")]]
    for student in sorted({grade.student for grade in grades}):
        mine = [grade for grade in grades if grade.student == student]
        rows.append([student, *(fraction(g for g in mine if g.exercise == name) for name in exercises),
                     fraction(mine)])
    widths = [max(map(len, column)) for column in zip(*rows)]
    return "\n".join("  ".join([row[0].ljust(widths[0])] + [text.rjust(width) for text, width
                                                           in zip(row[1:], widths[1:])]) for row in rows)


def fraction(grades: Iterable[Grade]) -> str:
    """``points/max_points`` summed over `grades` (``?/max`` when one was not graded)."""
    grades = list(grades)
    total = total_cell(grades)
    return f"{total if total != '' else '?'}/{sum(g.max_points for g in grades)}"
