"""A synthetic exercise for the grader's tests: solutions/99_synthetic.ipynb with two student regions,
each followed by a pure-Python check (2 and 3 points: nbval cells 0-3), its generated exercise, and
helpers that fill in the stubs and hand notebooks in."""
import re

import nbformat
import nbformat.v4 as v4
import pytest

from ddp_lessons.tooling import exercises


def check_cell(source, points):
    cell = v4.new_code_cell(source)
    cell.metadata["ddp_lessons"] = {"check": True, "points": points}
    return cell


def synthetic_solution():
    """Two student regions, each followed by a pure-Python check (2 and 3 points): nbval cells 0-3."""
    return v4.new_notebook(cells=[
        v4.new_markdown_cell("# 99 Synthetic exercise"),
        v4.new_code_cell("def double(x):\n    ### BEGIN SOLUTION\n    return 2 * x\n    ### END SOLUTION"),
        check_cell("# checks double() on one number\nassert double(2) == 4, 'hint: multiply by 2'", 2),
        v4.new_code_cell("### BEGIN SOLUTION\ntotal = sum(double(i) for i in range(4))\n### END SOLUTION"),
        check_cell("# checks the total\nassert total == 12, 'hint: add double(i) for i in 0..3'\n"
                   "print('total ok')", 3),
    ])


def answer(exercise, *answers):
    """The exercise with its stubs replaced, in order, by `answers` (at the stub's indentation)."""
    notebook = nbformat.from_dict(exercise)
    pending = iter(answers)
    stub = re.compile(r"^( *)# YOUR CODE HERE\n *raise NotImplementedError\(\)", re.MULTILINE)
    for cell in notebook.cells:
        cell.source = stub.sub(lambda match: match.group(1) + next(pending), cell.source)
    return notebook


def make_course(folder):
    """`folder`/solutions/99_synthetic.ipynb; returns its path and the generated exercise."""
    solution = synthetic_solution()
    (folder / "solutions").mkdir(parents=True)
    nbformat.write(solution, folder / "solutions" / "99_synthetic.ipynb")
    return folder / "solutions" / "99_synthetic.ipynb", exercises.make_exercise(solution)


@pytest.fixture
def course(tmp_path):
    """solutions/99_synthetic.ipynb and its generated exercise, in a scratch folder."""
    return make_course(tmp_path)


CORRECT = ("return 2 * x", "total = sum(double(i) for i in range(4))")
"""The two answers that earn all 5 points."""


def submit(folder, student, notebook):
    """Hand `notebook` in as `student` in the submissions `folder`."""
    (folder / student).mkdir(parents=True, exist_ok=True)
    nbformat.write(notebook, folder / student / "99_synthetic.ipynb")


HIDDEN_CHECK = """# Hidden check: double() doubles negative numbers too
# points: 2
from ddp_lessons.i18n import choose
got = double(-3)
assert got == -6, choose({"en": "hint: double(-3) gave {got}, not -6", "es": "pista: double(-3) dio {got}, no -6"},
                         got=got)
print("negatives ok")
"""
"""A hidden check of the synthetic exercise (nbval cell 4 after its 4 code cells): `return x + 2` passes
the visible check (double(2) == 4) and fails this one."""


def hidden_checks(folder):
    """`folder`/hidden/99_synthetic/negatives.py (the instructor's kit of the synthetic exercise)."""
    (folder / "hidden" / "99_synthetic").mkdir(parents=True)
    (folder / "hidden" / "99_synthetic" / "negatives.py").write_text(HIDDEN_CHECK)
    return folder / "hidden"


SPY = ("total = sum(double(i) for i in range(4)) if 'Hidden' + ' check' not in open('99_synthetic.ipynb').read() "
       "else -1")
"""A right second answer that reads the notebook it runs in: 12 only if no hidden check's code is on disk."""
