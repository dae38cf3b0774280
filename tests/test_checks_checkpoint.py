"""`checks.checkpoint` (exercise 8) catches a missing barrier and saving on every rank, on every run.

It runs wrong variants of the solution's script under torchrun, observed by the packaged script
``scripts/observe_checkpoint_io.py`` (slow).
"""
import pytest

from ddp_lessons import checks


@pytest.mark.slow
@pytest.mark.parametrize("replace, hint", [
    ({"    dist.barrier()": "    pass"}, "rank 1 called torch.load before rank 0's torch.save had finished"),
    ({"if dist.get_rank() == 0:": "if True:"}, "rank 1 saved too: only rank 0 writes the checkpoint"),
])
def test_checkpointing_catches_every_time(tmp_path, monkeypatch, replace, hint, fails_with, solution_script):
    monkeypatch.chdir(tmp_path)
    with fails_with(hint):
        checks.checkpointing(solution_script("08_checkpointing", "08_checkpoint.py", replace))
