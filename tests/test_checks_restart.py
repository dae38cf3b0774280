"""`checks.restartable` (exercise 12) catches what breaks a step-level resume: a snapshot written or
copied in place, a missing barrier, one shuffle for every epoch, a resume at the start of the epoch
or of the job, and batches not skipped, by killing rank 0 while it writes a mid-epoch snapshot under
torchrun restarts (slow).

It runs wrong variants of the solution's script under the packaged runner
``scripts/crash_during_snapshot.py``; the solution itself passes in tests/test_grading.py.
"""
import pytest

from ddp_lessons import checks

SAVE_TMP = 'torch.save(snapshot, f"{path}.tmp")'
RENAME = 'os.replace(f"{path}.tmp", path)'
POSITION = 'return snapshot["epoch"], snapshot["step"]'
SKIP = "return itertools.islice(enumerate(loader), first_step, None)"


EXTENDED = pytest.mark.extended  # a real run each: make test runs two cases, make test-extended every one


@pytest.mark.slow
@pytest.mark.parametrize("replace, hint", [
    pytest.param({SAVE_TMP: "torch.save(snapshot, path)", RENAME: "pass"},
                 "wrote the snapshot path itself (torch.save)", id="in-place"),
    pytest.param({"import itertools\n": "import itertools\nimport shutil\n", RENAME: 'shutil.copy(f"{path}.tmp", path)'},
                 "wrote the snapshot path itself (open(..., 'wb'))", id="copied-into-place", marks=EXTENDED),
    pytest.param({"    dist.barrier()  # no rank goes on": "    pass  # no rank goes on"},
                 "called dist.barrier() 0 times", id="no-barrier", marks=EXTENDED),
    pytest.param({"    loader.sampler.set_epoch(epoch)": "    pass"},
                 "in the same order: call loader.sampler.set_epoch", id="no-set-epoch", marks=EXTENDED),
    pytest.param({POSITION: "return 0, 0"}, "began again at epoch 0, step 0", id="resume-from-0"),
    pytest.param({POSITION: 'return snapshot["epoch"], 0'},
                 "save the step in the snapshot and return (epoch, step)", id="resume-at-epoch-start", marks=EXTENDED),
    pytest.param({SKIP: "return enumerate(loader)"},
                 "trained the epoch from its first batch", id="batches-not-skipped", marks=EXTENDED),
])
def test_restartable_catches_what_breaks_a_step_level_resume(tmp_path, monkeypatch, replace, hint, fails_with,
                                                             solution_script):
    monkeypatch.chdir(tmp_path)
    with fails_with(hint):
        checks.restartable(solution_script("12_restartable", "12_restartable.py", replace))
