"""Live ranks (ddp_lessons.live): a persistent torchrun group of ipyparallel engines runs cells.

The slow tests share one group (each start is a torchrun launch); the test that breaks the group
runs last in its class and restarts it. Every test that starts processes checks they are gone.
"""
import os
import signal
import subprocess
import sys
import textwrap
import threading
import time

import psutil
import pytest
from IPython.core.error import UsageError

from ddp_lessons import backend
from ddp_lessons.runtime import contract, processes, stacks
from ddp_lessons.launch import LaunchError
from ddp_lessons.live import hangs, magics, watchdog
from ddp_lessons.live.group import LiveError, RankGroup
from ddp_lessons.live.results import CellEnd, CellResult, RankCellError, RankInterrupt, RankOutput, RankState
from ddp_lessons.runtime.hang_report import HangReport


def wait_until_gone(pids, seconds: float = 30.0) -> list[int]:
    """The pids still alive after waiting up to `seconds` for all of them to end."""
    deadline = time.monotonic() + seconds
    while processes.alive(pids) and time.monotonic() < deadline:
        time.sleep(0.2)
    return processes.alive(pids)


# -- fast: no processes ------------------------------------------------------------------------
@pytest.mark.parametrize("text, ranks", [(None, None), ("all", None), ("0", [0]), ("1,0", [0, 1]),
                                         ("0-2", [0, 1, 2]), ("0, 2-3", [0, 2, 3])])
def test_rank_lists_are_parsed_into_sorted_ranks(text, ranks):
    assert magics.parse_ranks(text) == ranks


def test_a_malformed_rank_list_is_a_usage_error():
    with pytest.raises(UsageError, match="0,1"):
        magics.parse_ranks("zero")


def test_output_is_grouped_by_rank_in_rank_order_with_labels(capsys):
    result = CellResult([RankOutput(0, "ok", stdout="a\nb\n", result_text="3"),
                         RankOutput(1, "ok", stdout="c\n", stderr="warn\n")])
    result.show()
    assert capsys.readouterr().out.splitlines() == ["[rank 0] a", "[rank 0] b", "[rank 0] Out: 3",
                                                    "[rank 1] c", "[rank 1] warn"]
    assert result.ok


def test_a_failure_summary_names_the_failing_rank_and_every_ranks_state():
    result = CellResult([RankOutput(0, "running"), RankOutput(1, "error", error="ValueError: boom")],
                        group_stopped=True)
    summary = result.summary()
    assert summary.splitlines()[0] == "rank 1 raised ValueError: boom"
    assert "rank 0: still running" in summary and "%ranks restart" in summary
    assert result.stuck == [0]
    with pytest.raises(RankCellError, match="rank 1 raised"):
        result.raise_for_failure()


def test_an_interrupted_cell_raises_a_keyboard_interrupt():
    result = CellResult([RankOutput(0, "interrupted", error="KeyboardInterrupt")], interrupted=True)
    with pytest.raises(KeyboardInterrupt) as caught:
        result.raise_for_failure()
    assert isinstance(caught.value, RankInterrupt) and "usable" in str(caught.value)


CELL = "import time\nt = torch.ones(1)\nif rank == 0:\n    step(t)\nelse:\n    time.sleep(60)\n"
EARLIER = "def step(t):\n    dist.all_reduce(t)\n"
# Real dumps of a live rank (2026-12-01), cut to the frames that matter
PY_SPY_DUMP = f"""Process 20523: bin/python -u worker.py --cluster-id=ddp-live-26cc2fb3
Thread 20523 (idle): "MainThread"
    all_reduce (/venv/lib/python3.11/site-packages/torch/distributed/distributed_c10d.py:3252)
    _exception_logger.<locals>.wrapper (/venv/lib/python3.11/site-packages/torch/distributed/c10d_logger.py:83)
    step (/tmp/ipykernel_20523/{hangs.cell_name(EARLIER)}.py:2)
    <module> (/tmp/ipykernel_20523/{hangs.cell_name(CELL)}.py:4)
    InteractiveShell.run_code (/venv/lib/python3.11/site-packages/IPython/core/interactiveshell.py:3823)
    IPEngine.start (/venv/lib/python3.11/site-packages/ipyparallel/engine/app.py:995)
Thread 20541 (idle): "ddp-lessons-kernel-watch"
    _exit_when_gone (/course/ddp_lessons/live/watchdog.py:32)
"""
FAULTHANDLER_DUMP = f"""Current thread 0x00007efc6dc146c0 (most recent call first):
  File "/course/ddp_lessons/live/watchdog.py", line 32 in _exit_when_gone
  File "/usr/lib/python3.11/threading.py", line 982 in run

Thread 0x00007efc8d5ccb80 (most recent call first):
  File "/tmp/ipykernel_20524/{hangs.cell_name(CELL)}.py", line 6 in <module>
  File "/venv/lib/python3.11/site-packages/IPython/core/interactiveshell.py", line 3823 in run_code
"""


def test_where_names_the_torch_call_and_the_cell_line_each_rank_waits_at():
    cells = {hangs.cell_name(code): code for code in (EARLIER, CELL)}
    current = hangs.cell_name(CELL)
    assert hangs.where(PY_SPY_DUMP, cells, current) == \
        "in all_reduce() at line 2 of an earlier cell: dist.all_reduce(t) (called at cell line 4: step(t))"
    # faulthandler's "Current thread" got the signal; the cell runs in the thread with run_code
    assert hangs.where(FAULTHANDLER_DUMP, cells, current) == "at cell line 6: time.sleep(60)"


def test_where_outside_any_cell_names_the_innermost_frame():
    dump = 'Thread 1 (idle): "MainThread"\n    all_reduce (/v/site-packages/torch/distributed/c10d.py:9)\n'
    assert hangs.where(dump, {}) == "in all_reduce() at torch/distributed/c10d.py:9 (not in a cell)"


def test_shown_stacks_name_cells_instead_of_their_temporary_files():
    text = hangs.show_cells(PY_SPY_DUMP, hangs.cell_name(CELL))
    assert "<module> (<cell>:4)" in text and f"step (<cell {hangs.cell_name(EARLIER)}>:2)" in text
    assert "ipykernel_" not in text


def test_a_timeout_summary_says_where_each_rank_waits_in_rank_order_and_the_error_carries_the_stacks():
    result = CellResult([RankOutput(0, "running"), RankOutput(1, "interrupted", error="KeyboardInterrupt")],
                        timed_out=True, timeout=2, group_stopped=True,
                        hang=HangReport(stacks={1: "dump 1", 0: "dump 0"}, tool="py-spy", where={
                            1: "at cell line 6: time.sleep(60)", 0: "in all_reduce() at cell line 4: x"}))
    lines = result.summary().splitlines()
    start = next(i for i, line in enumerate(lines) if line.startswith("where each rank was waiting"))
    assert "py-spy" in lines[start] and "%ranks stacks" in lines[start]
    assert lines[start + 1:start + 3] == ["  rank 0 in all_reduce() at cell line 4: x",
                                          "  rank 1 at cell line 6: time.sleep(60)"]
    with pytest.raises(RankCellError) as caught:
        result.raise_for_failure()
    assert caught.value.result.stacks[0] == "dump 0"


@pytest.mark.parametrize("raised, interrupted, note", [(RuntimeError("no ptrace"), False,
                                                        "stack capture failed: RuntimeError('no ptrace')"),
                                                       (KeyboardInterrupt(), True, "")])
def test_a_failing_or_stopped_capture_never_hides_the_timeout(monkeypatch, tmp_path, raised, interrupted, note):
    def capture(pids, run_dir):
        raise raised
    monkeypatch.setattr(stacks, "capture", capture)
    result = CellResult([RankOutput(0, "running")], timed_out=True, timeout=1)
    hangs.take(result, {0: os.getpid()}, tmp_path, {}, None)
    assert (result.interrupted, result.stack_note, result.stacks) == (interrupted, note, {})
    assert result.summary().startswith("the cell ran past its timeout (1 s)")


def test_ranks_stacks_prints_each_ranks_stack_or_why_there_is_none():
    group = RankGroup(2)
    assert magics.stacks_text(group).startswith("no stacks")
    group.last_result = CellResult([RankOutput(0, "running")], timed_out=True, hang=HangReport(
        note="py-spy is not installed; faulthandler got no stack from rank(s) 0"))
    assert magics.stacks_text(group).endswith("faulthandler got no stack from rank(s) 0")
    group.last_result = CellResult([RankOutput(0, "running")], timed_out=True, hang=HangReport(
        stacks={0: "Thread 1\n  frames\n"}, where={0: "at cell line 1: f()"}, tool="faulthandler"))
    assert magics.stacks_text(group) == "--- rank 0 (faulthandler): at cell line 1: f()\nThread 1\n  frames"


def test_rank_states_and_cell_ends_keep_their_words():
    assert [str(state) for state in RankState] == ["ok", "error", "interrupted", "running", "exited"]
    assert [str(end) for end in CellEnd] == ["finished", "failure", "timeout", "interrupt", "ended"]
    assert RankOutput(0, "ok").state == RankState.OK  # a plain word still compares equal


def test_magics_need_a_started_group_first(monkeypatch):
    monkeypatch.setattr(magics, "_group", None)
    with pytest.raises(UsageError, match="%ranks start 2"):
        magics.current()


def test_a_group_refuses_a_backend_the_machine_cannot_run():
    if backend.gpu_count() >= 2:
        pytest.skip("this machine can run 2 nccl ranks")
    with pytest.raises(LaunchError, match="nccl"):
        RankGroup(2, backend="nccl")


def test_the_watchdog_sees_a_dead_or_zombie_kernel_as_gone():
    child = psutil.Popen([sys.executable, "-c", "import time; time.sleep(30)"])
    try:
        assert watchdog.kernel_alive(child)
        child.kill()
        time.sleep(0.2)  # not reaped yet: a zombie
        assert not watchdog.kernel_alive(child)
    finally:
        child.wait()
    assert not watchdog.kernel_alive(child)


# -- slow: one real group --------------------------------------------------------------------
@pytest.fixture(scope="module")
def group(tmp_path_factory):
    live = RankGroup(2, runs_root=tmp_path_factory.mktemp("live-runs"), cell_timeout=60)
    live.start()
    yield live
    pids = live.tree.pids
    live.stop()
    assert wait_until_gone(pids, 10) == []


@pytest.mark.slow
class TestLiveGroup:
    def test_every_rank_joined_the_group_and_engine_ids_are_mapped_to_ranks(self, group):
        assert sorted(group.engines) == [0, 1] and len(set(group.engines.values())) == 2
        assert group.gather("(rank, world_size, dist.get_rank())") == [(0, 2, 0), (1, 2, 1)]
        assert set(group.pids.values()) <= group.tree.pids  # the workers are below torchrun's agent

    def test_a_cell_runs_on_every_rank_and_variables_persist_per_rank(self, group):
        first = group.execute("value = 10 * rank\nprint('set', value)")
        assert first.ok and [out.stdout for out in first.outputs] == ["set 0\n", "set 10\n"]
        again = group.execute("value + 1")
        assert [out.result_text for out in again.outputs] == ["1", "11"]

    def test_a_subset_of_ranks_runs_alone_and_gather_returns_values_in_rank_order(self, group):
        only_one = group.execute("value = -1", ranks=[1])
        assert [out.rank for out in only_one.outputs] == [1]
        assert group.gather("value") == [0, -1]
        assert group.gather("value", ranks=[1]) == [-1]

    def test_a_collective_in_a_cell_all_reduces_across_ranks(self, group):
        group.execute("t = torch.tensor([rank + 1.0])\ndist.all_reduce(t)")
        assert [t.item() for t in group.gather("t")] == [3.0, 3.0]

    def test_an_exception_shows_that_ranks_traceback_and_the_others_finish(self, group):
        result = group.execute("if rank == 1:\n    1 / 0\nprint('rank', rank, 'done')")
        failed, fine = result.outputs[1], result.outputs[0]
        assert failed.state == "error" and failed.error == "ZeroDivisionError: division by zero"
        assert "----> 2     1 / 0" in failed.traceback
        assert fine.state == "ok" and fine.stdout == "rank 0 done\n"
        assert not result.group_stopped and group.running
        assert group.gather("value") == [0, -1]  # still usable, variables kept

    def test_a_per_cell_timeout_interrupts_a_hung_python_cell_on_every_rank(self, group, monkeypatch):
        monkeypatch.setenv(contract.STACK_TOOL_ENV, "faulthandler")  # the fallback where py-spy is absent
        result = group.execute("import time\ntime.sleep(60)", timeout=1)
        assert result.timed_out and [out.state for out in result.outputs] == ["interrupted"] * 2
        assert "time.sleep(60)" in result.outputs[0].traceback  # where each rank was
        assert result.stack_tool == "faulthandler", result.stack_note
        assert result.where == {0: "at cell line 2: time.sleep(60)", 1: "at cell line 2: time.sleep(60)"}
        assert "ipykernel_" not in result.stacks[0] and "<cell>" in result.stacks[0]
        assert group.gather("value") == [0, -1]  # still usable after the timeout

    def test_interrupt_sends_keyboard_interrupt_to_every_rank(self, group):
        timer = threading.Timer(1.0, group.interrupt)
        timer.start()
        result = group.execute("import time\ntime.sleep(60)\nprint('not reached')")
        timer.join()
        assert [out.state for out in result.outputs] == ["interrupted"] * 2
        assert all("not reached" not in out.stdout for out in result.outputs)

    def test_zy_a_timeout_takes_every_ranks_stack_with_py_spy_before_interrupting(self, group, monkeypatch):
        monkeypatch.setenv(contract.STACK_TOOL_ENV, "py-spy")
        old_pids = group.tree.pids
        group.execute(EARLIER)
        result = group.execute(CELL, timeout=2)  # rank 0 all-reduces, rank 1 never does
        assert result.stack_tool == "py-spy", result.stack_note
        assert result.stack_seconds <= stacks.CAPTURE_SECONDS
        assert result.where == {0: "in all_reduce() at line 2 of an earlier cell: dist.all_reduce(t) "
                                   "(called at cell line 4: step(t))",
                                1: "at cell line 6: time.sleep(60)"}
        summary = result.summary()
        assert "rank 0 in all_reduce()" in summary and "rank 1 at cell line 6" in summary
        assert "all_reduce (torch/distributed/distributed_c10d.py:" in result.stacks[0]
        assert group.last_result is result
        assert [out.state for out in result.outputs] == ["running", "interrupted"]
        assert result.group_stopped and wait_until_gone(old_pids, 10) == []
        assert [p for p in psutil.Process().children(recursive=True) if p.name() == "py-spy"] == []
        group.restart()
        assert group.gather("rank") == [0, 1]

    def test_zz_a_rank_stuck_in_a_collective_stops_the_group_and_restart_gives_a_fresh_one(self, group):
        old_pids = group.tree.pids
        result = group.execute("t = torch.ones(1)\nif rank == 1:\n    raise ValueError('skip')\n"
                               "dist.all_reduce(t)")
        assert [out.state for out in result.outputs] == ["running", "error"]
        assert result.group_stopped and not group.running
        assert "rank 1 raised ValueError: skip" in result.summary()
        assert result.where == {0: "in all_reduce() at cell line 4: dist.all_reduce(t)"}  # the stuck rank
        assert wait_until_gone(old_pids, 10) == []
        with pytest.raises(LiveError, match="%ranks start"):
            group.execute("1")
        group.restart()
        assert group.gather("'value' in dir()") == [False, False]


# -- slow: the magics in a real kernel; stop, and a killed kernel, leave nothing behind ------------
class Kernel:
    """A real IPython kernel driven like Jupyter does (execute, interrupt), for the magics."""

    def __init__(self, cwd):
        from jupyter_client import KernelManager

        self.manager = KernelManager(kernel_name="python3")
        self.manager.start_kernel(cwd=str(cwd))
        self.client = self.manager.client()
        self.client.start_channels()
        self.client.wait_for_ready(120)

    @property
    def pid(self) -> int:
        return self.manager.provisioner.process.pid

    def run(self, code: str, timeout: float = 180, interrupt_after: float | None = None) -> tuple[str, str]:
        """(stdout text, error 'Name: value' or '') of one cell."""
        import queue

        msg_id = self.client.execute(code)
        out, error, start = [], "", time.monotonic()
        while time.monotonic() - start < timeout:
            if interrupt_after is not None and time.monotonic() - start > interrupt_after:
                self.manager.interrupt_kernel()  # what Jupyter's stop button does
                interrupt_after = None
            try:
                msg = self.client.get_iopub_msg(timeout=0.2)
            except queue.Empty:
                continue
            if msg["parent_header"].get("msg_id") != msg_id:
                continue
            content = msg["content"]
            if msg["msg_type"] == "stream":
                out.append(content["text"])
            elif msg["msg_type"] == "execute_result":
                out.append(content["data"]["text/plain"] + "\n")
            elif msg["msg_type"] == "error":
                error = f"{content['ename']}: {content['evalue']}"
            elif msg["msg_type"] == "status" and content["execution_state"] == "idle":
                return "".join(out), error
        raise TimeoutError(f"cell did not finish in {timeout} s: {code!r}")

    def close(self):
        self.client.stop_channels()
        if self.manager.is_alive():
            self.manager.shutdown_kernel(now=True)


@pytest.fixture
def kernel(tmp_path):
    started = Kernel(tmp_path)
    try:
        yield started
    finally:
        started.close()


@pytest.mark.slow
def test_magics_run_cells_gather_interrupt_and_stop_leaves_no_process(kernel):
    out, error = kernel.run("%load_ext ddp_lessons.live\n%ranks start 2")
    assert not error and ("[rank 0] gloo" in out or "[rank 0] nccl" in out)
    pids = processes.descendants(kernel.pid)
    assert len(pids) >= 4  # controller, torchrun agent, 2 ranks

    out, error = kernel.run("%%ranks\nx = rank + 1\nprint('x is', x)")
    assert (out, error) == ("[rank 0] x is 1\n[rank 1] x is 2\n", "")
    out, error = kernel.run("%%ranks --ranks 1\nprint('only', rank)")
    assert (out, error) == ("[rank 1] only 1\n", "")
    out, error = kernel.run("values = %ranks_gather x\nvalues")
    assert (out, error) == ("[1, 2]\n", "")

    out, error = kernel.run("%%ranks\nimport time\ntime.sleep(60)", interrupt_after=1.5)
    assert error.startswith("RankInterrupt: the cell was interrupted")
    assert out.count("time.sleep(60)") == 2  # each rank's traceback shows where it was
    out, error = kernel.run("%%ranks\nprint('still', x)")  # the group survived the interrupt
    assert (out, error) == ("[rank 0] still 1\n[rank 1] still 2\n", "")

    out, error = kernel.run("%%ranks --timeout 1\nimport time\ntime.sleep(60)")
    assert error.startswith("RankCellError: the cell ran past its timeout (1 s)")
    assert "rank 0 at cell line 2: time.sleep(60)\n  rank 1 at cell line 2: time.sleep(60)" in error
    out, error = kernel.run("%ranks stacks")
    assert out.startswith("--- rank 0 (") and "\n--- rank 1 (" in out and "/tmp/" not in out

    out, error = kernel.run("%ranks stop")
    assert (out, error) == ("live ranks stopped\n", "")
    assert wait_until_gone(pids, 10) == []
    assert processes.descendants(kernel.pid) == set()


@pytest.mark.slow
def test_a_killed_kernel_leaves_no_process_behind(kernel):
    out, error = kernel.run("%load_ext ddp_lessons.live\n%ranks start 2")
    assert not error
    pids = processes.descendants(kernel.pid)
    assert len(pids) >= 4
    os.kill(kernel.pid, signal.SIGKILL)  # no atexit, no cleanup: only the watchdogs can act
    try:
        assert wait_until_gone(pids, 30) == []
    finally:
        processes.kill_processes([psutil.Process(p) for p in processes.alive(pids)])


@pytest.mark.slow
def test_a_script_that_exits_without_stopping_its_group_leaves_no_process(tmp_path):
    script = tmp_path / "leave.py"
    script.write_text(textwrap.dedent("""
        from ddp_lessons.live.group import RankGroup
        group = RankGroup(2, runs_root="runs").start()
        print(sorted(group.tree.pids))
    """))  # the atexit hook stops the group, as at a kernel's shutdown or restart
    done = subprocess.run([sys.executable, str(script)], cwd=tmp_path, capture_output=True,
                                       text=True, timeout=240)
    assert done.returncode == 0, done.stderr
    pids = eval(done.stdout.strip().splitlines()[-1])
    assert len(pids) >= 4 and wait_until_gone(pids, 10) == []
