"""Process trees by pid: does the helper find and kill every process a job started, and only those?"""
import subprocess
import sys
import time

from ddp_lessons.runtime import processes

SLEEPERS = [sys.executable, "-c",
            "import subprocess, sys, time\n"
            "kids = [subprocess.Popen([sys.executable, '-c', 'import time; time.sleep(60)']) for _ in range(2)]\n"
            "print('ready', flush=True); time.sleep(60)"]


def _start_tree():
    proc = subprocess.Popen(SLEEPERS, stdout=subprocess.PIPE, text=True)
    assert proc.stdout.readline().strip() == "ready"
    return proc


def test_descendants_finds_the_grandchildren_of_a_job():
    proc = _start_tree()
    try:
        found = processes.descendants(proc.pid)
        assert len(found) == 2 and proc.pid not in found
    finally:
        processes.Tree().kill([proc.pid])
        proc.wait()


def test_tree_kill_stops_the_root_and_every_process_seen_below_it_and_nothing_else():
    bystander = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(60)"])
    proc = _start_tree()
    tree = processes.Tree()
    assert processes.alive([bystander.pid, proc.pid]) == [bystander.pid, proc.pid]
    try:
        tree.scan(proc.pid)
        seen = processes.descendants(proc.pid)
        assert len(seen) == 2
        tree.kill([proc.pid])
        proc.wait(timeout=10)
        deadline = time.monotonic() + 10
        while processes.alive(seen) and time.monotonic() < deadline:
            time.sleep(0.1)
        alive = processes.alive(seen)
        assert alive == [], f"still running after kill: {alive}"
        assert bystander.poll() is None, "a process outside the tree was killed"
    finally:
        bystander.kill()
        bystander.wait()


SLEEPER = "import time; time.sleep(60)"
CHILD = ("import subprocess, sys, time\n"  # starts a grandchild in a session of its own, prints its pid
         f"p = subprocess.Popen([sys.executable, '-c', {SLEEPER!r}], start_new_session=True)\n"
         "print(p.pid, flush=True); time.sleep(60)")


def _tree_script(pid_file, then: str) -> list[str]:
    """A command that starts a child and a grandchild in sessions of their own (out of reach of a
    process-group kill), writes their pids to `pid_file`, then runs `then`."""
    return [sys.executable, "-c",
            "import subprocess, sys, time\n"
            f"child = subprocess.Popen([sys.executable, '-c', {CHILD!r}], stdout=subprocess.PIPE, text=True,\n"
            "                         start_new_session=True)\n"
            f"open({str(pid_file)!r}, 'w').write(f'{{child.pid}} {{child.stdout.readline().strip()}}')\n"
            f"{then}"]


def _pids(pid_file) -> list[int]:
    return [int(pid) for pid in pid_file.read_text().split()]


def _gone_soon(pids, seconds=10.0) -> list[int]:
    """The pids still alive after waiting up to `seconds` for them to go (a SIGKILL is not instant)."""
    deadline = time.monotonic() + seconds
    while processes.alive(pids) and time.monotonic() < deadline:
        time.sleep(0.1)
    return processes.alive(pids)


def test_a_command_past_its_deadline_is_killed_with_every_process_it_started(tmp_path):
    pid_file = tmp_path / "pids"
    start = time.monotonic()
    code = processes.run_with_deadline(_tree_script(pid_file, "time.sleep(60)"), timeout=6)
    assert code is None, "the deadline was not reported"
    assert time.monotonic() - start < 30, "waited far past the deadline"
    assert len(_pids(pid_file)) == 2, "the command did not start its tree before the deadline"
    assert _gone_soon(_pids(pid_file)) == [], "processes survived the deadline"


def test_a_command_that_ends_in_time_gives_its_exit_code_and_leaves_nothing_behind(tmp_path):
    pid_file = tmp_path / "pids"
    code = processes.run_with_deadline(_tree_script(pid_file, "time.sleep(1); sys.exit(3)"), timeout=60)
    assert code == 3
    assert _gone_soon(_pids(pid_file)) == [], "the command's orphans were left running"


def test_once_one_process_fails_the_others_get_only_the_grace_period():
    failing = subprocess.Popen([sys.executable, "-c", "import sys; sys.exit(1)"])
    hanging = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(60)"])
    tree = processes.Tree()
    start = time.monotonic()
    try:
        assert processes.wait([failing, hanging], tree, start + 50, grace=1.0) is False
        assert time.monotonic() - start < 20, "the hanging peer got more than its grace period"
        assert failing.returncode == 1 and hanging.poll() is None
    finally:
        processes.stop([failing, hanging], tree)
    assert hanging.returncode is not None and _gone_soon([hanging.pid]) == []


def test_wait_returns_true_as_soon_as_every_process_has_ended():
    quick = [subprocess.Popen([sys.executable, "-c", "pass"]) for _ in range(2)]
    start = time.monotonic()
    assert processes.wait(quick, processes.Tree(), start + 50) is True
    assert all(proc.returncode == 0 for proc in quick) and time.monotonic() - start < 20


def test_a_job_reads_each_processes_streams_and_reports_its_exit_codes():
    lines = []
    job = processes.Job()
    job.start([sys.executable, "-c", "import sys; print('out'); print('err', file=sys.stderr)"], {},
              lambda stream: lines.extend(line.strip() for line in stream))
    job.start([sys.executable, "-c", "print('merged'); raise SystemExit(3)"], {},
              lambda stream: lines.extend(line.strip() for line in stream), merge_stderr=True)
    assert job.wait(time.monotonic() + 30)
    job.finish()
    assert sorted(lines) == ["err", "merged", "out"] and job.returncodes == [0, 3] and job.failed


def test_a_job_past_its_deadline_is_stopped_with_every_process_it_started():
    job = processes.Job()
    job.start(SLEEPERS, {}, lambda stream: [None for _ in stream])
    deadline = time.monotonic() + 2
    while len(job.tree.pids) < 3 and time.monotonic() < deadline + 10:  # the sleepers' children appear
        job.wait(time.monotonic() + 0.5)
    assert not job.wait(time.monotonic() + 0.5)
    job.stop()
    job.finish()
    assert len(job.tree.pids) == 3 and not processes.alive(job.tree.pids)
