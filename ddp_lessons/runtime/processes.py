"""Process trees by pid: find every process a job started, wait for it with a deadline, and stop them
all (used by the launchers, live ranks, the grader and the browser tests; never by name, so nothing
else on the machine is touched). `Job` is what both launchers run on: processes started together,
their output read by threads, waited for with a deadline and stopped as one tree.
"""

from __future__ import annotations

import contextlib
import os
import subprocess
import threading
import time
from pathlib import Path
from typing import IO, Callable, Iterable, Mapping, Sequence

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


def wait(procs: Sequence[subprocess.Popen], tree: Tree, deadline: float, *, grace: float | None = None,
         poll: float = 0.05, scan_every: float = 0.25) -> bool:
    """True once every process in `procs` has ended; False when `deadline` (`time.monotonic()`) passes
    first. Meanwhile `tree` keeps seeing everything below them (even ranks orphaned by a dead parent).

    grace: once one process exits non-zero, the others get only this many more seconds.
    """
    scanned = float("-inf")
    while True:
        codes = [proc.poll() for proc in procs]
        if all(code is not None for code in codes):
            return True
        now = time.monotonic()
        if grace is not None and any(code not in (None, 0) for code in codes):
            deadline = min(deadline, now + grace)
            grace = None  # the grace period starts at the first failure, once
        if now >= deadline:
            return False
        if now - scanned >= scan_every:
            for proc in procs:
                tree.scan(proc.pid)
            scanned = now
        time.sleep(poll)


def stop(procs: Sequence[subprocess.Popen], tree: Tree, reap: float = 3.0) -> None:
    """Kill `procs` and every process `tree` saw below them, by pid; reap `procs` (`reap` s each)."""
    tree.kill(proc.pid for proc in procs)
    for proc in procs:
        with contextlib.suppress(subprocess.TimeoutExpired):
            proc.wait(timeout=reap)


class Job:
    """Processes started together (a launcher's agents): each one's output read line by line in
    threads, all waited for with one deadline, every process below them remembered and stopped by pid."""

    def __init__(self) -> None:
        self.tree = Tree()
        self.procs: list[subprocess.Popen] = []
        self._readers: list[threading.Thread] = []

    def start(self, command: Sequence[str], env: Mapping[str, str], read: Callable[[IO[str]], None], *,
              merge_stderr: bool = False) -> subprocess.Popen:
        """Start `command` with its output piped (stderr into stdout with `merge_stderr`), each stream
        handed to `read` in a thread of its own."""
        proc = subprocess.Popen(list(command), env=dict(env), stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                                stderr=subprocess.STDOUT if merge_stderr else subprocess.PIPE, text=True,
                                errors="replace", bufsize=1)
        self.procs.append(proc)
        self.tree.scan(proc.pid)
        for stream in (proc.stdout,) if merge_stderr else (proc.stdout, proc.stderr):
            reader = threading.Thread(target=read, args=(stream,), daemon=True)
            reader.start()
            self._readers.append(reader)
        return proc

    def wait(self, deadline: float, grace: float | None = None) -> bool:
        """True once every process has ended, False at `deadline` (`time.monotonic()`); see `wait`."""
        return wait(self.procs, self.tree, deadline, grace=grace)

    def stop(self) -> None:
        """Kill every process of the job, by pid (see `stop`)."""
        stop(self.procs, self.tree)

    def finish(self, timeout: float = 5.0) -> None:
        """Wait (up to `timeout` s each) for the readers to take the last of the output."""
        for reader in self._readers:
            reader.join(timeout=timeout)

    @property
    def returncodes(self) -> list[int | None]:
        """Each process's exit code, in start order (None while it runs)."""
        return [proc.returncode for proc in self.procs]

    @property
    def failed(self) -> bool:
        """Whether a process has ended with a non-zero code."""
        return any(proc.poll() not in (None, 0) for proc in self.procs)


def run_with_deadline(command: Sequence[str], timeout: float, **popen) -> int | None:
    """Run `command` (``subprocess.Popen`` keywords in `popen`); its exit code, or None when it ran past
    `timeout` seconds. Either way every process it started is killed by pid before this returns."""
    proc = subprocess.Popen(list(command), **popen)
    tree = Tree()
    try:
        finished = wait([proc], tree, time.monotonic() + timeout)
    finally:
        stop([proc], tree)
    return proc.returncode if finished else None


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
