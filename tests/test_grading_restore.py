"""`grading.restore`: the scratch copy a submission runs as, every check cell put back from the solution."""
import nbformat
import nbformat.v4 as v4

from ddp_lessons import grading
from ddp_lessons.tooling import exercises
from grading_course import answer, course  # noqa: F401 (course is a fixture)


def test_restore_puts_back_check_source_and_points_and_clears_outputs(course):
    _, exercise = course
    tampered = answer(exercise, "return 0", "total = 0")
    tampered.cells[4].source = "pass"
    tampered.cells[4].metadata["ddp_lessons"]["points"] = 100
    tampered.cells[1].outputs = [v4.new_output("stream", name="stdout", text="42\n")]
    tampered.cells[1].execution_count = 7
    checks = exercises.check_cells(nbformat.read(course[0], as_version=4))
    placed = grading.restore_checks(tampered, checks)
    assert placed == {checks[0].id: 1, checks[1].id: 3}
    assert tampered.cells[4].source == checks[1].source
    assert tampered.cells[4].metadata["ddp_lessons"]["points"] == 3
    assert tampered.cells[1].outputs == [] and tampered.cells[1].execution_count is None


def test_a_pasted_check_with_a_new_id_is_found_by_its_source(course):
    _, exercise = course
    checks = exercises.check_cells(exercise)
    pasted = nbformat.from_dict(exercise)
    pasted.cells[2].id = "pasted-cell"
    del pasted.cells[4]
    assert grading.restore_checks(pasted, checks) == {checks[0].id: 1}


def test_one_cell_cannot_stand_in_for_two_checks(course):
    """A student who pastes check 2's source over check 1 and deletes check 2 gets one check, not two."""
    _, exercise = course
    checks = exercises.check_cells(exercise)
    merged = nbformat.from_dict(exercise)
    merged.cells[2].source = checks[1].source
    del merged.cells[4]
    assert grading.restore_checks(merged, checks) == {checks[0].id: 1}
    assert merged.cells[2].source == checks[0].source
