"""The gradebook: the long CSV (one row per student and exercise), the wide CSV (one row per student,
one column per exercise, for spreadsheets and LMS imports) and the summary table printed at the end."""

from __future__ import annotations

import csv
from pathlib import Path
from typing import Iterable

from ddp_lessons.grading.scoring import Grade

CSV_COLUMNS = ("student", "exercise", "points", "max_points", "failed_checks")


def write_gradebook(grades: list[Grade], path: Path) -> None:
    """Write the gradebook CSV: student, exercise, points, max_points, failed_checks."""
    with open(path, "w", newline="", encoding="utf-8") as out:
        writer = csv.DictWriter(out, fieldnames=CSV_COLUMNS)
        writer.writeheader()
        writer.writerows(grade.row() for grade in grades)


def wide_path(path: Path) -> Path:
    """Where the wide CSV goes next to gradebook `path`: ``grades.csv`` -> ``grades-wide.csv``."""
    return path.with_name(f"{path.stem}-wide{path.suffix or '.csv'}")


def wide_rows(grades: list[Grade]) -> list[dict[str, str | int]]:
    """One row per student: points per exercise, then total and max_total (students and exercises sorted)."""
    exercises = sorted({grade.exercise for grade in grades})
    rows = []
    for student in sorted({grade.student for grade in grades}):
        mine = {grade.exercise: grade for grade in grades if grade.student == student}
        row: dict[str, str | int] = {"student": student}
        row.update({name: mine[name].points if name in mine else "" for name in exercises})
        row["total"] = sum(grade.points for grade in mine.values())
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
