"""The class report for the instructor: score distribution per exercise and the pass rate of every
check across the class, as ``<gradebook>-report.png`` and ``<gradebook>-report.md``."""

from __future__ import annotations

from collections import Counter
from pathlib import Path
from statistics import mean, median

from ddp_lessons.grading.scoring import CRASHED, NOT_SUBMITTED, OVER_LIMIT, TIMED_OUT, Grade

LABEL_CHARS = 70


def score_shares(grades: list[Grade]) -> dict[str, list[float]]:
    """Each exercise's scores as shares of its points (0..1), one per student, exercises sorted."""
    shares: dict[str, list[float]] = {}
    for grade in sorted(grades, key=lambda g: (g.exercise, g.student)):
        shares.setdefault(grade.exercise, []).append(grade.points / grade.max_points if grade.max_points else 0)
    return shares


def check_pass_rates(grades: list[Grade]) -> list[tuple[str, str, float, int, int]]:
    """(exercise, check title, share of students passing, passed, students) per check, in notebook order."""
    tally: dict[tuple[str, int, str], list[int]] = {}
    for grade in grades:
        for position, check in enumerate(grade.checks):
            counts = tally.setdefault((grade.exercise, position, check.title), [0, 0])
            counts[0] += check.passed
            counts[1] += 1
    return [(exercise, title, passed / total, passed, total)
            for (exercise, _, title), (passed, total) in sorted(tally.items())]


def plot_labels(rates: list[tuple[str, str, float, int, int]]) -> list[tuple[str, float]]:
    """(``NN: check title``, pass rate) pairs for the figure, titles cut to fit."""
    labels = []
    for exercise, title, rate, _, _ in rates:
        label = f"{exercise[:2]}: {title}"
        labels.append((label if len(label) <= LABEL_CHARS else label[:LABEL_CHARS - 1] + "…", rate))
    return labels


def markdown(grades: list[Grade], figure_name: str | None) -> str:
    """The report as Markdown: a table per exercise, then every check, least passed first."""
    lines = ["# Class report", "", f"{len({g.student for g in grades})} students, "
             f"{len({g.exercise for g in grades})} exercises.", ""]
    if figure_name:
        lines += [f"![score distribution and pass rate of every check]({figure_name})", ""]
    lines += ["## Scores per exercise", "",
              "| exercise | max | mean | median | min | max scored | not submitted | timed out | crashed | over a limit |",
              "|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|"]
    for exercise in sorted({g.exercise for g in grades}):
        mine = [g for g in grades if g.exercise == exercise]
        points = [g.points for g in mine]
        statuses = Counter(g.status for g in mine)
        lines.append(f"| {exercise} | {mine[0].max_points} | {mean(points):.1f} | {median(points):g} | "
                     f"{min(points)} | {max(points)} | {statuses[NOT_SUBMITTED]} | {statuses[TIMED_OUT]} | "
                     f"{statuses[CRASHED]} | {statuses[OVER_LIMIT]} |")
    lines += ["", "## Checks, least passed first", "",
              "| exercise | check | passed | pass rate |", "|---|---|---:|---:|"]
    for exercise, title, rate, passed, total in sorted(check_pass_rates(grades), key=lambda r: (r[2], r[0])):
        lines.append(f"| {exercise} | {title.replace('|', '/')} | {passed}/{total} | {100 * rate:.0f} % |")
    return "\n".join(lines) + "\n"


def write_report(grades: list[Grade], markdown_path: Path) -> tuple[Path, Path]:
    """Write the report's Markdown and its PNG figure (same name, ``.png``); return both paths."""
    from ddp_lessons.plots.grading import plot_class_report  # matplotlib only when a report is made

    figure = markdown_path.with_suffix(".png")
    fig = plot_class_report(score_shares(grades), plot_labels(check_pass_rates(grades)),
                            title=f"Class report: {len({g.student for g in grades})} students")
    fig.savefig(figure, dpi=100, bbox_inches="tight")
    markdown_path.write_text(markdown(grades, figure.name), encoding="utf-8")
    return markdown_path, figure
