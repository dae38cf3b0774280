"""Both ways of installing the course install the same things."""
import re
import tomllib
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
CONDA_TO_PIP = {"pytorch": "torch"}  # conda-forge names torch "pytorch"


def _name(requirement: str) -> str:
    return re.split(r"[<>=!~ \[;]", requirement.strip(), maxsplit=1)[0].lower().replace("_", "-")


def test_environment_yml_and_pyproject_list_the_same_dependencies():
    project = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
    pip_deps = {_name(d) for d in project["dependencies"]}
    conda_deps = set()
    text = (ROOT / "environment.yml").read_text().split("\ndependencies:", 1)[1]
    for line in text.splitlines():
        item = line.strip()
        if item.startswith("- ") and not item.endswith(":") and "-e ." not in item:
            name = CONDA_TO_PIP.get(_name(item[2:]), _name(item[2:]))
            if name not in {"python", "pip"}:
                conda_deps.add(name)
    assert conda_deps == pip_deps


def test_environment_yml_installs_the_package_editable():
    assert "- -e ." in (ROOT / "environment.yml").read_text()


def test_ci_pins_cpu_torch_and_runs_make_test():
    assert "torch==2.13.0" in (ROOT / "constraints-ci.txt").read_text()
    assert "make test" in (ROOT / ".ci" / "run").read_text()
    assert "constraints-ci.txt" in (ROOT / "Makefile").read_text()


def test_package_data_globs_match_the_files_the_package_needs():
    """Each package-data glob still names files (a moved folder would ship without them)."""
    data = tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["setuptools"]["package-data"]
    for pattern in data["ddp_lessons"]:
        assert list((ROOT / "ddp_lessons").glob(pattern)), f"package-data {pattern!r} matches no file"
    shipped = {path for pattern in data["ddp_lessons"] for path in (ROOT / "ddp_lessons").glob(pattern)}
    from ddp_lessons.runtime import contract
    assert contract.HOOKS_DIR / "sitecustomize.py" in shipped  # put on every rank's PYTHONPATH


def test_console_scripts_name_functions_that_exist():
    import importlib

    scripts = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]["scripts"]
    assert set(scripts) == {"ddp-lessons", "ddp-doctor"}
    for target in scripts.values():
        module, _, function = target.partition(":")
        assert callable(getattr(importlib.import_module(module), function)), target


def test_the_sites_tools_are_a_pinned_extra_that_make_test_installs_and_make_lab_does_not():
    project = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
    docs = project["optional-dependencies"]["docs"]
    assert docs and all(re.search(r"==\d", requirement) for requirement in docs), docs
    assert not {_name(d) for d in docs} & {_name(d) for d in project["dependencies"]}  # so not in environment.yml
    makefile = (ROOT / "Makefile").read_text()
    assert re.search(r"^lab: setup$", makefile, re.MULTILINE) and re.search(r"^site: setup-docs$", makefile, re.MULTILINE)
    test_recipe = makefile.split("\ntest:\n", 1)[1].split("\n\n", 1)[0]
    assert "$(MAKE) setup-docs" in test_recipe
