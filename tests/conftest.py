"""Fixtures shared by the tests: how a check test expects a hint, and the solution scripts it breaks."""
import re
from pathlib import Path

import pytest

from ddp_lessons.diffs import written_script

SOLUTIONS = Path(__file__).resolve().parents[1] / "solutions"


@pytest.fixture
def fails_with():
    """`fails_with(hint)`: a context expecting the check inside it to fail with an AssertionError
    whose message contains `hint` (taken literally)."""
    def expect(hint: str):
        return pytest.raises(AssertionError, match=re.escape(hint))
    return expect


@pytest.fixture
def solution_script(tmp_path):
    """`solution_script(notebook, script, replace)`: the path (in tmp_path) of the script that the
    solution's ``%%writefile scripts/<script>`` cell writes, with each {old: new} of `replace` applied;
    fails when the solution no longer contains an `old`."""
    def write(notebook: str, script: str, replace: dict[str, str] | None = None) -> Path:
        source = written_script(SOLUTIONS / f"{notebook}.ipynb", f"scripts/{script}")
        for old, new in (replace or {}).items():
            assert old in source, f"the solution {notebook} no longer contains {old!r}"
            source = source.replace(old, new)
        path = tmp_path / script
        path.write_text(source)
        return path
    return write
