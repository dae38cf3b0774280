"""Scoring rules: which check cells earn their points, given each cell's outcome (no running here)."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from nbformat import NotebookNode

from ddp_lessons.base.compat import StrEnum
from ddp_lessons.base.exercise_format import is_hidden_check
from ddp_lessons.grading.cells import CellRecord
from ddp_lessons.i18n import tr


class Status(StrEnum):
    """A grade's status: how far its notebook got (feedback and the class report say it in these words)."""

    GRADED = "graded"
    NOT_SUBMITTED = "not submitted"
    UNREADABLE = "unreadable"
    TIMED_OUT = "timed out"
    CRASHED = "crashed"
    DID_NOT_RUN = "did not run"
    OVER_LIMIT = "over a limit"
    NOT_GRADED = "not graded"
    """The grader could not grade it (its SLURM task failed twice): no points, and never a silent zero."""


GRADED, NOT_SUBMITTED, UNREADABLE = Status.GRADED, Status.NOT_SUBMITTED, Status.UNREADABLE
TIMED_OUT, CRASHED, DID_NOT_RUN = Status.TIMED_OUT, Status.CRASHED, Status.DID_NOT_RUN
OVER_LIMIT, NOT_GRADED = Status.OVER_LIMIT, Status.NOT_GRADED


def said(status: Status) -> str:
    """A status as the instructor reads it (the grader's lines, the class report), in the command's language;
    the gradebook and the result files keep `status` itself."""
    return {GRADED: tr("graded"), NOT_SUBMITTED: tr("not submitted"), UNREADABLE: tr("unreadable"),
            TIMED_OUT: tr("timed out"), CRASHED: tr("crashed"), DID_NOT_RUN: tr("did not run"),
            OVER_LIMIT: tr("over a limit"), NOT_GRADED: tr("not graded")}[status]


@dataclass
class CheckResult:
    """One check cell's result for one student: where it was, what it checks, points, and why not."""

    cell: int | None
    title: str
    points: int
    max_points: int
    problem: str | None = None
    hint: str = ""
    hidden: bool = False
    """An instructor's hidden check (``grade --hidden``): feedback names it and gives its hint, never its code."""

    @property
    def passed(self) -> bool:
        return self.problem is None

    @property
    def where(self) -> str:
        """How the gradebook names it: ``cell 3`` (nbval's number), ``hidden check <title>``, ``check <title>``."""
        if self.hidden:
            return f"hidden check {self.title}"
        return f"cell {self.cell}" if self.cell is not None else f"check {self.title}"


@dataclass(frozen=True)
class LimitHit:
    """The grader's limit a notebook went over: its kind (``memory``, ``processes``, ``disk``, ``output``),
    its value (bytes, or processes and threads) and the cell charged with it (None: no cell was running).
    Feedback says it in the student's language (`limits.said`)."""

    kind: str
    value: int | None
    cell: int | None = None


@dataclass
class Grade:
    """One student's result on one exercise, as a gradebook row (and the detail feedback needs)."""

    student: str
    exercise: str
    points: int
    max_points: int
    failed_checks: list[str] = field(default_factory=list)
    status: Status = Status.GRADED
    note: str = ""
    checks: list[CheckResult] = field(default_factory=list)
    language: str = "en"
    """The submitted notebook's language (its metadata): the language of its hints and feedback."""
    usage: Any = None  # watch.Usage: the most its run used at once (None when nothing ran)
    limit: LimitHit | None = None
    """For OVER_LIMIT: which limit, its value and where (the `note` says it in English)."""

    @property
    def graded(self) -> bool:
        """Whether the grader has a result for it (every status but NOT_GRADED)."""
        return self.status != Status.NOT_GRADED

    def row(self) -> dict[str, str | int]:
        """The CSV row: failed checks joined with ' | '; no points when it was not graded."""
        return {"student": self.student, "exercise": self.exercise, "points": self.points if self.graded else "",
                "max_points": self.max_points, "failed_checks": " | ".join(self.failed_checks)}


def check_points(check: NotebookNode) -> int:
    """The points a check cell is worth."""
    return check.metadata["ddp_lessons"]["points"]


def max_points(checks: list[NotebookNode]) -> int:
    """The points an exercise is worth: the sum over its check cells."""
    return sum(check_points(check) for check in checks)


def check_title(check: NotebookNode) -> str:
    """What a check cell checks: its first line without the comment sign (``Check:`` or ``Hidden check:``
    dropped)."""
    line = check.source.strip().splitlines()[0] if check.source.strip() else ""
    line = line.lstrip("#").strip()
    return line.removeprefix("Hidden check:").removeprefix("Check:").strip() or "check"


def unscored(student: str, exercise: str, checks: list[NotebookNode], status: Status, reason: str) -> Grade:
    """Zero points without running anything (not submitted, unreadable, not graded): every check says why."""
    results = [CheckResult(None, check_title(c), 0, check_points(c), reason, hidden=is_hidden_check(c))
               for c in checks]
    return Grade(student, exercise, 0, max_points(checks), [reason], status, reason, results)


def first_stop(results: dict[int, CellRecord]) -> int | None:
    """The first cell that timed out, crashed its kernel or went over a limit (everything after it is
    void), or None."""
    return min((cell for cell, record in results.items() if record.stops), default=None)


def limit_words(error: str) -> str:
    """``used more than 4 GiB of memory`` from a limit record's error (which adds whose limit it is)."""
    return error.removesuffix(" (the grader's limit)")


def why_not_scored(cell: int, results: dict[int, CellRecord], void: str | None,
                   stop: int | None) -> str | None:
    """Why the check in nbval cell `cell` earns nothing, or None when it scores its points."""
    result = results.get(cell)
    if result and result.error and (stop is None or cell <= stop):
        return result.error
    if void:
        return f"not scored: {void}"
    return "did not run" if result is None else None


def score(exercise: str, student: str, checks: list[NotebookNode], placed: dict[str, int],
          results: dict[int, CellRecord], void: str | None = None, status: Status = Status.GRADED,
          limit: LimitHit | None = None) -> Grade:
    """Total the points of the checks that passed; `void` is a reason that voids the exercise (`limit`:
    the limit a run went over outside any cell, which `void` says in English)."""
    grade = Grade(student, exercise, 0, max_points(checks), status=status, note=void or "", limit=limit)
    stop = first_stop(results)
    if void is None and stop is not None and results[stop].limit:
        grade.status = OVER_LIMIT
        grade.limit = LimitHit(results[stop].limit, results[stop].value, stop)
        words = limit_words(results[stop].error or "")
        void, grade.note = f"cell {stop} {words}", f"{words} in cell {stop}"
        if stop not in placed.values():
            grade.failed_checks.append(f"cell {stop}: {results[stop].error}")
    elif void is None and stop is not None:
        grade.status = CRASHED if results[stop].crashed else TIMED_OUT
        void = f"cell {stop} {grade.status}"
        grade.note = f"{grade.status}: cell {stop}: {results[stop].hint or results[stop].error}"
        if stop not in placed.values():  # the cause first, when it is the student's cell
            grade.failed_checks.append(f"cell {stop}: {results[stop].error}")
    for check in checks:
        title, worth, hidden = check_title(check), check_points(check), is_hidden_check(check)
        if check.id not in placed:
            grade.failed_checks.append(f"check {check.id}: missing from the notebook")
            grade.checks.append(CheckResult(None, title, 0, worth, "missing from the notebook"))
            continue
        cell = placed[check.id]
        reason = why_not_scored(cell, results, void, stop)
        if reason is None:
            grade.points += worth
            grade.checks.append(CheckResult(cell, title, worth, worth, hidden=hidden))
        else:
            result = CheckResult(cell, title, 0, worth, reason, hidden=hidden)
            hint = results[cell].hint if cell in results and not reason.startswith("not scored") else ""
            result.hint = hint or reason
            grade.failed_checks.append(f"{result.where}: {reason}")
            grade.checks.append(result)
    return grade
