"""Process trees by pid: find every process a job started, and stop them all (used by the launcher
and the grader; never by name, so nothing else on the machine is touched)."""

from __future__ import annotations

import contextlib
import os
from pathlib import Path
from typing import Iterable

import psutil


def descendants(pid: int) -> set[int]:
    """Pids of all processes below `pid` (cheap on Linux: /proc/PID/task/TID/children)."""
    found: set[int] = set()
    todo = [pid]
    while todo:
        kids = _children(todo.pop()) - found
        todo += kids
        found |= kids
    return found


def _children(pid: int) -> set[int]:
    """Direct children of `pid`; empty once it has ended."""
    try:
        tasks = list(Path(f"/proc/{pid}/task").iterdir())
        return {int(k) for t in tasks for k in (t / "children").read_text().split()}
    except OSError:  # ended, or no /proc children files (macOS, Windows, some kernels)
        try:
            return {p.pid for p in psutil.Process(pid).children()}
        except psutil.Error:
            return set()


class Tree:
    """Every process seen below some root pids, held as psutil handles: a handle refuses to signal a
    pid that an unrelated process has reused since, so killing what was seen is always safe."""

    def __init__(self) -> None:
        self.seen: dict[int, psutil.Process] = {}

    @property
    def pids(self) -> set[int]:
        """Pids of every process seen so far."""
        return set(self.seen)

    def scan(self, root_pid: int) -> None:
        """Remember `root_pid` and everything below it right now."""
        for pid in {root_pid} | descendants(root_pid):
            if pid not in self.seen and pid != os.getpid():
                with contextlib.suppress(psutil.NoSuchProcess):
                    self.seen[pid] = psutil.Process(pid)

    def kill(self, root_pids: Iterable[int] = ()) -> None:
        """Scan `root_pids` once more, then stop every process seen (SIGTERM, then SIGKILL)."""
        for pid in root_pids:
            self.scan(pid)
        kill_processes(self.seen.values())


def kill_processes(processes: Iterable[psutil.Process], grace: float = 3.0) -> None:
    """SIGTERM every process still running, then SIGKILL whatever is left after `grace` seconds."""
    running = [p for p in processes if p.is_running()]
    for process in running:
        with contextlib.suppress(psutil.NoSuchProcess):
            process.terminate()
    _, left = psutil.wait_procs(running, timeout=grace)
    for process in left:
        with contextlib.suppress(psutil.NoSuchProcess):
            process.kill()
    psutil.wait_procs(left, timeout=grace)


def alive(pids: Iterable[int]) -> list[int]:
    """The pids from `pids` that still run (zombies count as gone)."""
    running = []
    for pid in pids:
        try:
            if psutil.Process(pid).status() != psutil.STATUS_ZOMBIE:
                running.append(pid)
        except psutil.NoSuchProcess:
            pass
    return running
