"""`checks.checkpoint` (exercise 8) catches a missing barrier and saving on every rank, on every run.

It runs wrong variants of the solution's script under torchrun, observed by the packaged script
``scripts/observe_checkpoint_io.py`` (slow).
"""
import re
from pathlib import Path

import nbformat
import pytest

from ddp_lessons import checks

SOLUTIONS = Path(__file__).parents[1] / "solutions"


def fails_with(hint: str):
    return pytest.raises(AssertionError, match=re.escape(hint))


def checkpoint_script(tmp_path, replace):
    """The solution's checkpoint script with `replace` {old: new} applied, written to tmp_path."""
    notebook = nbformat.read(SOLUTIONS / "08_checkpointing.ipynb", as_version=4)
    source = next(c.source for c in notebook.cells if c.source.startswith("%%writefile"))
    source = source.split("\n", 1)[1]
    for old, new in replace.items():
        assert old in source, f"the solution no longer contains {old!r}"
        source = source.replace(old, new)
    path = tmp_path / "checkpoint.py"
    path.write_text(source)
    return path


@pytest.mark.slow
@pytest.mark.parametrize("replace, hint", [
    ({"    dist.barrier()": "    pass"}, "rank 1 called torch.load before rank 0's torch.save had finished"),
    ({"if dist.get_rank() == 0:": "if True:"}, "rank 1 saved too: only rank 0 writes the checkpoint"),
])
def test_checkpointing_catches_every_time(tmp_path, monkeypatch, replace, hint):
    monkeypatch.chdir(tmp_path)
    with fails_with(hint):
        checks.checkpointing(checkpoint_script(tmp_path, replace))
