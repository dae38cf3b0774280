"""Live ranks' group (`live.group.RankGroup`, `live.cells.CellRunner`): a persistent torchrun group of
ipyparallel engines runs cells. The slow tests share one group (each start is a torchrun launch); the
test that breaks the group runs last in its class and restarts it. Every test that starts processes
checks they are gone. The magics: test_live_magics.py; what a cell shows: test_live_results.py.
"""
import subprocess
import sys
import textwrap
import threading

import psutil
import pytest

from ddp_lessons import backend
from ddp_lessons.launch import LaunchError
from ddp_lessons.live import cells as live_cells
from ddp_lessons.live.group import RankGroup
from ddp_lessons.live.results import LiveError
from ddp_lessons.runtime import contract, stacks
from helpers import CELL, EARLIER, wait_until_gone


def test_a_group_refuses_a_backend_the_machine_cannot_run():
    if backend.gpu_count() >= 2:
        pytest.skip("this machine can run 2 nccl ranks")
    with pytest.raises(LaunchError, match="nccl"):
        RankGroup(2, backend="nccl")


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
    @pytest.fixture(autouse=True)
    def patient_interrupts(self, monkeypatch):
        """An interrupted rank's answer (an IPython traceback) took longer than the default 5 s grace
        at load 8 (make test's workers share the cores); a rank stuck in a collective waits it all."""
        monkeypatch.setattr(live_cells, "INTERRUPT_GRACE", 20.0)

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
