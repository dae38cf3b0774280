"""The exercise generator: regions become stubs, everything else stays, exercises/ never drifts."""
from pathlib import Path

import nbformat
import nbformat.v4 as v4
import pytest

from ddp_lessons.tooling import cli, exercises

ROOT = Path(__file__).resolve().parents[1]
SOLUTIONS = sorted((ROOT / "solutions").glob(exercises.NOTEBOOK_PATTERN))
STUB = exercises.CODE_STUB


def check_cell(source, points):
    cell = v4.new_code_cell(source)
    cell.metadata["ddp_lessons"] = {"check": True, "points": points}
    return cell


def executed(cell, text):
    cell.execution_count = 1
    cell.outputs = [v4.new_output("stream", name="stdout", text=text)]
    return cell


@pytest.fixture
def solution():
    """A small solution notebook, stored executed, with code and markdown regions and a check."""
    return v4.new_notebook(cells=[
        v4.new_markdown_cell("# 99 Tiny\nWhy do ranks need different data?\n"
                             "<!-- BEGIN SOLUTION -->\nSo that they do not repeat work.\n"
                             "<!-- END SOLUTION -->\nNext, code."),
        executed(v4.new_code_cell("import math\n### BEGIN SOLUTION\nx = 4\n### END SOLUTION\nprint(x)"),
                 "4\n"),
        v4.new_code_cell("def double(x):\n    \"\"\"Twice x.\"\"\"\n    ### BEGIN SOLUTION\n"
                         "    y = 2 * x\n    return y\n    ### END SOLUTION"),
        executed(check_cell("# checks double\nassert double(2) == 4, 'hint: 2 * x'", 3), ""),
    ], metadata={"kernelspec": {"name": "python3", "display_name": "Python 3", "language": "python"}})


def test_code_region_becomes_stub_and_keeps_surrounding_lines(solution):
    cell = exercises.make_exercise(solution).cells[1]
    assert cell.source == "import math\n# YOUR CODE HERE\nraise NotImplementedError()\nprint(x)"


def test_stub_takes_the_indentation_of_its_begin_marker(solution):
    cell = exercises.make_exercise(solution).cells[2]
    assert cell.source == ("def double(x):\n    \"\"\"Twice x.\"\"\"\n"
                           "    # YOUR CODE HERE\n    raise NotImplementedError()")


def test_markdown_region_becomes_your_answer_here(solution):
    cell = exercises.make_exercise(solution).cells[0]
    assert cell.source == ("# 99 Tiny\nWhy do ranks need different data?\n"
                           "_Your answer here._\nNext, code.")


def test_code_outputs_and_counts_are_cleared_and_everything_else_is_kept(solution):
    exercise = exercises.make_exercise(solution)
    assert all(c.outputs == [] and c.execution_count is None for c in exercise.cells
               if c.cell_type == "code")
    assert [c.id for c in exercise.cells] == [c.id for c in solution.cells]
    assert [c.metadata for c in exercise.cells] == [c.metadata for c in solution.cells]
    assert exercise.metadata == solution.metadata
    assert exercise.cells[3].source == solution.cells[3].source  # the check cell is untouched


def test_the_solution_is_not_modified(solution):
    before = nbformat.writes(solution)
    exercises.make_exercise(solution)
    assert nbformat.writes(solution) == before


def test_several_regions_in_one_cell_each_become_a_stub():
    source = ("a = 1\n### BEGIN SOLUTION\nb = 2\n### END SOLUTION\nc = 3\n"
              "  ### BEGIN SOLUTION\nd\n  ### END SOLUTION")
    assert exercises.replace_regions(source, exercises.CODE_MARKERS, STUB, "nb") == (
        "a = 1\n# YOUR CODE HERE\nraise NotImplementedError()\nc = 3\n"
        "  # YOUR CODE HERE\n  raise NotImplementedError()")


@pytest.mark.parametrize("source, message", [
    ("x\n### END SOLUTION", "line 2: '### END SOLUTION' without a '### BEGIN SOLUTION'"),
    ("### BEGIN SOLUTION\nx = 1", "line 1: '### BEGIN SOLUTION' is never closed"),
    ("### BEGIN SOLUTION\n    ### BEGIN SOLUTION\n### END SOLUTION\n### END SOLUTION",
     "line 2: '### BEGIN SOLUTION' inside the region opened on line 1"),
])
def test_unbalanced_or_nested_markers_name_notebook_cell_and_line(solution, source, message):
    solution.cells[2].source = source
    with pytest.raises(exercises.ExerciseFormatError) as error:
        exercises.make_exercise(solution, "solutions/99_tiny.ipynb")
    assert str(error.value).startswith(f"solutions/99_tiny.ipynb, cell 2 (id {solution.cells[2].id})")
    assert message in str(error.value)


@pytest.mark.parametrize("points", [0, -1, 1.5, "2", True, None])
def test_check_cells_need_positive_whole_points(solution, points):
    solution.cells[3].metadata["ddp_lessons"]["points"] = points
    with pytest.raises(exercises.ExerciseFormatError, match="'points' must be a whole number"):
        exercises.make_exercise(solution, "nb")


def test_check_cells_need_an_id_for_the_grader_to_find_them(solution):
    del solution.cells[3]["id"]
    with pytest.raises(exercises.ExerciseFormatError, match="has no cell id"):
        exercises.make_exercise(solution, "nb")


def test_check_cells_cannot_hold_a_solution_region(solution):
    """The grader restores check cells from the solution: a region there would leak the answer."""
    solution.cells[3].source = "### BEGIN SOLUTION\nx = 1\n### END SOLUTION"
    with pytest.raises(exercises.ExerciseFormatError, match="cannot hold a solution region"):
        exercises.make_exercise(solution, "nb")


def test_check_cells_are_found_by_metadata(solution):
    assert exercises.check_cells(solution) == [solution.cells[3]]


def write_folder(solution, tmp_path):
    (tmp_path / "solutions").mkdir()
    nbformat.write(solution, tmp_path / "solutions" / "99_tiny.ipynb")
    return tmp_path / "solutions", tmp_path / "exercises"


def test_cli_writes_exercises_then_check_finds_no_drift(solution, tmp_path, capsys):
    solutions, exercises_dir = write_folder(solution, tmp_path)
    args = ["make-exercises", "--solutions", str(solutions), "--exercises", str(exercises_dir)]
    assert cli.main(args) == 0
    written = nbformat.read(exercises_dir / "99_tiny.ipynb", as_version=4)
    assert STUB[1] in written.cells[1].source and "x = 4" not in written.cells[1].source
    assert cli.main(args + ["--check"]) == 0
    assert cli.main(args) == 0
    assert "0 exercise(s) updated" in capsys.readouterr().out


def test_check_lists_edited_missing_and_orphaned_exercises_without_writing(solution, tmp_path, capsys):
    solutions, exercises_dir = write_folder(solution, tmp_path)
    nbformat.write(solution, solutions / "98_other.ipynb")
    exercises.write_exercises(solutions, exercises_dir)
    edited = exercises_dir / "99_tiny.ipynb"
    edited.write_text(edited.read_text().replace("YOUR CODE HERE", "my answer"))
    (exercises_dir / "98_other.ipynb").unlink()
    (exercises_dir / "97_retired.ipynb").write_text("{}")
    args = ["make-exercises", "--solutions", str(solutions), "--exercises", str(exercises_dir), "--check"]
    assert cli.main(args) == 1
    errors = capsys.readouterr().err
    assert f"{exercises_dir / '98_other.ipynb'}: missing" in errors
    assert f"{edited}: differs from its solution" in errors
    assert f"{exercises_dir / '97_retired.ipynb'}: has no solution" in errors
    assert "my answer" in edited.read_text() and not (exercises_dir / "98_other.ipynb").exists()


def test_cli_reports_a_format_error_without_a_traceback(solution, tmp_path, capsys):
    solution.cells[1].source = "### BEGIN SOLUTION"
    solutions, exercises_dir = write_folder(solution, tmp_path)
    assert cli.main(["make-exercises", "--solutions", str(solutions),
                     "--exercises", str(exercises_dir)]) == 1
    assert "is never closed" in capsys.readouterr().err


@pytest.mark.parametrize("solution_path", SOLUTIONS, ids=[path.stem for path in SOLUTIONS])
def test_stored_exercise_is_what_the_generator_makes_from_its_solution(solution_path):
    exercise = ROOT / "exercises" / solution_path.name
    expected = exercises.render(exercises.make_exercise(nbformat.read(solution_path, as_version=4)))
    assert exercise.exists(), f"{exercise} missing: run `make exercises`"
    assert exercise.read_text(encoding="utf-8") == expected, f"{exercise} drifted: run `make exercises`"


def test_every_stored_exercise_has_its_solution():
    assert exercises.orphans(ROOT / "solutions", ROOT / "exercises") == []


def test_a_region_with_exercise_shows_gives_the_exercise_its_uncommented_lines():
    source = ("def wrap(model, rank, local_rank):\n    ### BEGIN SOLUTION\n    ids = [local_rank]\n"
              f"    {exercises.CODE_SHOWS}\n    # ids = [rank]\n    #     # (indented more)\n    ### END SOLUTION\n"
              "    return ids")
    assert exercises.replace_regions(source, exercises.CODE_MARKERS, STUB, "nb", exercises.CODE_SHOWS) == (
        "def wrap(model, rank, local_rank):\n    ids = [rank]\n        # (indented more)\n    return ids")


def test_exercise_shows_with_nothing_after_it_removes_the_region():
    source = f"a = 1\n### BEGIN SOLUTION\nsampler.set_epoch(epoch)\n{exercises.CODE_SHOWS}\n### END SOLUTION\nb = 2"
    assert exercises.replace_regions(source, exercises.CODE_MARKERS, STUB, "nb", exercises.CODE_SHOWS) == \
        "a = 1\nb = 2"


def test_exercise_shows_refuses_a_line_that_is_not_commented_out():
    source = f"### BEGIN SOLUTION\nx = 1\n{exercises.CODE_SHOWS}\nx = 2\n### END SOLUTION"
    with pytest.raises(exercises.ExerciseFormatError, match="line 4: after '### EXERCISE SHOWS'"):
        exercises.replace_regions(source, exercises.CODE_MARKERS, STUB, "nb", exercises.CODE_SHOWS)
