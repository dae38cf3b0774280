"""Script diffs: exactly the changed lines, labelled by file name, coloured and escaped in HTML."""
import nbformat
import pytest

from ddp_lessons.diffs import script_diff, written_script, written_scripts


def write(path, text):
    path.write_text(text)
    return path


SINGLE = "import torch\n\nmodel = Net()\nloss.backward()\nprint(loss)\n"
DDP_VERSION = ("import torch\nimport torch.distributed as dist\n\nmodel = Net()\nmodel = DDP(model)\n"
               "loss.backward()\nif rank == 0:\n    print(loss)\n")


def test_added_and_removed_are_exactly_the_changed_lines(tmp_path):
    diff = script_diff(write(tmp_path / "single.py", SINGLE), write(tmp_path / "ddp.py", DDP_VERSION))
    assert diff.added == ["import torch.distributed as dist", "model = DDP(model)", "if rank == 0:",
                          "    print(loss)"]
    assert diff.removed == ["print(loss)"]


def test_text_is_a_unified_diff_labelled_by_file_name(tmp_path):
    diff = script_diff(write(tmp_path / "single.py", SINGLE), write(tmp_path / "ddp.py", DDP_VERSION),
                       context=0)
    lines = str(diff).splitlines()
    assert lines[:2] == ["--- single.py", "+++ ddp.py"]  # no directories: stable across machines
    assert "@@ -1,0 +2 @@" in lines and " model = Net()" not in lines  # context=0: no context lines


def test_html_colours_added_and_removed_lines_and_escapes_code(tmp_path):
    before = write(tmp_path / "a.py", "x = 1\n")
    after = write(tmp_path / "b.py", "x = 1\nif a < b and c > d:\n")
    page = script_diff(before, after)._repr_html_()
    assert "+if a &lt; b and c &gt; d:" in page and "<b and" not in page
    added = next(line for line in page.split("</span>") if "+if a" in line)
    assert "background:#dafbe1" in added
    removed = script_diff(after, before)._repr_html_()
    assert "background:#ffebe9" in next(line for line in removed.split("</span>") if "-if a" in line)


def test_identical_scripts_say_so(tmp_path):
    same = write(tmp_path / "a.py", SINGLE)
    diff = script_diff(same, same)
    assert diff.lines == () and diff.added == [] == diff.removed
    assert str(diff) == "(the scripts are identical)"
    assert "identical" in diff._repr_html_()


def test_written_script_is_the_text_of_a_notebooks_writefile_cell(tmp_path):
    nb = nbformat.v4.new_notebook(cells=[nbformat.v4.new_code_cell("%%writefile scripts/a.py\nprint(1)"),
                                         nbformat.v4.new_code_cell("%%writefile -a scripts/b.py\nx")])
    nbformat.write(nb, tmp_path / "n.ipynb")
    assert written_script(tmp_path / "n.ipynb", "scripts/a.py") == "print(1)\n"
    with pytest.raises(LookupError, match="scripts/b.py"):
        written_script(tmp_path / "n.ipynb", "scripts/b.py")


def test_written_scripts_lists_every_writefile_cell_in_order(tmp_path):
    nb = nbformat.v4.new_notebook(cells=[nbformat.v4.new_code_cell("%%writefile scripts/a.py\nprint(1)\n\n"),
                                         nbformat.v4.new_markdown_cell("%%writefile scripts/not_code.py"),
                                         nbformat.v4.new_code_cell("%%writefile -a scripts/b.py\nx"),
                                         nbformat.v4.new_code_cell("%%writefile scripts/c.py\ny")])
    path = tmp_path / "n.ipynb"
    nbformat.write(nb, path)
    assert written_scripts(path) == [("scripts/a.py", "print(1)\n"), ("scripts/c.py", "y\n")]
