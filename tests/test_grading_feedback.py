"""What a student reads in their feedback file, and what the instructor reads in the class report
and the wide CSV (built from grades, nothing run)."""
import csv

import pytest

from ddp_lessons.grading import feedback, gradebook, report
from ddp_lessons.grading.limits import GiB, MiB, Limits
from ddp_lessons.grading.scoring import OVER_LIMIT, CheckResult, Grade, LimitHit
from grading_course import course  # noqa: F401 (course is a fixture)
from test_translations import english_words


def passed(title, points, cell):
    return CheckResult(cell, title, points, points)


def failed(title, points, cell, hint):
    return CheckResult(cell, title, 0, points, hint.splitlines()[0], hint)


CLASS = [
    Grade("alice", "05_sampler", 4, 4, checks=[passed("shards match", 3, 1), passed("coverage", 1, 3)]),
    Grade("bob", "05_sampler", 3, 4, ["cell 3: AssertionError: hint: count padded indices"],
          checks=[passed("shards match", 3, 1),
                  failed("coverage", 1, 3, "AssertionError: hint: count padded indices\nsecond line")]),
    Grade("carol", "05_sampler", 0, 4, ["not submitted"], "not submitted", "not submitted",
          [CheckResult(None, "shards match", 0, 3, "not submitted"),
           CheckResult(None, "coverage", 0, 1, "not submitted")]),
    Grade("alice", "08_checkpoint", 0, 2, ["cell 2: not scored: cell 1 crashed"], "crashed",
          "crashed: cell 1: crashed: the kernel died (killed by SIGKILL) while this cell ran",
          [CheckResult(2, "resume", 0, 2, "not scored: cell 1 crashed", "not scored: cell 1 crashed")]),
    Grade("bob", "08_checkpoint", 2, 2, checks=[passed("resume", 2, 2)]),
    Grade("carol", "08_checkpoint", 0, 2, ["cell 2: not scored: cell 2 timed out"], "timed out",
          "timed out: cell 2: Timeout of 300 seconds exceeded executing cell",
          [CheckResult(2, "resume", 0, 2, "Timeout of 300 seconds exceeded executing cell")]),
]


def test_feedback_lists_each_check_with_points_and_the_hint_of_a_failure():
    text = feedback.student_markdown("bob", CLASS)
    assert "Total: **5/6** points." in text
    assert "| passed | shards match (cell 1) | 3/3 |" in text
    assert "| failed | coverage (cell 3) | 0/1 |" in text
    assert "AssertionError: hint: count padded indices\nsecond line" in text  # the whole hint, as seen


def test_feedback_says_not_submitted_crashed_and_timed_out_in_words():
    alice, carol = feedback.student_markdown("alice", CLASS), feedback.student_markdown("carol", CLASS)
    assert "**Crashed**" in alice and "killed by SIGKILL" in alice
    assert "**Not submitted**" in carol and "**Timed out**" in carol
    assert "Timeout of 300 seconds" in carol


def test_feedback_writes_one_file_per_student(tmp_path):
    paths = feedback.write_feedback(CLASS, tmp_path / "feedback")
    assert [path.name for path in paths] == ["alice.md", "bob.md", "carol.md"]
    assert paths[0].read_text().startswith("# Feedback for alice")


def test_pass_rate_of_every_check_counts_every_student():
    assert report.check_pass_rates(CLASS) == [("05_sampler", "shards match", 2 / 3, 2, 3),
                                              ("05_sampler", "coverage", 1 / 3, 1, 3),
                                              ("08_checkpoint", "resume", 1 / 3, 1, 3)]


def test_score_distribution_is_each_students_share_of_the_points():
    assert report.score_shares(CLASS) == {"05_sampler": [1.0, 0.75, 0.0], "08_checkpoint": [0.0, 1.0, 0.0]}


def test_class_report_tables_statuses_and_lists_least_passed_checks_first(tmp_path):
    markdown, figure = report.write_report(CLASS, tmp_path / "grades-report.md")
    text = markdown.read_text()
    assert "| 05_sampler | 4 | 2.3 | 3 | 0 | 4 | 1 | 0 | 0 | 0 |" in text
    assert "| 08_checkpoint | 2 | 0.7 | 0 | 0 | 2 | 0 | 1 | 1 | 0 |" in text
    checks = text.split("## Checks, least passed first")[1]
    assert checks.index("coverage") < checks.index("shards match")
    assert figure.read_bytes().startswith(b"\x89PNG") and "grades-report.png" in text


def test_wide_csv_has_one_row_per_student_and_one_column_per_exercise(tmp_path):
    gradebook.write_wide(CLASS, tmp_path / "wide.csv")
    with open(tmp_path / "wide.csv", newline="") as f:
        rows = list(csv.DictReader(f))
    assert rows == [
        {"student": "alice", "05_sampler": "4", "08_checkpoint": "0", "total": "4", "max_total": "6"},
        {"student": "bob", "05_sampler": "3", "08_checkpoint": "2", "total": "5", "max_total": "6"},
        {"student": "carol", "05_sampler": "0", "08_checkpoint": "0", "total": "0", "max_total": "6"}]
    assert gradebook.wide_path(tmp_path / "grades.csv") == tmp_path / "grades-wide.csv"


@pytest.mark.parametrize("kind, value, spanish", [
    ("memory", 4 * GiB, "usó más de 4 GiB de memoria"),
    ("processes", 48, "ejecutó más de 48 procesos e hilos a la vez"),
    ("disk", 50 * MiB, "escribió más de 50 MiB en el disco"),
    ("output", 1536 << 10, "imprimió más de 1,5 MiB de salida")])
@pytest.mark.parametrize("cell", [2, None])
def test_spanish_over_limit_feedback_has_no_english_in_it(kind, value, spanish, cell):
    """A Spanish notebook over a limit reads which limit, its value and the cell in Spanish; the
    gradebook keeps the English words (the note), as before."""
    english = Limits(**{kind: value}).words(kind)
    note = english if cell is None else f"{english} in cell {cell}"
    grade = Grade("dana", "05_sampler", 0, 4, [f"cell 1: not scored: cell 2 {english}"], OVER_LIMIT, note,
                  [CheckResult(1, "sampler", 0, 4, f"not scored: cell 2 {english}")], language="es",
                  limit=LimitHit(kind, value, cell))
    said = spanish if cell is None else f"{spanish} en la celda {cell}"
    (paragraph,) = [line for line in feedback.student_markdown("dana", [grade]).splitlines()
                    if line.startswith("**Por encima de un límite**")]
    assert paragraph.startswith(f"**Por encima de un límite**: este notebook {said}, así que"), paragraph
    assert english_words(paragraph) == [] and english not in paragraph, paragraph
    grade.language = "en"
    assert f"**Over a limit**: this notebook {note}, so this exercise scores zero." in \
        feedback.student_markdown("dana", [grade])


def test_grade_statuses_keep_their_words():
    from ddp_lessons.grading.scoring import Status

    assert [str(status) for status in Status] == ["graded", "not submitted", "unreadable", "timed out",
                                                  "crashed", "did not run", "over a limit", "not graded"]
    assert f"{Status.TIMED_OUT}" == "timed out" and Status.CRASHED == "crashed"


def test_the_report_counts_who_failed_each_check_and_the_hint_most_of_them_read(tmp_path):
    other = Grade("dan", "05_sampler", 3, 4, ["cell 3: AssertionError: hint: count padded indices"],
                  checks=[passed("shards match", 3, 1),
                          failed("coverage", 1, 3, "AssertionError: hint: count padded indices\nthird line")])
    stopped = Grade("erin", "05_sampler", 0, 4, ["cell 1: not scored: cell 0 timed out"], "timed out", "timed out",
                    [CheckResult(1, "shards match", 0, 3, "not scored: cell 0 timed out"),
                     CheckResult(3, "coverage", 0, 1, "not scored: cell 0 timed out")])
    failures = report.check_failures(CLASS + [other, stopped])
    assert failures[("05_sampler", "coverage")] == (4, "hint: count padded indices", 2)  # carol and erin: no hint
    assert failures[("05_sampler", "shards match")] == (2, "", 0)
    text = report.markdown(CLASS + [other, stopped], None)
    assert "| 05_sampler | coverage | 1/5 | 20 % | 4 | hint: count padded indices (2×) |" in text


def test_first_try_accuracy_comes_from_the_progress_files_handed_in_and_never_writes_them(tmp_path):
    import json
    import os
    for student, answers in {"alice": [("05", 1, True), ("05", 2, False)], "bob": [("05", 1, False)],
                             "carol": []}.items():
        (tmp_path / student).mkdir()
        lines = [{"v": 1, "event": "answer", "lesson": lesson, "question": question, "answer": "b",
                  "correct": correct, "confidence": "sure"} for lesson, question, correct in answers]
        lines.append({"v": 1, "event": "answer", "lesson": "05", "question": 1, "correct": True})  # only the first counts
        lines.append({"v": 1, "event": "answer", "lesson": "05", "question": 3, "answer": 5, "correct": None})
        lines.append({"v": 1, "event": "reveal", "lesson": "05", "question": 3, "measured": 4, "predicted": 5})
        lines.append({"v": 1, "event": "check", "exercise": "05", "check": "sampler_shards", "passed": True})
        if student != "carol":
            (tmp_path / student / report.JOURNAL).write_text("\n".join(map(json.dumps, lines)) + "\nnot json\n")
    stamps = {path: os.stat(path).st_mtime_ns for path in tmp_path.glob(f"*/{report.JOURNAL}")}
    journals = report.first_answers(tmp_path, ["alice", "bob", "carol"])
    assert sorted(journals) == ["alice", "bob"]
    assert report.first_try_accuracy(journals) == [("05", 2, 0, 1), ("05", 1, 1, 2)]
    text = report.markdown(CLASS, None, journals)
    assert "| 05-1 | 1/2 | 50 % | " + report.question_text("05", 1)[:40] in text
    assert {path: os.stat(path).st_mtime_ns for path in stamps} == stamps


def test_why_a_check_or_an_exercise_earned_nothing_is_said_in_the_students_language(course):
    """The reasons the grader stores in English (the gradebook keeps them) reach a Spanish student in Spanish:
    a check missing from the notebook, one that did not run, a timed-out cell, the notebook's own time limit,
    an unreadable file. A check's own hint and torch's or pytest's words stay as they were."""
    from ddp_lessons import grading
    from ddp_lessons.grading import scoring
    from ddp_lessons.grading.cells import CellRecord
    from ddp_lessons.tooling import exercises

    checks = exercises.check_cells(course[1])
    missing = grading.score("99_synthetic", "ana", checks, {checks[0].id: 1}, {0: CellRecord(0), 1: CellRecord(1)})
    did_not_run = grading.score("99_synthetic", "ana", checks, {checks[0].id: 1, checks[1].id: 3},
                                {0: CellRecord(0), 1: CellRecord(1, error="AssertionError: pista: sume")})
    timed_out = grading.score("99_synthetic", "ana", checks, {checks[0].id: 1, checks[1].id: 3},
                              {0: CellRecord(0), 1: CellRecord(1), 2: CellRecord(2, error="Timeout of 10 seconds exceeded",
                                                                                 timed_out=True)})
    stopped = grading.score("99_synthetic", "ana", checks, {checks[0].id: 1}, {0: CellRecord(0)},
                            "the notebook ran past its 600 s limit and was stopped", scoring.TIMED_OUT)
    unreadable = scoring.unscored("ana", "99_synthetic", checks, scoring.UNREADABLE,
                                  "unreadable notebook: JSONDecodeError: Expecting value")
    expected = [(missing, "falta en el notebook"), (did_not_run, "no se ejecutó"),
                (did_not_run, "AssertionError: pista: sume"),
                (timed_out, "tiempo agotado: celda 2: Timeout of 10 seconds exceeded"),
                (stopped, "el notebook superó su tiempo límite de 600 s y se detuvo"),
                (unreadable, "notebook ilegible: JSONDecodeError: Expecting value")]
    spanish_to_english = {"falta en el notebook": "missing from", "no se ejecutó": "did not run",
                          "AssertionError: pista: sume": "",
                          "tiempo agotado: celda 2: Timeout of 10 seconds exceeded": "timed out",
                          "el notebook superó su tiempo límite de 600 s y se detuvo": "ran past",
                          "notebook ilegible: JSONDecodeError: Expecting value": "unreadable"}
    for grade, spanish in expected:
        grade.language = "es"  # an unreadable notebook has none: the student's other notebooks give it
        said = feedback.student_markdown("ana", [grade] if grade is not unreadable else [grade, stopped])
        assert spanish in said, (spanish, said)
        stored = " ".join(grade.failed_checks + [grade.note])
        assert not any(english in said for english in ("missing from", "did not run", "ran past", "unreadable",
                                                       "timed out", "not scored")), said
        assert spanish_to_english[spanish] in stored  # the gradebook keeps the English
    assert feedback.reason("not scored: cell 2 used more than 4 GiB of memory", "es") == \
        "sin puntuar: celda 2: usó más de 4 GiB de memoria"
    assert feedback.reason("a check's own words", "es") == "a check's own words"
