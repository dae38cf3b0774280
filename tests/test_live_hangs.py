"""Where a hung live cell waits (`live.hangs`): the cell line and the torch call, from real dumps."""
import os

import pytest

from ddp_lessons.live import hangs
from ddp_lessons.live.results import CellResult, RankOutput
from ddp_lessons.runtime import stacks
from helpers import CELL, EARLIER

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




def test_where_in_the_learners_own_module_names_its_line_and_the_cell_line_that_led_there(tmp_path):
    (tmp_path / "engine.py").write_text("import torch.distributed as dist\n\n\ndef log(t):\n    dist.all_reduce(t)\n")
    code = "import engine\nt = torch.ones(1)\nengine.log(t)\n"
    current = hangs.cell_name(code)
    dump = (f'Thread 7 (idle): "MainThread"\n'
            f"    all_reduce (/venv/lib/python3.11/site-packages/torch/distributed/distributed_c10d.py:3252)\n"
            f"    log ({tmp_path}/engine.py:5)\n"
            f"    <module> (/tmp/ipykernel_7/{current}.py:3)\n"
            "    InteractiveShell.run_code (/venv/lib/python3.11/site-packages/IPython/core/interactiveshell.py:3823)"
            "\n")
    assert hangs.where(dump, {current: code}, current) == \
        f"in all_reduce() at {tmp_path}/engine.py:5: dist.all_reduce(t) (called at cell line 3: engine.log(t))"
