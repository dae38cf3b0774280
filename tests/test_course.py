"""The course runner: does it report each notebook's first error and total the run?"""
from pathlib import Path

import nbformat

from ddp_lessons.tooling import course


def test_execute_reports_the_first_error_line_and_never_raises(tmp_path):
    nb = nbformat.v4.new_notebook(cells=[nbformat.v4.new_code_cell("x = 1"),
                                         nbformat.v4.new_code_cell("raise ValueError('bad rank count')"),
                                         nbformat.v4.new_code_cell("y = 2")])
    path = tmp_path / "01_demo.ipynb"
    nbformat.write(nb, path)
    ran, outcome = course.execute(path, cell_timeout=60)
    assert outcome.notebook == "01_demo.ipynb" and not outcome.ok
    assert outcome.status == "ValueError: bad rank count"
    assert ran.cells[0].execution_count == 1 and ran.cells[2].get("execution_count") is None


def test_format_table_counts_failures_and_sums_seconds():
    table = course.format_table([course.Outcome("01_a.ipynb", 1.5, "ok"),
                                 course.Outcome("02_b.ipynb", 2.0, "cell timed out after 5 s")])
    assert "02_b.ipynb" in table and "cell timed out after 5 s" in table
    assert table.splitlines()[-1].split()[1:] == ["3.5", "1", "ok,", "1", "failed"]


def test_stored_outputs_that_show_a_machine_path_are_named_by_cell():
    clean = nbformat.v4.new_code_cell("x", outputs=[nbformat.v4.new_output("stream", text="rank 0 ok\n")])
    leaky = nbformat.v4.new_code_cell("y", outputs=[nbformat.v4.new_output(
        "error", ename="E", evalue="x", traceback=['File "/home/ana/course/notebooks/scripts/x.py", line 3'])])
    shown = nbformat.v4.new_code_cell("z", outputs=[nbformat.v4.new_output(
        "execute_result", data={"text/plain": "'/srv/me/run'"}, execution_count=1)])
    notebook = nbformat.v4.new_notebook(cells=[clean, leaky, shown])
    assert course.machine_paths(notebook) == ["cell 1: /home/ana/course/notebooks/scripts/x.py\","]
    assert course.machine_paths(notebook, extra=("/srv/me",)) == ["cell 1: /home/ana/course/notebooks/scripts/x.py\",",
                                                                   "cell 2: /srv/me"]
    assert course.machine_paths(nbformat.v4.new_notebook(cells=[clean])) == []


def test_checked_cells_are_compared_like_nbval_and_the_others_are_not():
    def cell(source, *texts):
        return nbformat.v4.new_code_cell(source, outputs=[nbformat.v4.new_output("stream", text=t) for t in texts])

    stored = nbformat.v4.new_notebook(cells=[cell("# NBVAL_CHECK_OUTPUT\nprint(x)", "loss 0.5 after 3.2 s\n"),
                                             cell("print(y)", "anything\n")])
    ran = nbformat.v4.new_notebook(cells=[cell("# NBVAL_CHECK_OUTPUT\nprint(x)", "loss 0.5 ", "after 9.9 s\n"),
                                          cell("print(y)", "something else\n")])
    for stored_cell, ran_cell in zip(stored.cells, ran.cells):
        ran_cell.id = stored_cell.id
    sanitizers = course.load_sanitizers(Path(__file__).parent)
    assert course.checked_differences(stored, ran, sanitizers) == []  # streams joined, seconds sanitized
    ran.cells[0].outputs[0].text = "loss 0.6 "
    [differs] = course.checked_differences(stored, ran, sanitizers)
    assert differs.startswith("cell 0 (# NBVAL_CHECK_OUTPUT) differs from its stored output: 'loss 0.5 after T s'")


def test_a_translation_without_a_run_of_its_own_is_not_compared_to_its_english_outputs():
    assert course.ran_in_its_language(nbformat.v4.new_notebook())  # an English lesson
    copied = nbformat.v4.new_notebook(metadata={"ddp_lessons": {"language": "es", "translated_from": "x"}})
    assert not course.ran_in_its_language(copied)
    copied.metadata["ddp_lessons"]["run"] = {"source": "0123456789ab"}
    assert course.ran_in_its_language(copied)
