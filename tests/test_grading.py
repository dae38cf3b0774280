"""The grader end to end: submissions graded by real nbval runs of a small synthetic exercise (and every
solution). Its parts alone: test_grading_restore, _scoring, _plugin, _gradebook, _jobs, _sandbox, _feedback."""
import csv
import json
import re
import time
from pathlib import Path

import nbformat
import pytest

from ddp_lessons import grading
from ddp_lessons.runtime import processes
from ddp_lessons.tooling import cli, exercises
from grading_course import CORRECT, SPY, answer, course, hidden_checks, submit  # noqa: F401 (course is a fixture)

ROOT = Path(__file__).resolve().parents[1]
SOLUTIONS = sorted((ROOT / "solutions").glob(exercises.NOTEBOOK_PATTERN))
CELL_TIMEOUT = 10
NOTEBOOK_TIMEOUT = 120


def test_missing_and_unreadable_submissions_score_zero_without_a_kernel(course, tmp_path):
    solution, _ = course
    missing = grading.grade_notebook(tmp_path / "nobody.ipynb", solution, "erin")
    (tmp_path / "broken.ipynb").write_text("{ not json")
    broken = grading.grade_notebook(tmp_path / "broken.ipynb", solution, "frank")
    assert (missing.points, missing.max_points, missing.failed_checks) == (0, 5, ["not submitted"])
    assert broken.points == 0 and broken.failed_checks[0].startswith("unreadable notebook:")


# --- real runs: pytest, nbval, a kernel per notebook ---------------------------------------------

@pytest.mark.slow
def test_grader_ranks_correct_wrong_tampered_hanging_crashing_and_missing(course, tmp_path, capsys):
    """One class at --jobs 2 with the instructor's hidden check, every output format written; the formats'
    contents are checked in test_grading_formats (their schemas) and here (what each student got)."""
    solution, exercise = course
    submissions = tmp_path / "submissions"
    submit(submissions, "alice", answer(exercise, CORRECT[0], SPY))  # reads its notebook: no hidden code there
    submit(submissions, "bob", answer(exercise, "return x + 2", "total = sum(double(i) for i in range(4))"))
    tampered = answer(exercise, "return x + 2", "total = 0")
    tampered.cells[4].source = "# checks the total\npass"
    tampered.cells[4].metadata["ddp_lessons"]["points"] = 100
    submit(submissions, "mallory", tampered)
    submit(submissions, "carol", answer(exercise, "import time\n    time.sleep(3600)", "total = 12"))
    submit(submissions, "dave", answer(exercise, "return 2 * x", "import os\nos._exit(1)"))
    (submissions / "erin").mkdir()

    code = cli.main(["grade", str(submissions), "--out", str(tmp_path / "grades.csv"),
                     "--solutions", str(solution.parent), "--cell-timeout", str(CELL_TIMEOUT),
                     "--notebook-timeout", str(NOTEBOOK_TIMEOUT), "--jobs", "2", "--hidden", str(hidden_checks(tmp_path)),
                     "--feedback", str(tmp_path / "feedback"), "--gradescope", str(tmp_path / "gradescope"),
                     "--lang", "en"])

    assert code == 0
    with open(tmp_path / "grades.csv", newline="") as f:
        rows = {row["student"]: row for row in csv.DictReader(f)}
    assert {s: (int(r["points"]), int(r["max_points"])) for s, r in rows.items()} == {
        "alice": (7, 7), "bob": (2, 7), "mallory": (2, 7), "carol": (0, 7), "dave": (0, 7), "erin": (0, 7)}
    assert rows["alice"]["failed_checks"] == ""
    hidden_failure = "hidden check double() doubles negative numbers too: AssertionError: hint: double(-3) gave -1, not -6"
    assert rows["bob"]["failed_checks"].split(" | ") == ["cell 3: AssertionError: hint: add double(i) for i in 0..3",
                                                         hidden_failure]
    assert rows["mallory"]["failed_checks"] == rows["bob"]["failed_checks"]  # tampering gained nothing
    assert rows["carol"]["failed_checks"].split(" | ") == [
        f"cell 1: Timeout of {CELL_TIMEOUT} seconds exceeded executing cell",
        "cell 3: not scored: cell 1 timed out",
        "hidden check double() doubles negative numbers too: not scored: cell 1 timed out"]
    assert rows["dave"]["failed_checks"].split(" | ")[:3] == [  # dave's first check had passed
        "cell 2: crashed: the kernel died (exit code 1) while this cell ran",
        "cell 1: not scored: cell 2 crashed", "cell 3: not scored: cell 2 crashed"]
    assert rows["erin"]["failed_checks"] == "not submitted"
    printed = capsys.readouterr().out
    seconds = {m[1]: float(m[2]) for m in re.finditer(r"^(\w+)/99_synthetic.ipynb: .* \(([\d.]+) s\)$",
                                                      printed, re.MULTILINE)}
    assert max(seconds["carol"], seconds["dave"]) < NOTEBOOK_TIMEOUT / 2, "ended by the cell timeout"
    assert re.search(r"^alice +7/7 +7/7$", printed, re.MULTILINE)
    assert re.search(r"^dave +0/7 +0/7$", printed, re.MULTILINE)
    bob = (tmp_path / "feedback" / "bob.md").read_text()
    assert "| failed | checks the total (cell 3) | 0/3 |" in bob and "AssertionError: hint: add double(i)" in bob
    assert "| failed | double() doubles negative numbers too (hidden check) | 0/2 |" in bob
    assert "AssertionError: hint: double(-3) gave -1, not -6" in bob
    assert "double(-3) == -6" not in bob and "choose(" not in bob  # the hidden check's hint, never its code
    assert "**Crashed**" in (tmp_path / "feedback" / "dave.md").read_text()
    assert "**Timed out**" in (tmp_path / "feedback" / "carol.md").read_text()
    assert "**Not submitted**" in (tmp_path / "feedback" / "erin.md").read_text()
    assert (tmp_path / "grades-wide.csv").read_text().splitlines()[:2] == [
        "student,99_synthetic,total,max_total", "alice,7,7,7"]
    assert (tmp_path / "grades-lms.csv").read_text().splitlines()[:3] == [
        "student_id,total,99_synthetic", "alice,7,7", "bob,2,2"]
    assert (tmp_path / "grades-report.png").stat().st_size > 0
    report = (tmp_path / "grades-report.md").read_text()
    assert "| 99_synthetic | checks the total | 1/6 | 17 % | 5 | hint: add double(i) for i in 0..3 (2×) |" in report
    assert ("| 99_synthetic | (hidden) double() doubles negative numbers too | 1/6 | 17 % | 5 | "
            "hint: double(-3) gave -1, not -6 (2×) |") in report
    bob_results = json.loads((tmp_path / "gradescope" / "bob" / "results.json").read_text())
    hidden_test = bob_results["tests"][-1]
    assert (bob_results["score"], hidden_test["visibility"], hidden_test["score"], hidden_test["max_score"]) == (
        2, "after_published", 0, 2)
    assert "hint: double(-3) gave -1" in hidden_test["output"] and "double(-3) == -6" not in hidden_test["output"]
    assert json.loads((tmp_path / "gradescope" / "alice" / "results.json").read_text())["score"] == 7


@pytest.mark.slow
def test_notebook_past_its_limit_is_killed_with_every_process_it_started(course, tmp_path):
    solution, exercise = course
    pids = tmp_path / "pids.txt"
    spawn = ("import os, subprocess, sys, time\n"
             "    child = subprocess.Popen([sys.executable, '-c', 'import time; time.sleep(3600)'],"
             " start_new_session=True)\n"
             f"    open({str(pids)!r}, 'w').write(f'{{os.getpid()}} {{child.pid}}')\n"
             "    time.sleep(3600)")
    submit(tmp_path / "submissions", "zoe", answer(exercise, spawn, "total = 12"))
    limit = 30
    start = time.perf_counter()
    grade = grading.grade_notebook(tmp_path / "submissions" / "zoe" / "99_synthetic.ipynb", solution,
                                   "zoe", cell_timeout=3600, notebook_timeout=limit)
    elapsed = time.perf_counter() - start
    assert grade.points == 0
    assert grade.failed_checks == [f"cell {n}: not scored: the notebook ran past its {limit} s limit "
                                   "and was stopped" for n in (1, 3)]
    assert elapsed < limit + 15
    kernel, grandchild = map(int, pids.read_text().split())
    assert processes.alive([kernel, grandchild]) == []


@pytest.mark.slow
def test_a_dying_kernel_is_reported_at_once_not_after_the_cell_timeout(course, tmp_path):
    """SIGKILL is what the out-of-memory killer sends: the grade says so long before the cell timeout."""
    solution, exercise = course
    submit(tmp_path / "submissions", "oom", answer(exercise, CORRECT[0],
                                                   "import os, signal\nos.kill(os.getpid(), signal.SIGKILL)"))
    start = time.perf_counter()
    grade = grading.grade_notebook(tmp_path / "submissions" / "oom" / "99_synthetic.ipynb", solution, "oom",
                                   cell_timeout=600, notebook_timeout=900)
    assert time.perf_counter() - start < 120, "waited for the cell timeout"
    assert (grade.points, grade.status) == (0, "crashed")
    assert grade.failed_checks[0] == ("cell 2: crashed: the kernel died (killed by SIGKILL, as the "
                                      "out-of-memory killer does) while this cell ran")


@pytest.mark.slow
def test_gradebook_is_the_same_in_the_same_order_at_one_and_two_jobs(course, tmp_path):
    solution, exercise = course
    submissions = tmp_path / "submissions"
    submit(submissions, "zed", answer(exercise, *CORRECT))  # sorts last: the gradebook is sorted, not in finishing order
    submit(submissions, "amy", answer(exercise, "return x + 2", CORRECT[1]))
    submit(submissions, "max", answer(exercise, CORRECT[0], "import os\nos._exit(3)"))
    (submissions / "kim").mkdir()
    books = {}
    for jobs in (1, 2):
        out = tmp_path / f"grades-{jobs}.csv"
        assert cli.main(["grade", str(submissions), "--out", str(out), "--solutions", str(solution.parent),
                         "--cell-timeout", str(CELL_TIMEOUT), "--jobs", str(jobs)]) == 0
        books[jobs] = out.read_text(), grading.gradebook.wide_path(out).read_text()
    assert books[1] == books[2]
    assert [line.split(",")[:3] for line in books[1][1].splitlines()] == [
        ["student", "99_synthetic", "total"], ["amy", "2", "2"], ["kim", "0", "0"], ["max", "0", "0"],
        ["zed", "5", "5"]]


def fails_from_student_code(solution):
    """nbval numbers of the check cells that come after the first solution region."""
    code = [cell for cell in solution.cells if cell.cell_type == "code"]
    first = next(i for i, cell in enumerate(code) if exercises.CODE_MARKERS[0] in cell.source)
    return [f"cell {i}" for i, cell in enumerate(code) if exercises.is_check_cell(cell) and i > first]


def cell_results_of_each_run(monkeypatch) -> list[dict[int, dict]]:
    """Every grader run's per-cell records (nbval cell number -> `CellRecord`), in run order, as they are read."""
    runs, read = [], grading.jobs.read_report
    monkeypatch.setattr(grading.jobs, "read_report", lambda report: runs.append(read(report)) or runs[-1])
    return runs


@pytest.mark.slow
@pytest.mark.parametrize("solution_path", SOLUTIONS, ids=[path.stem for path in SOLUTIONS])
def test_untouched_exercise_fails_exactly_its_checks_and_solution_passes_all(solution_path, monkeypatch):
    timeouts = dict(cell_timeout=300, notebook_timeout=900)
    runs = cell_results_of_each_run(monkeypatch)
    solved = grading.grade_notebook(solution_path, solution_path, "solution", **timeouts)
    assert (solved.points, solved.failed_checks) == (solved.max_points, [])
    # `make test` runs each solution once, here, not also under nbval: so check what nbval checked
    # there too, every cell ran without an error, and that no output was meant to be compared
    solution = nbformat.read(solution_path, as_version=4)
    code = [cell for cell in solution.cells if cell.cell_type == "code"]
    assert sorted(runs[0]) == list(range(len(code))), "not every cell of the solution ran"
    failed = {f"cell {n}": r.error for n, r in sorted(runs[0].items()) if r.error}
    assert not failed, f"{solution_path.name}: cells failed outside the checks: {failed}"
    compared = [n for n, cell in enumerate(code) if "NBVAL_CHECK_OUTPUT" in cell.source]
    assert not compared, (f"{solution_path.name}: cells {compared} ask nbval to compare their output, "
                          "but solutions run only under the grader, which clears outputs: assert instead")
    exercise = ROOT / "exercises" / solution_path.name
    assert exercise.exists(), f"{exercise} missing: run `make exercises`"
    untouched = grading.grade_notebook(exercise, solution_path, "untouched", **timeouts)
    expected = fails_from_student_code(nbformat.read(solution_path, as_version=4))
    assert expected, f"{solution_path.name} has no check after a solution region"
    assert [entry.split(":")[0] for entry in untouched.failed_checks] == expected
    assert not any("timed out" in entry or "ran past" in entry for entry in untouched.failed_checks)

