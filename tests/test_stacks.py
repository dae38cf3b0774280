"""Where is each rank stuck? Stack dumps parsed and summarised, and captured from live processes."""
import json
import os
import subprocess
import sys
import time
from pathlib import Path

import pytest

from ddp_lessons.runtime import contract, processes, stacks

DATA = Path(__file__).parent / "data" / "stacks"  # dumps of scripts/10_uneven.py, hung (real, 2026-12-01)


@pytest.mark.parametrize("tool", ["py-spy", "faulthandler"])
def test_where_names_the_scripts_line_and_the_torch_call_it_waits_in(tool):
    rank0 = (DATA / f"{tool}_uneven_rank0.txt").read_text()
    rank1 = (DATA / f"{tool}_uneven_rank1.txt").read_text()
    assert "Tensor.backward" in rank0 or tool == "faulthandler"  # py-spy's name; one line for both
    assert stacks.where(rank0, "scripts/10_uneven.py", cwd=DATA) == \
        "in backward() at scripts/10_uneven.py:11: loss.backward()"
    assert stacks.where(rank1, "scripts/10_uneven.py", cwd=DATA) == \
        "in barrier() at scripts/10_uneven.py:13: dist.barrier()"  # not its logging wrapper


def test_where_reads_the_main_thread_not_the_thread_that_got_the_signal():
    dump = (DATA / "faulthandler_two_threads.txt").read_text()
    course = Path("/home/student/course/notebooks")
    assert stacks.where(dump, "scripts/10_uneven.py", cwd=course) == \
        "in barrier() at scripts/10_uneven.py:13"  # (no source: the file is not on this machine)


def test_where_without_a_torch_call_shows_only_the_line(tmp_path):
    script = tmp_path / "scripts" / "sleepy.py"
    script.parent.mkdir()
    script.write_text("import time\n\ntime.sleep(60)\n")
    dump = f'Thread 0x1 (most recent call first):\n  File "{script}", line 3 in <module>\n'
    assert stacks.where(dump, "scripts/sleepy.py", cwd=tmp_path) == \
        "at scripts/sleepy.py:3: time.sleep(60)"


@pytest.mark.parametrize("tool", ["py-spy", "faulthandler"])
def test_where_in_the_learners_own_module_names_its_line_and_the_scripts_line_that_led_there(tmp_path, tool):
    (tmp_path / "engine.py").write_text("import torch.distributed as dist\n\n\ndef log(t):\n    dist.all_reduce(t)\n")
    (tmp_path / "train.py").write_text("import engine\n" + "\n" * 8 + "print(engine.log(loss))\n")
    torch_file = "/venv/lib/python3.11/site-packages/torch/distributed/distributed_c10d.py"
    frames = [("all_reduce", torch_file, 3000), ("log", tmp_path / "engine.py", 5),
              ("<module>", tmp_path / "train.py", 10)]
    if tool == "py-spy":
        dump = 'Thread 7 (idle): "MainThread"\n' + "".join(f"    {f} ({p}:{n})\n" for f, p, n in frames)
    else:
        dump = "Current thread 0x1 (most recent call first):\n" + "".join(
            f'  File "{p}", line {n} in {f}\n' for f, p, n in frames)
    assert stacks.where(dump, "train.py", cwd=tmp_path) == \
        "in all_reduce() at engine.py:5: dist.all_reduce(t) (called from train.py:10)"


def test_where_outside_the_script_names_the_innermost_frame():
    dump = 'Thread 1 (idle): "MainThread"\n    rendezvous (torch/distributed/rendezvous.py:99)\n'
    assert stacks.where(dump, "scripts/x.py", cwd="/course").startswith("in rendezvous() at ")


def test_parse_reads_both_tools_formats():
    threads = stacks.parse((DATA / "py-spy_uneven_rank1.txt").read_text())
    assert [f.func for f in threads[0][1]] == ["barrier", "_exception_logger.<locals>.wrapper",
                                               "<module>"]
    threads = stacks.parse((DATA / "faulthandler_two_threads.txt").read_text())
    assert [len(frames) for _, frames in threads] == [4, 3]
    assert threads[1][1][0] == stacks.Frame("barrier", "/opt/venv/lib/python3.11/site-packages/"
                                            "torch/distributed/distributed_c10d.py", 5356)


def test_py_spy_binary_is_found_next_to_this_python():
    path = stacks.find_py_spy()
    assert path is not None and Path(path).name == "py-spy"


def test_no_rank_to_capture_says_why(tmp_path):
    got = stacks.capture({}, tmp_path)
    assert got.tool is None and got.stacks == {} and "no live rank" in got.note


SLEEPY = "at sleepy.py:3: print('ready', flush=True); time.sleep(60)  # one line: no race"


@pytest.fixture
def sleeping_ranks(tmp_path):
    """Two Python processes started like launched ranks (with the launcher's hooks), asleep."""
    script = tmp_path / "sleepy.py"
    script.write_text("import time\n\nprint('ready', flush=True); time.sleep(60)  # one line: no race\n")
    children = {}
    for rank in (0, 1):
        env = {**os.environ, "RANK": str(rank), "TORCHELASTIC_RUN_ID": "t",
               "DDP_LESSONS_RUN_DIR": str(tmp_path), "PYTHONPATH": str(contract.HOOKS_DIR)}
        env.pop("DDP_LESSONS_HOOKED", None)
        children[rank] = subprocess.Popen([sys.executable, str(script)], env=env,
                                          stdout=subprocess.PIPE, text=True)
    for child in children.values():
        assert child.stdout.readline().strip() == "ready"
    yield {rank: child.pid for rank, child in children.items()}, script
    for child in children.values():
        child.kill()
        child.wait()
        child.stdout.close()
    assert processes.alive(child.pid for child in children.values()) == []


@pytest.mark.parametrize("tool", ["py-spy", "faulthandler"])
def test_capture_takes_every_ranks_stack_in_parallel_within_the_budget(sleeping_ranks, tmp_path, tool):
    pids, script = sleeping_ranks
    got = stacks.capture(pids, tmp_path, tool=tool)
    assert got.tool == tool, got.note
    assert sorted(got.stacks) == [0, 1]
    assert got.seconds <= stacks.CAPTURE_SECONDS
    for text in got.stacks.values():
        assert stacks.where(text, script, cwd=tmp_path) == SLEEPY


def test_refused_py_spy_falls_back_to_faulthandler(sleeping_ranks, tmp_path, monkeypatch):
    """What a container without ptrace permission does to py-spy, played by a stand-in binary."""
    fake = tmp_path / "py-spy"
    fake.write_text("#!/bin/sh\necho 'Error: Operation not permitted (os error 1)' >&2\nexit 1\n")
    fake.chmod(0o755)
    monkeypatch.setattr(stacks, "find_py_spy", lambda: str(fake))
    pids, script = sleeping_ranks
    got = stacks.capture(pids, tmp_path)
    assert got.tool == "faulthandler"
    assert "Operation not permitted" in got.note
    assert stacks.where(got.stacks[1], script, cwd=tmp_path) == SLEEPY


def test_check_reports_a_working_tool_on_this_machine():
    got = stacks.check()
    assert got.tool in ("py-spy", "faulthandler") and got.stacks[0]


def test_rank_hook_records_an_uncaught_exception_and_runs_the_sitecustomize_it_hides(tmp_path):
    other = tmp_path / "other"
    other.mkdir()
    (other / "sitecustomize.py").write_text("print('the hidden sitecustomize ran')\n")
    env = {**os.environ, "RANK": "3", "TORCHELASTIC_RUN_ID": "t", "DDP_LESSONS_RUN_DIR": str(tmp_path),
           "PYTHONPATH": os.pathsep.join([str(contract.HOOKS_DIR), str(other)])}
    env.pop("DDP_LESSONS_HOOKED", None)
    start = time.time()
    out = subprocess.run([sys.executable, "-c", "raise ValueError('shard 7 is missing')"], env=env,
                         capture_output=True, text=True, timeout=60)
    assert out.returncode == 1
    assert "the hidden sitecustomize ran" in out.stdout
    assert "ValueError: shard 7 is missing" in out.stderr  # the usual traceback still prints
    record = json.loads((tmp_path / "diagnose" / "rank3.error.json").read_text())
    assert (record["rank"], record["type"], record["message"]) == (3, "ValueError", "shard 7 is missing")
    assert start <= record["time"] <= time.time()
    left = json.loads((tmp_path / "diagnose" / "rank3.exit.json").read_text())  # and when its Python exited
    assert left["rank"] == 3 and record["time"] <= left["time"] <= time.time()


def test_rank_hook_does_nothing_outside_a_launched_rank(tmp_path):
    env = {k: v for k, v in os.environ.items() if k not in ("RANK", "TORCHELASTIC_RUN_ID")}
    env.update(DDP_LESSONS_RUN_DIR=str(tmp_path), PYTHONPATH=str(contract.HOOKS_DIR))
    subprocess.run([sys.executable, "-c", "raise SystemExit(0)"], env=env, check=True, timeout=60)
    assert not (tmp_path / "diagnose").exists()


def test_where_reads_the_script_as_it_is_now_not_a_cached_copy(tmp_path):
    script = tmp_path / "hang.py"
    dump = f'Thread 0x1 (most recent call first):\n  File "{script}", line 1 in <module>\n'
    script.write_text("dist.barrier()\n")
    assert stacks.where(dump, script, cwd=tmp_path) == "at hang.py:1: dist.barrier()"
    time.sleep(0.01)
    script.write_text("dist.all_reduce(t)  # the fixed script, rewritten by %%writefile\n")
    assert stacks.where(dump, script, cwd=tmp_path).endswith(": dist.all_reduce(t)  # the fixed "
                                                            "script, rewritten by %%writefile")


def test_py_spy_output_coloured_for_a_jupyter_kernel_is_read_without_its_colour_codes(monkeypatch):
    """Inside Jupyter (FORCE_COLOR etc. set) py-spy colours its dump; the frames must still parse."""
    coloured = ('Thread \x1b[33m\x1b[1m7\x1b[0m (idle): "MainThread"\n'
                '    \x1b[32mbarrier\x1b[0m (torch/distributed/distributed_c10d.py\x1b[0m:\x1b[2m5356\x1b[0m)\n'
                '    \x1b[32mmain\x1b[0m (\x1b[36mscripts/x.py\x1b[0m:\x1b[2m18\x1b[0m)\n')
    done = subprocess.CompletedProcess([], 0, stdout=coloured, stderr="")
    monkeypatch.setattr(stacks.subprocess, "run", lambda *args, **kwargs: done)
    ok, text = stacks._py_spy("py-spy", 7, 1.0)
    assert ok and "\x1b" not in text
    assert [(f.func, f.line) for f in stacks.parse(text)[0][1]] == [("barrier", 5356), ("main", 18)]
