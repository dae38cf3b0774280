"""The live magics (`live.magics`): rank lists, ``%ranks stacks``, and ``%ranks`` / ``%%ranks`` /
``%ranks_gather`` in a real kernel, which leaves no process behind when stopped or killed."""
import os
import signal
import time

import psutil
import pytest
from IPython.core.error import UsageError

from ddp_lessons.live import magics
from ddp_lessons.live.group import RankGroup
from ddp_lessons.live.results import CellResult, RankOutput
from ddp_lessons.runtime import processes
from ddp_lessons.runtime.hang_report import HangReport
from helpers import wait_until_gone


@pytest.mark.parametrize("text, ranks", [(None, None), ("all", None), ("0", [0]), ("1,0", [0, 1]),
                                         ("0-2", [0, 1, 2]), ("0, 2-3", [0, 2, 3])])
def test_rank_lists_are_parsed_into_sorted_ranks(text, ranks):
    assert magics.parse_ranks(text) == ranks


def test_a_malformed_rank_list_is_a_usage_error():
    with pytest.raises(UsageError, match="0,1"):
        magics.parse_ranks("zero")


def test_ranks_stacks_prints_each_ranks_stack_or_why_there_is_none():
    group = RankGroup(2)
    assert magics.stacks_text(group).startswith("no stacks")
    group.last_result = CellResult([RankOutput(0, "running")], timed_out=True, hang=HangReport(
        note="py-spy is not installed; faulthandler got no stack from rank(s) 0"))
    assert magics.stacks_text(group).endswith("faulthandler got no stack from rank(s) 0")
    group.last_result = CellResult([RankOutput(0, "running")], timed_out=True, hang=HangReport(
        stacks={0: "Thread 1\n  frames\n"}, where={0: "at cell line 1: f()"}, tool="faulthandler"))
    assert magics.stacks_text(group) == "--- rank 0 (faulthandler): at cell line 1: f()\nThread 1\n  frames"


def test_magics_need_a_started_group_first(monkeypatch):
    monkeypatch.setattr(magics, "_group", None)
    with pytest.raises(UsageError, match="%ranks start 2"):
        magics.current()


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


