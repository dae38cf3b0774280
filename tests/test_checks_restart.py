"""`checks.restartable` (exercise 12) catches a snapshot written in place, a resume from epoch 0 and a
missing barrier, by killing rank 0 in the middle of a save under torchrun restarts (slow).

It runs wrong variants of the solution's script under the packaged runner
``scripts/crash_during_snapshot.py``; the solution itself passes in tests/test_grading.py.
"""
import pytest

from ddp_lessons import checks


@pytest.mark.slow
@pytest.mark.parametrize("replace, hint", [
    ({'torch.save(snapshot, f"{path}.tmp")': "torch.save(snapshot, path)",
      'os.replace(f"{path}.tmp", path)': "pass"}, "the snapshot was written in place"),
    ({'return snapshot["epoch"] + 1': "return 0"}, "the restarted job began again at epoch 0"),
    ({"    dist.barrier()  # no rank goes on": "    pass  # no rank goes on"}, "called dist.barrier() 0 times"),
], ids=["in-place", "resume-from-0", "no-barrier"])
def test_restartable_catches_what_breaks_a_restart(tmp_path, monkeypatch, replace, hint, fails_with,
                                                  solution_script):
    monkeypatch.chdir(tmp_path)
    with fails_with(hint):
        checks.restartable(solution_script("12_restartable", "12_restartable.py", replace))
