"""The launcher: happy path, a failing rank, a hang, and bad inputs."""
import re
import subprocess
import sys
import time
from pathlib import Path

import pytest

from ddp_lessons import launch, records
from ddp_lessons.runtime import contract, processes, stacks

SCRIPTS = Path(__file__).parent / "scripts"
HANG_TIMEOUT = 45  # both ranks must reach their line first: torch's import alone took 20 s at load 14


@pytest.fixture(scope="module")
def hello(tmp_path_factory):
    """One 2-rank run shared by the happy-path tests (each launch costs seconds)."""
    run_dir = tmp_path_factory.mktemp("hello")
    return launch.run_torchrun(SCRIPTS / "hello_ranks.py", nproc=2, args=["--epochs", "3"],
                               run_dir=run_dir, timeout=60)


@pytest.mark.slow
def test_happy_path_returns_each_ranks_output_sorted(hello):
    assert hello.returncode == 0
    assert hello.nproc == 2
    assert sorted(hello.rank_lines) == [0, 1]
    for rank in (0, 1):
        assert f"hello from rank {rank} of 2; sum of ranks = 1" in hello.output(rank)
        assert f"rank {rank} says this on stderr" in hello.output(rank)
    assert hello.outputs == [hello.output(0), hello.output(1)]
    assert hello.wall_seconds > 0


@pytest.mark.slow
def test_command_is_torchrun_standalone_with_kernels_python(hello):
    assert hello.command[:4] == [sys.executable, "-m", "torch.distributed.run", "--standalone"]
    assert hello.command[hello.command.index("--nproc_per_node") + 1] == "2"
    assert not any("master_port" in part or "master-port" in part for part in hello.command)


@pytest.mark.slow
def test_ranks_records_reach_the_run_dir(hello):
    rows = records.load(hello.run_dir, "hello")
    assert [r["rank"] for r in rows] == [0, 1]
    assert all(r["sum"] == 1.0 and r["world"] == 2 for r in rows)
    assert all(r["master_addr"] == "127.0.0.1" for r in rows)
    assert rows[0]["args"] == ["--epochs", "3"]


@pytest.mark.slow
def test_live_stream_is_prefixed_with_rank(hello, capsys):
    launch.run_torchrun(SCRIPTS / "hello_ranks.py", nproc=1, run_dir=hello.run_dir / "one")
    printed = capsys.readouterr().out
    assert "[rank 0] hello from rank 0 of 1; sum of ranks = 0" in printed


@pytest.mark.slow
def test_failing_rank_is_named_with_its_traceback(tmp_path):
    with pytest.raises(launch.RankFailedError) as info:
        launch.run_torchrun(SCRIPTS / "rank1_raises.py", nproc=2, run_dir=tmp_path, timeout=60,
                            echo=False)
    message = str(info.value)
    assert info.value.ranks[0] == 1
    assert message.splitlines()[0].startswith("rank 1 failed: ValueError: rank 1 cannot read shard 7")
    assert "ValueError: rank 1 cannot read shard 7" in message
    assert "Traceback" in message
    assert "ChildFailedError" not in message


@pytest.mark.slow
@pytest.mark.parametrize("tool", ["auto", "faulthandler"])
def test_hang_says_where_each_rank_waits_then_kills_every_process(tmp_path, monkeypatch, tool):
    """Rank 0 sleeps, rank 1 waits for it in a barrier in a module of the project: the timeout names the
    script's line of rank 0, and the module's line of rank 1 with the script's line that led there."""
    monkeypatch.setenv(contract.STACK_TOOL_ENV, tool)
    expected_tool = stacks.check().tool if tool == "auto" else tool  # py-spy where ptrace works
    start = time.perf_counter()
    with pytest.raises(launch.RunTimeoutError) as info:
        launch.run_torchrun(SCRIPTS / "rank0_sleeps_rank1_barrier.py", nproc=2, run_dir=tmp_path,
                            timeout=HANG_TIMEOUT, echo=False)
    elapsed = time.perf_counter() - start
    result, message = info.value.result, str(info.value)
    script = "tests/scripts/rank0_sleeps_rank1_barrier.py"
    assert result.stack_tool == expected_tool and f"taken with {expected_tool}" in message
    assert result.where == {0: f"at {script}:10: time.sleep(3600)",  # rank 1 waits in the learner's own module:
                            1: f"in barrier() at tests/scripts/engine.py:11: dist.barrier() (called from {script}:12)"}
    assert f"rank 0: {result.where[0]}" in message and f"rank 1: {result.where[1]}" in message
    assert "distributed_c10d.py" in result.stacks[1]  # the full stack, down into torch
    assert f"did not finish within {HANG_TIMEOUT} s" in message
    assert "collective" in message and "TORCH_DISTRIBUTED_DEBUG" in message
    assert "rank 1 started" in message  # last output of each rank is shown
    assert result.stack_seconds <= stacks.CAPTURE_SECONDS  # the capture adds at most ~5 s
    assert elapsed < HANG_TIMEOUT + stacks.CAPTURE_SECONDS + 10  # then the kill, as before
    pids = result.pids
    assert len(pids) >= 3  # torchrun + 2 ranks were seen
    assert processes.alive(pids) == []


@pytest.mark.slow
def test_a_hang_says_which_rank_had_already_left_and_when(tmp_path):
    """3 ranks; the last has no batches and returns before joining the group; the others wait for it."""
    with pytest.raises(launch.RunTimeoutError) as info:
        launch.run_torchrun(SCRIPTS / "leaves_early.py", nproc=3, args=["return"], run_dir=tmp_path, timeout=25,
                            echo=False)  # long enough for rank 2 to import torch and leave on a loaded machine
    result, message = info.value.result, str(info.value)
    left = result.hang.exited[2]
    assert re.fullmatch(r"had already exited, \d+\.\d s after the job started \(its Python ended without an "
                        r"error\)", left), left
    assert f"rank 2: {left}" in message and "rank 2 had already exited while the others waited" in message
    assert "no batches for this rank, nothing to do" in message  # its last output
    for rank in (0, 1):  # in the project's own module, called from the script
        assert result.where[rank] == ("in init_process_group() at tests/scripts/engine.py:7: dist.init_process_group("
                                      "backend=\"gloo\") (called from tests/scripts/leaves_early.py:24)"), result.where
    assert processes.alive(result.pids) == []


@pytest.mark.slow
def test_keyboard_interrupt_kills_the_tree(tmp_path):
    """Jupyter's stop button raises KeyboardInterrupt in the kernel: no rank may survive it. The interrupt comes
    once torchrun and both ranks run (a fixed delay hit the job before its ranks existed on a loaded machine)."""
    code = f"""
import os, signal, threading, time
import psutil
from ddp_lessons import launch

def interrupt_once_the_ranks_run():
    while len(psutil.Process().children(recursive=True)) < 3:  # the agent and both ranks
        time.sleep(0.2)
    time.sleep(1)
    os.kill(os.getpid(), signal.SIGINT)

threading.Thread(target=interrupt_once_the_ranks_run, daemon=True).start()
try:
    launch.run_torchrun({str(SCRIPTS / 'hang_in_allreduce.py')!r}, nproc=2, run_dir={str(tmp_path)!r},
                        timeout=120, echo=False)
except KeyboardInterrupt:
    kids = psutil.Process().children(recursive=True)
    print("INTERRUPTED", len([k for k in kids if k.status() != psutil.STATUS_ZOMBIE]))
"""
    kernel = subprocess.Popen([sys.executable, "-c", code], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    tree = processes.Tree()
    try:
        deadline = time.monotonic() + 90
        while kernel.poll() is None and time.monotonic() < deadline:
            tree.scan(kernel.pid)  # whatever it started, to be stopped below if the test fails
            time.sleep(0.2)
        out, err = kernel.communicate(timeout=5)
        survivors = processes.alive(tree.pids - {kernel.pid})  # looked at before the cleanup below kills them
    finally:
        processes.stop([kernel], tree)
    assert "INTERRUPTED 0" in out, out + err
    assert survivors == [], "a process of the job survived the interrupt"


@pytest.mark.parametrize("nproc", [0, -1, 1.5, "2"])
def test_bad_nproc_is_refused(nproc):
    with pytest.raises(launch.LaunchError, match="nproc"):
        launch.validate(SCRIPTS / "hello_ranks.py", nproc)


def test_missing_script_is_refused(tmp_path):
    with pytest.raises(launch.LaunchError, match="not found"):
        launch.run_torchrun(tmp_path / "nope.py", nproc=2)


def test_an_exercise_script_with_its_stub_is_refused_before_any_process_starts(tmp_path, monkeypatch):
    """An untouched exercise script: each rank would only reach NotImplementedError, seconds later."""
    script = tmp_path / "02_setup.py"
    script.write_text("import torch\n\n\ndef setup():\n    # YOUR CODE HERE\n    raise NotImplementedError()\n")
    monkeypatch.setattr(launch.processes, "Job", lambda: pytest.fail("a process was started"))
    with pytest.raises(launch.LaunchError, match=r"02_setup.py still raises NotImplementedError where it says "
                                                 r"`# YOUR CODE HERE`.*nothing was launched"):
        launch.run_torchrun(script, nproc=2)
    script.write_text("import torch\n\n\ndef setup():\n    # YOUR CODE HERE: done\n    return 1\n")
    launch.validate(script, 2)  # written: the comment alone is no stub


def test_nccl_without_gpus_is_refused():
    with pytest.raises(launch.LaunchError, match="no(ne)? .*GPU|has none"):
        launch.validate(SCRIPTS / "hello_ranks.py", 2, backend="nccl", gpu_count=0)


def test_nccl_with_more_ranks_than_gpus_explains_gloo():
    with pytest.raises(launch.LaunchError, match="gloo") as info:
        launch.validate(SCRIPTS / "hello_ranks.py", 4, backend="nccl", gpu_count=2)
    assert "4 ranks but 2 GPU" in str(info.value)


def test_unknown_backend_is_refused():
    with pytest.raises(launch.LaunchError, match="unknown backend"):
        launch.validate(SCRIPTS / "hello_ranks.py", 2, backend="mpi")


def test_command_line_matches_what_a_student_would_type():
    cmd = launch.torchrun_command("train.py", 4, ["--lr", "0.1"])
    assert cmd == [sys.executable, "-m", "torch.distributed.run", "--standalone",
                   "--local-addr", "127.0.0.1", "--nproc_per_node", "4", "--tee", "3",
                   "train.py", "--lr", "0.1"]


@pytest.mark.slow
def test_simulated_nodes_number_ranks_node_by_node(tmp_path):
    result = launch.run_torchrun(SCRIPTS / "where_am_i.py", nproc=1, nnodes=2, run_dir=tmp_path,
                                 timeout=90, echo=False)
    rows = records.load(tmp_path, "identity")
    assert [(r["RANK"], r["LOCAL_RANK"], r["WORLD_SIZE"], r["LOCAL_WORLD_SIZE"]) for r in rows] == \
        [(0, 0, 2, 1), (1, 0, 2, 1)]
    assert sorted(r["GROUP_RANK"] for r in rows) == [0, 1]
    assert all(r["master_addr"] == "127.0.0.1" for r in rows)
    assert result.world_size == 2 and sorted(result.rank_lines) == [0, 1]
    assert "--rdzv-endpoint" in result.command and "--standalone" not in result.command
    endpoint = result.command[result.command.index("--rdzv-endpoint") + 1]
    assert endpoint.startswith("127.0.0.1:") and not endpoint.endswith(":0")


@pytest.mark.parametrize("gpus, expected", [
    (1, ["", ""]),  # fewer GPUs than nodes: no node sees one (none is shared between nodes)
    (2, ["0", "1"]),  # one each: the node's 2 ranks share it, as on a 1-GPU machine
    (3, ["0", "1"]),  # the same share for every node; GPU 2 stays unused
    (4, ["0,1", "2,3"]),  # one GPU per rank
    (6, ["0,1", "2,3"]),  # never more than nproc per node
])
def test_simulated_nodes_see_disjoint_gpu_sets_as_real_nodes_do(monkeypatch, gpus, expected):
    monkeypatch.delenv("CUDA_VISIBLE_DEVICES", raising=False)
    monkeypatch.setattr(launch._backend, "gpu_count", lambda: gpus)
    assert launch._split_gpus(nproc=2, nnodes=2) == expected
    assert launch._split_gpus(nproc=2, nnodes=1) is None  # one node sees every GPU


def test_simulated_nodes_split_the_gpus_cuda_visible_devices_names(monkeypatch):
    monkeypatch.setenv("CUDA_VISIBLE_DEVICES", "3,5")
    assert launch._split_gpus(nproc=1, nnodes=2) == ["3", "5"]
    assert launch._split_gpus(nproc=2, nnodes=2) == ["3", "5"]


def test_print_sorted_groups_lines_by_rank_whatever_order_they_arrived_in(capsys):
    result = launch.RunResult(command=[], nproc=2, run_dir=Path("."),
                              rank_lines={1: ["b1", "b2"], 0: ["a1"]})
    result.print_sorted()
    assert capsys.readouterr().out.splitlines() == ["[rank 0] a1", "[rank 1] b1", "[rank 1] b2"]


def test_max_restarts_is_passed_to_torchrun_only_when_asked():
    assert "--max-restarts" not in launch.torchrun_command("train.py", 2)
    cmd = launch.torchrun_command("train.py", 2, max_restarts=3)
    assert cmd[cmd.index("--max-restarts") + 1] == "3" and cmd.index("--max-restarts") < cmd.index("train.py")


@pytest.mark.slow
def test_a_rank_that_fails_once_is_restarted_and_the_result_counts_the_restart(tmp_path):
    result = launch.run_torchrun(SCRIPTS / "rank1_fails_once.py", nproc=2, run_dir=tmp_path,
                                 timeout=90, echo=False, max_restarts=2)
    assert result.returncode == 0 and result.restarts == 1
    rows = records.load(tmp_path, "attempt")
    assert [row["restart_count"] for row in rows] == [1, 1]
    assert all(row["separate_store"] == "1" for row in rows)  # restarts need a fresh store per attempt
    assert "rank 1 fails in the first attempt" in result.output(1)


@pytest.mark.slow
def test_without_max_restarts_the_same_failure_ends_the_run(tmp_path):
    with pytest.raises(launch.RankFailedError) as info:
        launch.run_torchrun(SCRIPTS / "rank1_fails_once.py", nproc=2, run_dir=tmp_path,
                            timeout=90, echo=False)
    assert info.value.ranks[0] == 1 and info.value.result.restarts == 0
