"""Fixtures shared by the tests: how a check test expects a hint, the solution scripts it breaks, a
process group of one, and Chromium for the browser tests. Plain helpers: tests/helpers.py, tests/browser.py."""
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


@pytest.fixture
def group_of_one():
    """This process as rank 0 of a 1-rank gloo group (an in-memory store: no port, no torchrun);
    yields that rank's `backend.choose()`. Restores this process's torch threads after."""
    import torch
    import torch.distributed as dist

    from ddp_lessons import backend

    threads = torch.get_num_threads()
    dist.init_process_group("gloo", store=dist.HashStore(), rank=0, world_size=1)
    try:
        yield backend.choose(local_rank=0, local_world_size=1, gpus=0, cores=1, forced="gloo")
    finally:
        dist.destroy_process_group()
        torch.set_num_threads(threads)


@pytest.fixture
def chromium() -> str:
    """Chromium's path (checked before JupyterLab starts, so a skip costs nothing)."""
    from browser import require_chromium

    return require_chromium()
