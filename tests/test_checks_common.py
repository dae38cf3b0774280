"""`checks.common.written`: a check that launches a student's script refuses the exercise's untouched
stub at once, in the notebook's language, instead of launching torchrun to meet NotImplementedError."""
import nbformat
import pytest

from ddp_lessons import checks, launch
from ddp_lessons.checks import common
from ddp_lessons.i18n import tr
from helpers import ROOT


def script_cell(folder: str, notebook: str, script: str) -> str:
    """The body of the %%writefile cell that writes `script` in `folder/notebook`."""
    for cell in nbformat.read(ROOT / folder / notebook, as_version=4).cells:
        if cell.cell_type == "code" and cell.source.startswith(f"%%writefile {script}"):
            return cell.source.split("\n", 1)[1]
    raise LookupError(script)


# every check that launches the student's script, with the exercise that writes it
LAUNCHING = [
    ("08_checkpointing.ipynb", "scripts/08_checkpoint.py", lambda path: checks.checkpointing(path)),
    ("11_distributed_metrics.ipynb", "scripts/11_evaluate.py", lambda path: checks.real_distributed_accuracy(path)),
    ("12_restartable.ipynb", "scripts/12_restartable.py", lambda path: checks.restartable(path)),
    ("13_mixed_precision.ipynb", "scripts/13_amp_step.py", lambda path: checks.amp_run(str(path), "bf16")),
    ("14_accelerate.ipynb", "scripts/14_port.py", lambda path: checks.accelerate_port_run(path.parent / "14_ddp.py",
                                                                                         path)),
    ("16_ring_allreduce.ipynb", "scripts/16_halving_doubling.py", lambda path: checks.halving_doubling(path)),
]


@pytest.mark.parametrize("notebook, script, check", LAUNCHING, ids=[row[0][:2] for row in LAUNCHING])
def test_an_untouched_script_is_refused_before_any_launch_and_the_solution_is_not(tmp_path, monkeypatch, notebook,
                                                                                   script, check):
    def no_launch(*args, **kwargs):
        raise AssertionError("the check launched torchrun")

    monkeypatch.setattr(launch, "run_torchrun", no_launch)
    path = tmp_path / script.split("/")[-1]
    path.write_text(script_cell("exercises", notebook, script))
    with pytest.raises(AssertionError, match=rf"^{path.name} still raises NotImplementedError where it says "
                                            r"`# YOUR CODE HERE`: .* \(nothing was launched\)$"):
        check(path)
    path.write_text(script_cell("solutions", notebook, script))
    common.written(path)  # the solution has no stub left


def test_the_refusal_reads_in_spanish_in_a_spanish_notebook(tmp_path, monkeypatch):
    path = tmp_path / "16_halving_doubling.py"
    path.write_text(script_cell("exercises", "16_ring_allreduce.ipynb", "scripts/16_halving_doubling.py"))
    monkeypatch.setenv("DDP_LESSONS_LANG", "es")
    with pytest.raises(AssertionError) as info:
        common.written(path)
    assert str(info.value).startswith("16_halving_doubling.py todavía lanza NotImplementedError donde dice `# YOUR CODE HERE`")
    assert str(info.value) == tr("{name} still raises NotImplementedError where it says `# YOUR CODE HERE`: write "
                                 "your code there, run its %%writefile cell again, then this check (nothing was "
                                 "launched)", name="16_halving_doubling.py", lang="es")


def test_a_stub_string_elsewhere_is_not_a_stub(tmp_path):
    path = tmp_path / "notes.py"
    path.write_text('HINT = "replace raise NotImplementedError() with your code"\n\n\ndef f():\n    return 1\n')
    common.written(path)
    common.written(tmp_path / "missing.py")  # a missing file is the launch's to report, as before


# -- failing with a hint: the symptom first, the fix when the same hint is given again ---------------------

@pytest.fixture
def fresh_kernel(monkeypatch):
    """No hint given yet, as in a fresh kernel."""
    monkeypatch.setattr(common, "_given", common.Counter())


@common.recorded("90")
def loads_after_save(order: list[str]) -> str:
    """A toy check: rank 1 must load after rank 0 saved."""
    common.expect(order.index("save") < order.index("load"), "early-load",
                  tr("rank 1 loaded before rank 0 finished saving"), tr("put dist.barrier() between them"))
    common.expect(len(order) == 2, "extra", f"{len(order)} calls", "save once, load once")
    return "fine"


def test_a_hint_names_the_symptom_first_and_adds_the_fix_the_second_time(fresh_kernel):
    with pytest.raises(common.CheckFailed) as first:
        loads_after_save(["load", "save"])
    assert str(first.value) == ("rank 1 loaded before rank 0 finished saving\n"
                                "(Fails again the same way? Then this check also says how to fix it.)")
    assert (first.value.hint, first.value.fix_shown) == ("early-load", False)
    with pytest.raises(common.CheckFailed) as second:
        loads_after_save(["load", "save"])
    assert str(second.value) == ("rank 1 loaded before rank 0 finished saving\n"
                                 "How to fix it: put dist.barrier() between them")
    assert isinstance(second.value, AssertionError) and second.value.fix_shown


def test_another_hint_of_the_same_check_starts_with_its_symptom(fresh_kernel):
    with pytest.raises(common.CheckFailed):
        loads_after_save(["load", "save"])
    with pytest.raises(common.CheckFailed) as other:
        loads_after_save(["save", "load", "load"])
    assert (other.value.hint, other.value.fix_shown) == ("extra", False)
    assert loads_after_save(["save", "load"]) == "fine" and loads_after_save.exercise == "90"


def test_the_same_hint_id_in_two_checks_escalates_apart(fresh_kernel):
    @common.recorded("90")
    def other_check():
        common.fail("early-load", "symptom", "fix")

    with pytest.raises(common.CheckFailed):
        loads_after_save(["load", "save"])
    with pytest.raises(common.CheckFailed) as other:
        other_check()
    assert not other.value.fix_shown


def test_a_check_inside_a_check_is_part_of_its_run(fresh_kernel):
    @common.recorded("90")
    def outer():
        with pytest.raises(common.CheckFailed):
            loads_after_save(["load", "save"])
        return common._running.get().check

    assert outer() == "outer" and common._running.get() is None


def test_hints_escalate_in_spanish(fresh_kernel, monkeypatch):
    monkeypatch.setenv("DDP_LESSONS_LANG", "es")
    for attempt in range(2):
        with pytest.raises(common.CheckFailed) as failed:
            common.fail("h", "síntoma", "arreglo")
    assert str(failed.value) == "síntoma\nCómo corregirlo: arreglo"
