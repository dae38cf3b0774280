"""`checks.restartable` (exercise 12) catches a snapshot written in place, a resume from epoch 0 and a
missing barrier, by killing rank 0 in the middle of a save under torchrun restarts (slow).

It runs wrong variants of the solution's script under the packaged runner
``scripts/crash_during_snapshot.py``; the solution itself passes in tests/test_grading.py.
"""
import re
from pathlib import Path

import nbformat
import pytest

from ddp_lessons import checks

SOLUTIONS = Path(__file__).parents[1] / "solutions"


def restartable_script(tmp_path, replace):
    """The solution's script with `replace` {old: new} applied, written to tmp_path."""
    notebook = nbformat.read(SOLUTIONS / "12_restartable.ipynb", as_version=4)
    source = next(c.source for c in notebook.cells if c.source.startswith("%%writefile"))
    source = source.split("\n", 1)[1]
    for old, new in replace.items():
        assert old in source, f"the solution no longer contains {old!r}"
        source = source.replace(old, new)
    path = tmp_path / "restartable.py"
    path.write_text(source)
    return path


@pytest.mark.slow
@pytest.mark.parametrize("replace, hint", [
    ({'torch.save(snapshot, f"{path}.tmp")': "torch.save(snapshot, path)",
      'os.replace(f"{path}.tmp", path)': "pass"}, "the snapshot was written in place"),
    ({'return snapshot["epoch"] + 1': "return 0"}, "the restarted job began again at epoch 0"),
    ({"    dist.barrier()  # no rank goes on": "    pass  # no rank goes on"}, "called dist.barrier() 0 times"),
], ids=["in-place", "resume-from-0", "no-barrier"])
def test_restartable_catches_what_breaks_a_restart(tmp_path, monkeypatch, replace, hint):
    monkeypatch.chdir(tmp_path)
    with pytest.raises(AssertionError, match=re.escape(hint)):
        checks.restartable(restartable_script(tmp_path, replace))
