"""The class report for the instructor: score distribution per exercise, the pass rate of every
check across the class (visible and hidden), how many students failed each check and the hint they
got most often (what to teach again next week), and, where students handed in their progress file,
how often each quick-check question was answered right at the first try; as
``<gradebook>-report.png`` and ``<gradebook>-report.md``.

Notebooks the grader could not grade (NOT_GRADED) are counted apart and left out of every rate. The report
speaks the instructor's language (the command's: `command.instructor_language`); the checks' titles, the
hints the students read and the questions' text are quoted as they are."""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass
from pathlib import Path
from statistics import mean, median

from ddp_lessons import journal
from ddp_lessons.grading.scoring import CRASHED, NOT_GRADED, NOT_SUBMITTED, OVER_LIMIT, TIMED_OUT, Grade, said
from ddp_lessons.i18n import SOURCE, language, number, tr

LABEL_CHARS = 70
HINT_CHARS = 120
"""The most of a hint the report's table shows."""
JOURNAL = journal.FILE
"""The progress file a student hands in beside their notebooks (`ddp_lessons.journal`'s file)."""


@dataclass(frozen=True)
class FirstAnswer:
    """A student's first answer to one quick-check question: right or not."""

    lesson: str
    question: int
    correct: bool


def read_first_answers(path: Path) -> list[FirstAnswer]:
    """The first answer to each multiple-choice question in one student's progress file, read with
    `ddp_lessons.journal.read` (answer events with a right or wrong answer; numeric answers, reveals,
    check results and unreadable lines are left out)."""
    seen: dict[tuple[str, int], FirstAnswer] = {}
    for event in journal.read(path).events:
        correct = event.get("correct")
        if event["event"] != "answer" or not isinstance(correct, bool):
            continue
        try:
            key = (str(event["lesson"]).zfill(2), int(event["question"]))
        except (KeyError, TypeError, ValueError):
            continue
        seen.setdefault(key, FirstAnswer(key[0], key[1], correct))
    return list(seen.values())


def first_answers(submissions: Path, students: list[str]) -> dict[str, list[FirstAnswer]]:
    """{student: first answers} for the students who handed in a progress file (read only: a learner's
    file is theirs)."""
    found = {}
    for student in students:
        path = submissions / student / JOURNAL
        if path.is_file():
            found[student] = read_first_answers(path)
    return found


def first_try_accuracy(journals: dict[str, list[FirstAnswer]]) -> list[tuple[str, int, int, int]]:
    """(lesson, question, students right at the first try, students who answered) per question, lowest
    accuracy first."""
    tally: dict[tuple[str, int], list[int]] = {}
    for answers in journals.values():
        for answer in answers:
            counts = tally.setdefault((answer.lesson, answer.question), [0, 0])
            counts[0] += answer.correct
            counts[1] += 1
    rows = [(lesson, question, right, total) for (lesson, question), (right, total) in tally.items()]
    return sorted(rows, key=lambda r: (r[2] / r[3], r[0], r[1]))


def question_text(lesson: str, question: int) -> str:
    """The question's text in the report's language (English until it is translated), cut to fit a table
    ('' when the course has no such question)."""
    from ddp_lessons import quiz

    folder = Path(quiz.__file__).parent / quiz.QUESTIONS
    entries = quiz.read_questions(folder).get(lesson, [])
    if not 1 <= question <= len(entries):
        return ""
    lang = language()
    translated = quiz.read_questions(folder, lang).get(lesson, []) if lang != SOURCE else []
    text = quiz.in_language(entries[question - 1],
                            translated[question - 1] if question <= len(translated) else None)["question"]
    return text if len(text) <= HINT_CHARS else text[:HINT_CHARS - 1] + "…"


def score_shares(grades: list[Grade]) -> dict[str, list[float]]:
    """Each exercise's scores as shares of its points (0..1), one per graded student, exercises sorted."""
    shares: dict[str, list[float]] = {}
    for grade in sorted((g for g in grades if g.graded), key=lambda g: (g.exercise, g.student)):
        shares.setdefault(grade.exercise, []).append(grade.points / grade.max_points if grade.max_points else 0)
    return shares


def label(title: str, hidden: bool) -> str:
    """A check's name in the report: hidden checks are marked."""
    return tr("(hidden) {title}", title=title) if hidden else title


def check_pass_rates(grades: list[Grade]) -> list[tuple[str, str, float, int, int]]:
    """(exercise, check title, share of students passing, passed, students) per check, in notebook order
    (hidden checks, marked, after the visible ones)."""
    tally: dict[tuple[str, int, str], list[int]] = {}
    for grade in (g for g in grades if g.graded):
        for position, check in enumerate(grade.checks):
            counts = tally.setdefault((grade.exercise, position, label(check.title, check.hidden)), [0, 0])
            counts[0] += check.passed
            counts[1] += 1
    return [(exercise, title, passed / total, passed, total)
            for (exercise, _, title), (passed, total) in sorted(tally.items())]


def hint_line(text: str) -> str:
    """A hint's first line, without the exception's name, cut to fit a table."""
    line = text.strip().splitlines()[0] if text.strip() else ""
    line = line.removeprefix("AssertionError: ").strip()
    return line if len(line) <= HINT_CHARS else line[:HINT_CHARS - 1] + "…"


def check_failures(grades: list[Grade]) -> dict[tuple[str, str], tuple[int, str, int]]:
    """{(exercise, check label): (students who failed it, the hint seen most often, how many saw it)}.
    The hint counts only failures of the check itself (not 'not submitted', nor a check voided by a
    timeout or crash before it), the ones that say what the class got wrong."""
    failed: Counter = Counter()
    hints: dict[tuple[str, str], Counter] = {}
    for grade in (g for g in grades if g.graded):
        for check in grade.checks:
            if check.passed:
                continue
            key = (grade.exercise, label(check.title, check.hidden))
            failed[key] += 1
            own = grade.status == "graded" and check.problem and not check.problem.startswith(
                ("not scored", "did not run", "missing from"))
            if own:
                hints.setdefault(key, Counter())[hint_line(check.hint or check.problem)] += 1
    found = {}
    for key, count in failed.items():
        top = hints.get(key, Counter()).most_common(1)
        found[key] = (count, *(top[0] if top else ("", 0)))
    return found


def plot_labels(rates: list[tuple[str, str, float, int, int]]) -> list[tuple[str, float]]:
    """(``NN: check title``, pass rate) pairs for the figure, titles cut to fit."""
    labels = []
    for exercise, title, rate, _, _ in rates:
        label = f"{exercise[:2]}: {title}"
        labels.append((label if len(label) <= LABEL_CHARS else label[:LABEL_CHARS - 1] + "…", rate))
    return labels


def cell(text: str) -> str:
    """`text` safe in a Markdown table cell."""
    return text.replace("|", "/").replace("\n", " ")


def markdown(grades: list[Grade], figure_name: str | None,
             journals: dict[str, list[FirstAnswer]] | None = None) -> str:
    """The report as Markdown: a table per exercise, every check least passed first (how many failed
    it, the hint most of them got), then the quick-check questions' first-try accuracy."""
    lines = ["# " + tr("Class report"), "", tr("{students} students, {exercises} exercises.",
                                                 students=len({g.student for g in grades}),
                                                 exercises=len({g.exercise for g in grades})), ""]
    if figure_name:
        lines += [f"![{tr('score distribution and pass rate of every check')}]({figure_name})", ""]
    statuses_shown = (NOT_SUBMITTED, TIMED_OUT, CRASHED, OVER_LIMIT, NOT_GRADED)
    lines += ["## " + tr("Scores per exercise"), "",
              "| " + " | ".join([tr("exercise"), tr("max"), tr("mean"), tr("median"), tr("min"), tr("max scored"),
                                 *map(said, statuses_shown)]) + " |",
              "|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|"]
    for exercise in sorted({g.exercise for g in grades}):
        mine = [g for g in grades if g.exercise == exercise]
        points = [g.points for g in mine if g.graded] or [0]
        statuses = Counter(g.status for g in mine)
        lines.append(f"| {exercise} | {mine[0].max_points} | {number(mean(points), '.1f')} | "
                     f"{number(median(points), 'g')} | {min(points)} | {max(points)} | "
                     + " | ".join(str(statuses[status]) for status in statuses_shown) + " |")
    failures = check_failures(grades)
    lines += ["", "## " + tr("Checks, least passed first"), "",
              tr("Hidden checks are marked (hidden). *Most frequent hint*: what the students who failed the check "
                 "itself (not a notebook that was not submitted or stopped before it) read most often, and how many."),
              "", "| " + " | ".join([tr("exercise"), tr("check"), tr("passed"), tr("pass rate"), tr("failed"),
                                     tr("most frequent hint")]) + " |",
              "|---|---|---:|---:|---:|---|"]
    for exercise, title, rate, passed, total in sorted(check_pass_rates(grades), key=lambda r: (r[2], r[0])):
        failed, hint, seen = failures.get((exercise, title), (0, "", 0))
        shown = f"{cell(hint)} ({seen}×)" if hint else ""
        lines.append(f"| {exercise} | {cell(title)} | {passed}/{total} | {100 * rate:.0f} % | {failed} | {shown} |")
    if journals:
        lines += ["", "## " + tr("Quick-check questions: first-try accuracy"), "",
                  tr("From the progress files ({file}) {count} students handed in; lowest first.", file=JOURNAL,
                     count=len(journals)), "",
                  "| " + " | ".join([tr("question"), tr("right at the first try"), tr("accuracy"),
                                     tr("question text")]) + " |", "|---|---:|---:|---|"]
        for lesson, question, right, total in first_try_accuracy(journals):
            lines.append(f"| {lesson}-{question} | {right}/{total} | {100 * right / total:.0f} % | "
                         f"{cell(question_text(lesson, question))} |")
    return "\n".join(lines) + "\n"


def write_report(grades: list[Grade], markdown_path: Path,
                 journals: dict[str, list[FirstAnswer]] | None = None) -> tuple[Path, Path]:
    """Write the report's Markdown and its PNG figure (same name, ``.png``); return both paths."""
    from ddp_lessons.plots.grading import plot_class_report  # matplotlib only when a report is made

    figure = markdown_path.with_suffix(".png")
    fig = plot_class_report(score_shares(grades), plot_labels(check_pass_rates(grades)),
                            title=tr("Class report: {count} students", count=len({g.student for g in grades})))
    fig.savefig(figure, dpi=100, bbox_inches="tight")
    markdown_path.write_text(markdown(grades, figure.name, journals), encoding="utf-8")
    return markdown_path, figure
