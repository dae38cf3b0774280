"""A kernel that dies before its first reply is started once more (grading.kernel_start), for make test's
lessons and for the grader's notebooks; anything else still fails."""
import pytest
from nbval import kernel

from ddp_lessons.grading import kernel_start


@pytest.fixture
def starts(monkeypatch):
    """nbval's start_new_kernel replaced by one that fails as `outcomes` say, then wrapped by install()."""
    calls, outcomes = [], []

    def start_new_kernel(*args, **kwargs):
        calls.append(kwargs)
        outcome = outcomes.pop(0)
        if isinstance(outcome, Exception):
            raise outcome
        return outcome

    monkeypatch.setattr(kernel, "start_new_kernel", start_new_kernel)
    kernel_start.install()
    kernel_start.install()  # twice: still one wrapper
    return calls, outcomes


def test_a_kernel_that_died_before_its_first_reply_is_started_once_more(starts):
    calls, outcomes = starts
    outcomes += [RuntimeError(kernel_start.DIED), ("km", "kc")]
    assert kernel.start_new_kernel(startup_timeout=60, cwd="notebooks") == ("km", "kc")
    assert calls == [{"startup_timeout": 60, "cwd": "notebooks"}] * 2


def test_a_second_death_and_any_other_failure_still_raise(starts):
    calls, outcomes = starts
    outcomes += [RuntimeError(kernel_start.DIED), RuntimeError(kernel_start.DIED)]
    with pytest.raises(RuntimeError, match="Kernel died"):
        kernel.start_new_kernel()
    outcomes += [RuntimeError("Kernel didn't respond in 60 seconds")]
    with pytest.raises(RuntimeError, match="didn't respond"):
        kernel.start_new_kernel()
    assert len(calls) == 3
