"""Feedback for students (``grade --feedback DIR``): one Markdown file per student listing, per
exercise, each check with its points and, for a failure, the hint the check printed: what the
student would have seen running the notebook. Whole-exercise problems are said in words. A hidden
check (``grade --hidden``) is named by its title and its hint given, never its code."""

from __future__ import annotations

import re
from pathlib import Path

from ddp_lessons.grading import limits
from ddp_lessons.grading.scoring import (CRASHED, DID_NOT_RUN, GRADED, NOT_GRADED, NOT_SUBMITTED, OVER_LIMIT,
                                         TIMED_OUT, UNREADABLE, Grade, LimitHit)
from ddp_lessons.i18n import SOURCE, table, tr


REASONS = (
    # why a check or an exercise earned nothing, as scoring.py and jobs.py store it (in English: the gradebook's
    # failed_checks and the result files keep it); most specific first. Their Spanish is in messages_es.py
    # (tests/test_translations.py counts these templates with the tr ones)
    "the notebook ran past its {seconds} s limit and was stopped", "the notebook {what} (the grader's limit)",
    "{what} (the grader's limit)", "pytest stopped before running a cell: {line}", "unreadable notebook: {error}",
    "not scored: {void}", "{status}: cell {cell}: {detail}", "{what} in cell {cell}", "cell {cell} {what}",
    "used more than {amount} of memory", "ran more than {amount} processes and threads at once",
    "wrote more than {amount} to disk", "printed more than {amount} of output", "missing from the notebook",
    "did not run", "timed out", "crashed",
)
"""The English reasons `reason` says in a student's language; tests/test_grading_feedback.py makes each
reason the way the grader does and finds it said in Spanish."""
_REASON_PATTERNS = [(re.compile("".join(re.escape(part) if i % 2 == 0 else f"(?P<{part}>.+?)"
                                        for i, part in enumerate(re.split(r"\{(\w+)\}", english))), re.S), english)
                    for english in REASONS]
KEPT_FIELDS = ("detail", "line", "error")
"""Fields that hold someone else's words (a check's hint, pytest's or Python's error): left as they are."""


def reason(text: str, lang: str) -> str:
    """`text`, a reason the grader stored in English (``not scored: cell 3 crashed``), in `lang`: each part
    it recognises translated (``sin puntuar: celda 3: caída del kernel``); the rest (a check's hint, an error
    message) as it is."""
    if lang == SOURCE or not text:
        return text
    for pattern, english in _REASON_PATTERNS:
        found = pattern.fullmatch(text)
        if found:
            fields = {name: value if name in KEPT_FIELDS else reason(value, lang)
                      for name, value in found.groupdict().items()}
            return table(lang).get(english, english).format(**fields)
    return text


def words(status: str, lang: str, note: str = "") -> str:
    """What a whole-exercise status means, in `lang` (`note`: which limit, for OVER_LIMIT)."""
    said = {
        NOT_SUBMITTED: tr("**Not submitted**: no notebook with this name was handed in.", lang=lang),
        UNREADABLE: tr("**Unreadable**: the file is not a notebook the grader could open.", lang=lang),
        TIMED_OUT: tr("**Timed out**: a cell ran past its time limit, so this exercise scores zero.", lang=lang),
        CRASHED: tr("**Crashed**: the notebook's kernel died (for example `os._exit` or out of memory), "
                    "so this exercise scores zero.", lang=lang),
        DID_NOT_RUN: tr("**Did not run**: the notebook could not be started.", lang=lang),
        OVER_LIMIT: tr("**Over a limit**: this notebook {note}, so this exercise scores zero. The grader bounds "
                       "the memory, disk, processes and output of every notebook, so that one cannot slow down "
                       "or break the others graded beside it.", lang=lang, note=note),
        NOT_GRADED: tr("**Not graded yet**: the grader could not run this notebook (a problem on the grading "
                       "machines, not in your work); it will be graded again, and no points are counted until "
                       "then.", lang=lang),
    }
    return said.get(status, status)


def status_words(grade: Grade, lang: str) -> str:
    """What `grade`'s whole-exercise status means for the student, in `lang` (which limit, for OVER_LIMIT)."""
    known = grade.status == OVER_LIMIT and grade.limit is not None and grade.limit.value is not None
    return words(grade.status, lang, over_limit(grade.limit, lang) if known else reason(grade.note, lang))


def over_limit(hit: LimitHit, lang: str) -> str:
    """Which limit a notebook went over, in `lang`: ``used more than 4 GiB of memory in cell 2``."""
    what = limits.said(hit.kind, hit.value, lang)
    return what if hit.cell is None else tr("{what} in cell {cell}", lang=lang, what=what, cell=hit.cell)


def student_language(grades: list[Grade]) -> str:
    """The language most of a student's submitted notebooks are in (English on a tie or with none)."""
    submitted = [grade.language for grade in grades if grade.status not in (NOT_SUBMITTED, UNREADABLE)]
    counts = {lang: submitted.count(lang) for lang in set(submitted)}
    best = max(counts.values(), default=0)
    leaders = [lang for lang, count in counts.items() if count == best]
    return leaders[0] if len(leaders) == 1 else SOURCE


def student_markdown(student: str, grades: list[Grade]) -> str:
    """One student's feedback, in the language of their notebooks: total, then per exercise its checks,
    points and hints."""
    mine = sorted((g for g in grades if g.student == student), key=lambda g: g.exercise)
    lang = student_language(mine)
    total, possible = sum(g.points for g in mine), sum(g.max_points for g in mine)
    lines = [tr("# Feedback for {student}", lang=lang, student=student), "",
             tr("Total: **{total}/{possible}** points.", lang=lang, total=total, possible=possible), ""]
    for grade in mine:
        lines += [tr("## {exercise}: {points}/{max_points} points", lang=lang, exercise=grade.exercise,
                     points=grade.points, max_points=grade.max_points), ""]
        if grade.status != GRADED:
            lines += [status_words(grade, lang), ""]
            if grade.note and grade.status not in (NOT_SUBMITTED, OVER_LIMIT, NOT_GRADED):
                lines += ["```text", reason(grade.note, lang), "```", ""]
        lines += [tr("| | check | points |", lang=lang), "|---|---|---:|"]
        for check in grade.checks:
            where = tr(" (cell {cell})", lang=lang, cell=check.cell) if check.cell is not None else ""
            where = tr(" (hidden check)", lang=lang) if check.hidden else where
            outcome = tr("passed", lang=lang) if check.passed else tr("failed", lang=lang)
            lines.append(f"| {outcome} | {escape(check.title)}{where} | {check.points}/{check.max_points} |")
        lines.append("")
        failed = [check for check in grade.checks if not check.passed and grade.status == GRADED]
        for check in failed:
            said = tr("**{title}** (a check the grader ran after yours) failed:", lang=lang, title=check.title) \
                if check.hidden else tr("**{title}** — what you saw when this check ran:", lang=lang, title=check.title)
            lines += [said, "", "```text", reason(check.hint or check.problem or "", lang), "```", ""]
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
