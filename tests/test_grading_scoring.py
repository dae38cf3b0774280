"""`grading.scoring`: which check cells earn their points, given each cell's outcome (nothing runs)."""
from ddp_lessons import grading
from ddp_lessons.grading.cells import CellRecord
from ddp_lessons.tooling import exercises
from grading_course import course  # noqa: F401 (course is a fixture)


def result(cell, error=None, timed_out=False):
    return {cell: CellRecord(cell, error=error, timed_out=timed_out)}


def test_only_checks_that_passed_score_and_failures_show_their_first_line(course):
    checks = exercises.check_cells(course[1])
    placed = {checks[0].id: 1, checks[1].id: 3}
    results = {**result(0), **result(1), **result(2), **result(3, "AssertionError: hint: add")}
    grade = grading.score("99_synthetic", "bob", checks, placed, results)
    assert (grade.points, grade.max_points) == (2, 5)
    assert grade.failed_checks == ["cell 3: AssertionError: hint: add"]


def test_a_timed_out_cell_voids_the_exercise_and_is_named_first(course):
    checks = exercises.check_cells(course[1])
    placed = {checks[0].id: 1, checks[1].id: 3}
    results = {**result(0), **result(1), **result(2, "Timeout of 10 seconds exceeded", True),
               **result(3)}
    grade = grading.score("99_synthetic", "carol", checks, placed, results)
    assert grade.points == 0
    assert grade.failed_checks == ["cell 2: Timeout of 10 seconds exceeded",
                                   "cell 1: not scored: cell 2 timed out",
                                   "cell 3: not scored: cell 2 timed out"]


def test_a_deleted_check_scores_nothing_and_is_reported(course):
    checks = exercises.check_cells(course[1])
    grade = grading.score("99_synthetic", "dan", checks, {checks[0].id: 1}, {**result(0), **result(1)})
    assert grade.points == 2
    assert grade.failed_checks == [f"check {checks[1].id}: missing from the notebook"]
