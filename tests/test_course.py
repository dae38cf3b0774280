"""The course runner: does it report each notebook's first error and total the run?"""
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
