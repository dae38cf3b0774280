"""The job contract (`runtime.contract`): one rank environment for every launcher, and the rank hooks
spelling the contract's names exactly (they run before the package can be imported)."""
import ast
import os
from pathlib import Path

from ddp_lessons.runtime import contract

HOOKS = contract.HOOKS_DIR / "sitecustomize.py"


def hook_constants() -> dict[str, str]:
    """The names the rank hooks assign at their top level, and their string values."""
    found = {}
    for node in ast.parse(HOOKS.read_text()).body:
        if isinstance(node, ast.Assign):
            targets = node.targets[0].elts if isinstance(node.targets[0], ast.Tuple) else node.targets
            values = node.value.elts if isinstance(node.value, ast.Tuple) else [node.value]
            for target, value in zip(targets, values):
                if isinstance(value, ast.Constant) and isinstance(value.value, str):
                    found[target.id] = value.value
    return found


def test_the_rank_hooks_spell_the_contracts_names():
    constants = hook_constants()
    assert set(constants) == {"RUN_DIR_ENV", "RUN_ID_ENV", "HOOKED_ENV", "EVIDENCE_DIR", "STACK_FILE", "ERROR_FILE",
                               "EXIT_FILE"}
    for name, value in constants.items():
        assert getattr(contract, name) == value, f"sitecustomize.{name} = {value!r}, the contract says " \
                                                 f"{getattr(contract, name)!r}"


def test_the_rank_hooks_use_no_other_literal_of_the_contract():
    """Every DDP_LESSONS_ / TORCHELASTIC_ name and run-dir file in the hooks is one of the pinned constants."""
    pinned = set(hook_constants().values())
    literals = {node.value for node in ast.walk(ast.parse(HOOKS.read_text()))
                if isinstance(node, ast.Constant) and isinstance(node.value, str)}
    stray = {text for text in literals - pinned
             if text.startswith(("DDP_LESSONS_", "TORCHELASTIC_")) or "rank{" in text or text == "diagnose"}
    assert not stray


def test_every_course_environment_name_is_defined_once_in_the_contract():
    package = Path(contract.__file__).resolve().parents[1]
    for path in package.rglob("*.py"):
        if path in (Path(contract.__file__).resolve(), HOOKS.resolve()):
            continue
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.Constant) and isinstance(node.value, str):
                assert not node.value.startswith(("DDP_LESSONS_", "TORCHELASTIC_")), \
                    f"{path.relative_to(package)} spells {node.value!r}: import it from runtime.contract"


def test_a_rank_environment_has_the_hooks_first_the_run_dir_and_the_callers_variables(tmp_path):
    base = {"PATH": "/bin", "PYTHONPATH": "/mine", contract.HOOKED_ENV: "123"}
    env = contract.rank_environment(tmp_path, 3, backend="gloo", backend_reason="why", extra={"X": "1"}, base=base)
    assert env["PYTHONPATH"].split(os.pathsep) == [str(contract.HOOKS_DIR), "/mine"]
    assert env[contract.RUN_DIR_ENV] == str(tmp_path.resolve())
    assert (env["OMP_NUM_THREADS"], env[contract.THREADS_ENV]) == ("3", "3")
    assert env[contract.PREFIX_ENV] == contract.RANK_MARK and env["PYTHONUNBUFFERED"] == "1"
    assert (env[contract.BACKEND_ENV], env[contract.BACKEND_REASON_ENV], env["X"]) == ("gloo", "why", "1")
    assert contract.HOOKED_ENV not in env  # a rank that launches a job: that job's ranks are hooked anew
    assert env["PATH"] == "/bin"


def test_the_callers_variables_cannot_override_the_backend_argument(tmp_path):
    env = contract.rank_environment(tmp_path, 1, backend="nccl", extra={contract.BACKEND_ENV: "gloo"}, base={})
    assert env[contract.BACKEND_ENV] == "nccl"
    assert contract.rank_environment(tmp_path, 1, extra={contract.BACKEND_ENV: "gloo"}, base={})[
        contract.BACKEND_ENV] == "gloo"


def test_the_rank_mark_pattern_finds_the_rank_torchrun_wrote():
    line = contract.RANK_MARK.replace("${rank}", "12") + "hello"
    assert contract.RANK_MARK_PATTERN.split(line) == ["", "12", "hello"]


def test_run_directory_paths(tmp_path):
    assert contract.record_path(tmp_path, "sampler", 1) == tmp_path / "sampler.rank1.json"
    assert sorted(tmp_path.glob(contract.record_glob("sampler"))) == []
    assert contract.evidence_file(tmp_path, contract.ERROR_FILE, 2) == tmp_path / "diagnose" / "rank2.error.json"
    (tmp_path / "diagnose").mkdir()
    (tmp_path / "diagnose" / "rank0.error.json").write_text("{}")
    assert contract.evidence_files(tmp_path, contract.ERROR_FILE) == [tmp_path / "diagnose" / "rank0.error.json"]
    assert contract.torchrun_log_dir(tmp_path, 1) == tmp_path / "torchrun-logs" / "node1"
