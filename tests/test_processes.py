"""Process trees by pid: does the helper find and kill every process a job started, and only those?"""
import subprocess
import sys
import time

from ddp_lessons import processes

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
