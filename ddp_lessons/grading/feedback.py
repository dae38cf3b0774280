"""Feedback for students (``grade --feedback DIR``): one Markdown file per student listing, per
exercise, each check with its points and, for a failure, the hint the check printed: what the
student would have seen running the notebook. Whole-exercise problems are said in words."""

from __future__ import annotations

from pathlib import Path

from ddp_lessons.grading.scoring import (CRASHED, DID_NOT_RUN, GRADED, NOT_SUBMITTED, OVER_LIMIT, TIMED_OUT,
                                         UNREADABLE, Grade)

WORDS = {
    NOT_SUBMITTED: "**Not submitted**: no notebook with this name was handed in.",
    UNREADABLE: "**Unreadable**: the file is not a notebook the grader could open.",
    TIMED_OUT: "**Timed out**: a cell ran past its time limit, so this exercise scores zero.",
    CRASHED: "**Crashed**: the notebook's kernel died (for example `os._exit` or out of memory), "
             "so this exercise scores zero.",
    DID_NOT_RUN: "**Did not run**: the notebook could not be started.",
    OVER_LIMIT: "**Over a limit**: this notebook {note}, so this exercise scores zero. The grader bounds the "
                "memory, disk, processes and output of every notebook, so that one cannot slow down or "
                "break the others graded beside it.",
}


def student_markdown(student: str, grades: list[Grade]) -> str:
    """One student's feedback: total, then per exercise its checks, points and hints."""
    mine = sorted((g for g in grades if g.student == student), key=lambda g: g.exercise)
    total, possible = sum(g.points for g in mine), sum(g.max_points for g in mine)
    lines = [f"# Feedback for {student}", "", f"Total: **{total}/{possible}** points.", ""]
    for grade in mine:
        lines += [f"## {grade.exercise}: {grade.points}/{grade.max_points} points", ""]
        if grade.status != GRADED:
            lines += [WORDS.get(grade.status, grade.status).format(note=grade.note), ""]
            if grade.note and grade.status not in (NOT_SUBMITTED, OVER_LIMIT):
                lines += ["```text", grade.note, "```", ""]
        lines += ["| | check | points |", "|---|---|---:|"]
        for check in grade.checks:
            where = f" (cell {check.cell})" if check.cell is not None else ""
            lines.append(f"| {'passed' if check.passed else 'failed'} | {escape(check.title)}{where} | "
                         f"{check.points}/{check.max_points} |")
        lines.append("")
        failed = [check for check in grade.checks if not check.passed and grade.status == GRADED]
        for check in failed:
            lines += [f"**{check.title}** — what you saw when this check ran:", "", "```text",
                      check.hint or check.problem or "", "```", ""]
    return "\n".join(lines)


def escape(text: str) -> str:
    """`text` safe inside a Markdown table cell."""
    return text.replace("|", "\\|").replace("\n", " ")


def write_feedback(grades: list[Grade], folder: Path) -> list[Path]:
    """Write ``<folder>/<student>.md`` for every student; return the paths, students sorted."""
    folder.mkdir(parents=True, exist_ok=True)
    paths = []
    for student in sorted({grade.student for grade in grades}):
        path = folder / f"{student}.md"
        path.write_text(student_markdown(student, grades), encoding="utf-8")
        paths.append(path)
    return paths
