"""The files instructors upload, checked against their documented schemas (docs/schemas/): a Gradescope
autograder results.json per student and the LMS gradebook CSV; and the per-submission result records
both local and SLURM grading write (built from grades, nothing run)."""
import csv
import json
from pathlib import Path

import jsonschema
import pytest

from ddp_lessons.grading import gradebook, gradescope, results
from ddp_lessons.grading.limits import GiB
from ddp_lessons.grading.results import Notebook
from ddp_lessons.grading.scoring import NOT_GRADED, OVER_LIMIT, CheckResult, Grade, LimitHit
from ddp_lessons.grading.watch import Usage

SCHEMAS = Path(__file__).resolve().parents[1] / "docs" / "schemas"


def schema(name):
    document = json.loads((SCHEMAS / name).read_text())
    jsonschema.Draft202012Validator.check_schema(document)
    return jsonschema.Draft202012Validator(document)


def passed(title, points, cell, hidden=False):
    return CheckResult(cell, title, points, points, hidden=hidden)


def failed(title, points, cell, hint, hidden=False):
    return CheckResult(cell, title, 0, points, hint.splitlines()[0], hint, hidden=hidden)


CLASS = [
    Grade("alice", "05_sampler", 5, 5, checks=[passed("shards match", 3, 1), passed("coverage", 1, 3),
                                               passed("repeats counted", 1, 6, hidden=True)],
          usage=Usage(800 << 20, 38, 4096, 512)),
    Grade("bob", "05_sampler", 3, 5, ["cell 3: AssertionError: hint: count padded indices",
                                      "hidden check repeats counted: AssertionError: hint: a rank's repeats"],
          checks=[passed("shards match", 3, 1), failed("coverage", 1, 3, "AssertionError: hint: count padded\nmore"),
                  failed("repeats counted", 1, 6, "AssertionError: hint: a rank's repeats", hidden=True)],
          language="es"),
    Grade("alice", "08_checkpoint", 0, 2, ["cell 2: used more than 4 GiB of memory (the grader's limit)"],
          OVER_LIMIT, "used more than 4 GiB of memory in cell 2",
          [CheckResult(2, "resume", 0, 2, "not scored: cell 2 used more than 4 GiB of memory")],
          limit=LimitHit("memory", 4 * GiB, 2)),
    Grade("bob", "08_checkpoint", 2, 2, checks=[passed("resume", 2, 2)], language="es"),
]


def test_every_results_json_validates_against_gradescopes_format_and_hidden_checks_wait_for_publishing(tmp_path):
    written, skipped = gradescope.write_results(CLASS, tmp_path)
    assert [path.parent.name for path in written] == ["alice", "bob"] and skipped == []
    validator = schema("gradescope-results.schema.json")
    for path in written:
        validator.validate(json.loads(path.read_text()))
    bob = json.loads((tmp_path / "bob" / "results.json").read_text())
    assert bob["score"] == 5
    assert [(t["name"], t["score"], t["max_score"], t["status"], t["visibility"], t["number"]) for t in bob["tests"]] == [
        ("05_sampler: shards match", 3, 3, "passed", "visible", "5.1"),
        ("05_sampler: coverage", 0, 1, "failed", "visible", "5.2"),
        ("05_sampler: repeats counted", 0, 1, "failed", "after_published", "5.3"),
        ("08_checkpoint: resume", 2, 2, "passed", "visible", "8.1")]
    assert bob["tests"][1]["output"] == "AssertionError: hint: count padded\nmore"  # what the student saw
    assert bob["tests"][2]["output"].startswith("Una comprobación que el corrector")  # bob works in Spanish
    alice = json.loads((tmp_path / "alice" / "results.json").read_text())
    assert "08_checkpoint: **Over a limit**: this notebook used more than 4 GiB of memory in cell 2" in alice["output"]


def test_a_student_with_a_notebook_not_graded_gets_no_results_json_and_no_total(tmp_path):
    grades = CLASS + [Grade("carol", "05_sampler", 0, 5, ["not graded: its SLURM task failed twice"], NOT_GRADED,
                            "not graded: its SLURM task failed twice")]
    written, skipped = gradescope.write_results(grades, tmp_path / "gs")
    assert skipped == ["carol"] and not (tmp_path / "gs" / "carol").exists()
    gradebook.write_lms(grades, tmp_path / "lms.csv")
    with open(tmp_path / "lms.csv", newline="") as f:
        rows = list(csv.DictReader(f))
    assert rows[-1] == {"student_id": "carol", "total": "", "05_sampler": "", "08_checkpoint": ""}
    gradebook.write_gradebook(grades, tmp_path / "long.csv")
    assert "carol,05_sampler,,5,not graded: its SLURM task failed twice" in (tmp_path / "long.csv").read_text()


def test_the_lms_csv_validates_against_its_schema_student_id_total_then_one_column_per_exercise(tmp_path):
    gradebook.write_lms(CLASS, tmp_path / "grades-lms.csv")
    with open(tmp_path / "grades-lms.csv", newline="", encoding="utf-8") as f:
        reader = csv.reader(f)
        header = next(reader)
        rows = [dict(zip(header, row)) for row in reader]
    schema("lms-gradebook.schema.json").validate({"header": header, "rows": rows})
    assert header == ["student_id", "total", "05_sampler", "08_checkpoint"]
    assert rows == [{"student_id": "alice", "total": "5", "05_sampler": "5", "08_checkpoint": "0"},
                    {"student_id": "bob", "total": "5", "05_sampler": "3", "08_checkpoint": "2"}]
    assert gradebook.lms_path(tmp_path / "grades.csv") == tmp_path / "grades-lms.csv"


@pytest.mark.parametrize("bad", [{"header": ["student", "total", "05_sampler"], "rows": []},
                                 {"header": ["student_id", "total", "05_sampler"],
                                  "rows": [{"student_id": "a", "total": "0.5", "05_sampler": "x"}]}])
def test_the_lms_schema_rejects_another_header_or_points_that_are_not_whole(bad):
    with pytest.raises(jsonschema.ValidationError):
        schema("lms-gradebook.schema.json").validate(bad)


def test_the_gradescope_schema_rejects_a_visibility_gradescope_does_not_know():
    with pytest.raises(jsonschema.ValidationError):
        schema("gradescope-results.schema.json").validate({"score": 1, "tests": [{"score": 1, "visibility": "secret"}]})


# --- the per-submission result records -----------------------------------------------------------------

def test_a_grade_survives_its_result_file_whole(tmp_path):
    for grade in CLASS:
        notebook = Notebook(grade.student, grade.exercise)
        results.write_result(tmp_path, notebook, grade, "abc")
        assert results.read_result(tmp_path, notebook) == (grade, "abc")


def test_merge_orders_the_class_and_names_what_was_not_graded_without_points(tmp_path):
    from grading_course import make_course

    solution, _ = make_course(tmp_path)
    checks = {"99_synthetic": results_checks(solution)}
    found = {Notebook("bob", "99_synthetic"): Grade("bob", "99_synthetic", 5, 5)}
    merged = results.merge([Notebook("carol", "99_synthetic"), Notebook("bob", "99_synthetic")], found,
                           checks.get, {Notebook("carol", "99_synthetic"): "its SLURM task failed twice"})
    assert [(g.student, g.points, g.status) for g in merged] == [("bob", 5, "graded"), ("carol", 0, "not graded")]
    assert merged[1].failed_checks == ["not graded: its SLURM task failed twice"] and merged[1].max_points == 5
    assert merged[1].row()["points"] == ""


def results_checks(solution):
    import nbformat

    from ddp_lessons.base.exercise_format import check_cells
    return check_cells(nbformat.read(solution, as_version=4))


def test_a_result_counts_for_resume_only_while_the_notebook_handed_in_is_the_one_it_graded(tmp_path):
    submissions = tmp_path / "submissions"
    (submissions / "bob").mkdir(parents=True)
    notebook = Notebook("bob", "99_synthetic")
    path = submissions / "bob" / "99_synthetic.ipynb"
    path.write_text("{}")
    results.write_result(tmp_path / "run", notebook, Grade("bob", "99_synthetic", 5, 5), results.fingerprint(path))
    assert list(results.read_results(tmp_path / "run", [notebook], submissions)) == [notebook]
    path.write_text('{"cells": []}')  # handed in again
    assert results.read_results(tmp_path / "run", [notebook], submissions) == {}


def test_resume_refuses_a_run_folder_graded_with_other_settings_and_a_fresh_run_starts_empty(tmp_path):
    run = tmp_path / "grades-run"
    results.start_run(run, {"settings": {"cell_timeout": 300}}, resume=False)
    results.write_result(run, Notebook("bob", "01_x"), Grade("bob", "01_x", 1, 1), None)
    with pytest.raises(ValueError, match="cell_timeout"):
        results.start_run(run, {"settings": {"cell_timeout": 60}}, resume=True)
    results.start_run(run, {"settings": {"cell_timeout": 300}}, resume=True)
    assert results.read_result(run, Notebook("bob", "01_x")) is not None
    results.start_run(run, {"settings": {"cell_timeout": 300}}, resume=False)
    assert results.read_result(run, Notebook("bob", "01_x")) is None
