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

from ddp_lessons import backend, processes
from ddp_lessons.launch import LaunchError
from ddp_lessons.live import magics, watchdog
from ddp_lessons.live.group import LiveError, RankGroup
from ddp_lessons.live.results import CellResult, RankCellError, RankInterrupt, RankOutput


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

    def test_a_per_cell_timeout_interrupts_a_hung_python_cell_on_every_rank(self, group):
        result = group.execute("import time\ntime.sleep(60)", timeout=1)
        assert result.timed_out and [out.state for out in result.outputs] == ["interrupted"] * 2
        assert "time.sleep(60)" in result.outputs[0].traceback  # where each rank was
        assert group.gather("value") == [0, -1]

    def test_interrupt_sends_keyboard_interrupt_to_every_rank(self, group):
        timer = threading.Timer(1.0, group.interrupt)
        timer.start()
        result = group.execute("import time\ntime.sleep(60)\nprint('not reached')")
        timer.join()
        assert [out.state for out in result.outputs] == ["interrupted"] * 2
        assert all("not reached" not in out.stdout for out in result.outputs)

    def test_zz_a_rank_stuck_in_a_collective_stops_the_group_and_restart_gives_a_fresh_one(self, group):
        old_pids = group.tree.pids
        result = group.execute("t = torch.ones(1)\nif rank == 1:\n    raise ValueError('skip')\n"
                               "dist.all_reduce(t)")
        assert [out.state for out in result.outputs] == ["running", "error"]
        assert result.group_stopped and not group.running
        assert "rank 1 raised ValueError: skip" in result.summary()
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
