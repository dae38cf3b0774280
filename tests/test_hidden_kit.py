"""The instructors' kit of hidden checks (instructors/hidden/NN_topic/NAME.py): each one catches the wrong answer
kept beside it (NAME.wrong.py) that the exercise's visible checks let pass, in English and in Spanish, and
lets the solution pass. Nothing is launched: the solution's cells run in this process with the wrong
answer in its region, visible checks that would launch torchrun are not run (the wrong answer's file
says why they let it pass), and the hidden check runs last, in the same namespace, as the grader runs it.
"""
import os
import re
from pathlib import Path

import matplotlib.pyplot as plt
import nbformat
import pytest

from ddp_lessons import checks, launch
from ddp_lessons.base.exercise_format import CODE_MARKERS, is_check_cell
from ddp_lessons.grading import hidden
from ddp_lessons.runtime.contract import LANGUAGE_ENV
from test_translations import english_words

ROOT = Path(__file__).resolve().parents[1]
KIT = ROOT / "instructors" / "hidden"
WRONG_ANSWERS = sorted(KIT.glob(f"*/*{hidden.WRONG}"))
REWORKED: set[str] = set()
"""Exercises whose checks were being reworked when the kit was written: their hidden checks come with the rework."""


class LaunchSkipped(Exception):
    """A visible check would have launched torchrun: this test does not pay for it."""


def wrong_answer(path: Path) -> tuple[str, str, str]:
    """(the line after which the replaced region starts, why the visible check lets it pass, the wrong code)."""
    lines = path.read_text(encoding="utf-8").splitlines()
    header = list(__import__("itertools").takewhile(lambda line: line.startswith("#"), lines))
    text = " ".join(line.lstrip("# ").strip() for line in header)
    after = re.search(r"after: (.+?)(?= visible check lets it pass because:|$)", text)
    because = re.search(r"visible check lets it pass because: (.+)$", text)
    assert header and header[0].startswith("# Wrong answer:") and after and because, (
        f"{path}: start with '# Wrong answer: ...', '# after: <text before the region>' and "
        "'# visible check lets it pass because: ...'")
    return after[1].strip(), because[1].strip(), "\n".join(lines[len(header):])


def with_region_replaced(solution: nbformat.NotebookNode, after: str, code: str) -> nbformat.NotebookNode:
    """The solution with the first solution region after the line holding `after` replaced by `code`."""
    notebook = nbformat.from_dict(solution)
    for cell in notebook.cells:
        lines = cell.source.splitlines()
        found = [n for n, line in enumerate(lines) if after in line]
        if cell.cell_type != "code" or not found:
            continue
        begin = next(n for n in range(found[0], len(lines)) if lines[n].strip() == CODE_MARKERS[0])
        end = next(n for n in range(begin, len(lines)) if lines[n].strip() == CODE_MARKERS[1])
        indent = lines[begin][:len(lines[begin]) - len(lines[begin].lstrip())]
        cell.source = "\n".join(lines[:begin] + [indent + line if line else line for line in code.splitlines()]
                                + lines[end + 1:])
        return notebook
    raise AssertionError(f"no code cell of the solution holds {after!r}")


def run_cells(notebook: nbformat.NotebookNode, visible: bool) -> tuple[dict, dict[int, str]]:
    """Run the notebook's code cells here, in the current folder, as a kernel would ('%%writefile' writes
    its file); with `visible`, its check cells too. The namespace, and each check cell run: 'passed',
    'launches' or its failure."""
    namespace, checks, number, launched = {"__name__": "__main__"}, {}, -1, False
    for cell in notebook.cells:
        if cell.cell_type != "code":
            continue
        number += 1
        if is_check_cell(cell) and not visible:
            continue
        first, _, body = cell.source.partition("\n")
        if first.startswith("%%writefile"):
            path = Path(first.split()[-1])
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_text(body + "\n", encoding="utf-8")
            continue
        assert not first.startswith("%"), f"cell {number}: magic {first!r} is not run by this test"
        try:
            exec(compile(cell.source, f"<cell {number}>", "exec"), namespace)
        except LaunchSkipped:
            checks[number] = "launches"
            launched = True
        except NameError:  # a cell that reads what a launch not run here would have made (its run folder)
            if not launched:
                raise
            checks[number] = "launches"
        except AssertionError as error:
            if not is_check_cell(cell):
                raise
            checks[number] = f"failed: {error}"
        else:
            if is_check_cell(cell):
                checks[number] = "passed"
        plt.close("all")
    return namespace, checks


def hidden_failure(check: Path, namespace: dict) -> str | None:
    """Run the hidden check in `namespace` as the grader would; its failure's message, or None if it passed."""
    try:
        exec(compile(hidden.parse(check).source, str(check), "exec"), dict(namespace))
    except AssertionError as error:
        return str(error)
    return None


@pytest.fixture
def no_launches(monkeypatch, tmp_path):
    def refuse(*args, **kwargs):
        raise LaunchSkipped()
    monkeypatch.setattr(launch, "run_torchrun", refuse)
    reads = checks.launched_records  # a check cell that reads the records of the launch above, not run here
    monkeypatch.setattr(checks, "launched_records", lambda run, *a, **k: refuse() if run is None else reads(run, *a, **k))
    monkeypatch.chdir(tmp_path)
    yield
    from accelerate.state import AcceleratorState, GradientState  # exercise 14's check makes an Accelerator here
    AcceleratorState._reset_state(reset_partial_state=True)
    GradientState._reset_state()


@pytest.mark.parametrize("wrong", WRONG_ANSWERS, ids=[f"{p.parent.name}-{p.name.removesuffix(hidden.WRONG)}"
                                                      for p in WRONG_ANSWERS])
def test_a_hidden_check_catches_its_wrong_answer_which_the_visible_checks_let_pass(wrong, no_launches, monkeypatch):
    check = wrong.with_name(wrong.name.removesuffix(hidden.WRONG) + ".py")
    assert check.exists(), f"{wrong} has no hidden check {check.name} beside it"
    solution = nbformat.read(ROOT / "solutions" / f"{wrong.parent.name}.ipynb", as_version=4)
    after, because, code = wrong_answer(wrong)
    monkeypatch.setenv(LANGUAGE_ENV, "en")
    namespace, visible = run_cells(with_region_replaced(solution, after, code), visible=True)
    assert visible and not [result for result in visible.values() if result.startswith("failed")], (
        f"the visible checks catch this wrong answer already: {visible}")
    english = hidden_failure(check, namespace)
    assert english is not None, f"{check.name} lets the wrong answer of {wrong.name} pass"
    monkeypatch.setenv(LANGUAGE_ENV, "es")
    spanish = hidden_failure(check, namespace)
    assert spanish is not None and spanish != english and not english_words(spanish), spanish
    if all(result == "launches" for result in visible.values()):
        assert len(because) > 20  # none could run here: the file says why they let it pass


@pytest.mark.parametrize("exercise", sorted({path.parent.name for path in WRONG_ANSWERS}))
def test_the_solution_passes_its_hidden_checks(exercise, no_launches):
    namespace, _ = run_cells(nbformat.read(ROOT / "solutions" / f"{exercise}.ipynb", as_version=4), visible=False)
    for check in hidden.load(KIT, exercise):
        path = KIT / exercise / (check.id.removeprefix(hidden.ID_PREFIX) + ".py")
        assert hidden_failure(path, namespace) is None, path


def test_every_exercise_not_being_reworked_has_a_hidden_check_with_its_wrong_answer():
    solutions = {path.stem for path in (ROOT / "solutions").glob("[0-9][0-9]_*.ipynb")}
    kit = {path.parent.name for path in WRONG_ANSWERS}
    assert {name for name in solutions if name[:2] not in REWORKED} <= kit
    for exercise in kit:
        names = {p.name.removesuffix(".py") for p in (KIT / exercise).glob("*.py") if not p.name.endswith(hidden.WRONG)}
        assert names == {p.name.removesuffix(hidden.WRONG) for p in (KIT / exercise).glob(f"*{hidden.WRONG}")}, (
            f"{exercise}: every hidden check needs the wrong answer it catches, NAME.wrong.py")
    assert hidden.check_folder(KIT, [ROOT / "solutions", ROOT / "exercises"]) == sorted(kit)


def test_a_malformed_hidden_check_or_one_kept_among_the_students_files_is_refused(tmp_path):
    (tmp_path / "99_x").mkdir()
    (tmp_path / "99_x" / "check.py").write_text("assert True\n")
    with pytest.raises(hidden.HiddenCheckError, match="first line"):
        hidden.check_folder(tmp_path, [])
    (tmp_path / "99_x" / "check.py").write_text("# Hidden check: something\nassert True\n")
    with pytest.raises(hidden.HiddenCheckError, match="points"):
        hidden.check_folder(tmp_path, [])
    (tmp_path / "99_x" / "check.py").write_text("# Hidden check: something\n# points: 2\nassert True\n")
    assert hidden.load(tmp_path, "99_x")[0].metadata["ddp_lessons"] == {"check": True, "points": 2, "hidden": True}
    with pytest.raises(hidden.HiddenCheckError, match="outside"):
        hidden.check_folder(tmp_path, [tmp_path.parent])  # inside the solutions (or exercises, or submissions)


def test_the_kit_does_not_ship_with_the_package():
    import ddp_lessons
    assert not (Path(ddp_lessons.__file__).parent / "instructors").exists()
    assert os.path.commonpath([KIT, Path(ddp_lessons.__file__).parent]) == str(ROOT)
