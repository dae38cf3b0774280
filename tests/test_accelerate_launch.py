"""`accelerate launch` from a cell: the command, a 2-process run, a failure and a hang that is killed."""
import sys
from pathlib import Path

import pytest

from ddp_lessons import accelerate_launch
from ddp_lessons.runtime import processes

SCRIPT = Path(__file__).parent / "scripts" / "accelerate_ranks.py"


def test_command_runs_accelerates_torchrun_launcher_with_this_python_and_a_free_port():
    command = accelerate_launch.accelerate_command("train.py", 2, ["--epochs", "3"], mixed_precision="bf16")
    assert command[:4] == [sys.executable, "-m", "accelerate.commands.launch", "--multi_gpu"]
    flags = dict(zip(command[4:-3:2], command[5:-3:2]))
    assert flags["--num_processes"] == "2" and flags["--mixed_precision"] == "bf16"
    assert flags["--main_process_port"] == "0" and flags["--main_process_ip"] == "127.0.0.1"
    assert command[-3:] == ["train.py", "--epochs", "3"]


@pytest.mark.slow
def test_two_processes_join_one_gloo_group_and_their_lines_come_back_per_rank():
    run = accelerate_launch.run_accelerate(SCRIPT, 2, echo=False, timeout=120)
    assert run.returncode == 0
    for rank in (0, 1):
        assert f"[rank {rank}] process {rank} of 2: DistributedType.MULTI_CPU" in run.lines
    assert not processes.alive(run.pids)


@pytest.mark.slow
def test_a_failing_rank_raises_with_its_error_in_the_message():
    with pytest.raises(accelerate_launch.AccelerateFailedError, match="rank 1: ValueError: rank 1 was told to fail"):
        accelerate_launch.run_accelerate(SCRIPT, 2, ["fail"], echo=False, timeout=120)


@pytest.mark.slow
def test_a_hang_is_killed_at_the_timeout_with_every_process():
    with pytest.raises(accelerate_launch.AccelerateTimeoutError, match="did not finish within 20 s") as caught:
        accelerate_launch.run_accelerate(SCRIPT, 2, ["hang"], echo=False, timeout=20)
    assert len(caught.value.run.pids) >= 3  # the agent and both workers
    assert not processes.alive(caught.value.run.pids)


def test_first_error_names_the_rank_and_its_exception_line():
    run = accelerate_launch.AccelerateRun(command=[], lines=[
        "[rank 0] process 0 of 2", "[rank 1] [rank1]: Traceback (most recent call last):",
        "[rank 1] [rank1]: ValueError: rank 1 was told to fail", "torch...ChildFailedError:"])
    assert accelerate_launch.first_error(run) == ": rank 1: ValueError: rank 1 was told to fail"
    assert accelerate_launch.first_error(accelerate_launch.AccelerateRun(command=[], lines=["ok"])) == ""


def test_a_timeout_and_a_failure_are_distinct_errors_as_in_the_launcher():
    assert issubclass(accelerate_launch.AccelerateTimeoutError, TimeoutError)
    assert not issubclass(accelerate_launch.AccelerateFailedError, TimeoutError)
    for error in (accelerate_launch.AccelerateTimeoutError, accelerate_launch.AccelerateFailedError):
        assert issubclass(error, accelerate_launch.AccelerateLaunchError)  # what lesson 14 may catch


def test_a_message_learners_meet_is_explained_in_the_failure(monkeypatch):
    """No launch: the failure's text for a run whose rank printed the tutorial's nccl error."""
    monkeypatch.setenv("DDP_LESSONS_LANG", "en")
    run = accelerate_launch.AccelerateRun(command=[], returncode=1, lines=[
        "[rank 1] RuntimeError: Distributed package doesn't have NCCL built in"])
    first, explained, _ = accelerate_launch.failure_message(run).split("; ", 2)
    assert first == "accelerate launch exited with code 1: rank 1: RuntimeError: Distributed package doesn't have " \
                    "NCCL built in"
    assert explained.startswith("what it means: the script asks for the nccl backend") and "(lesson 2)" in explained
