"""One grading job under its limits: started confined (its cgroup, RLIMIT_FSIZE, first in line for the
OOM killer), watched every `limits.POLL` seconds while it runs (scratch folder size, terminal output,
and memory and processes where no cgroup bounds them), stopped by pid when it runs late or over a
limit the grader enforces itself, and measured: the peak of what it used (`Usage`), which the
grader prints for every notebook so that an instructor can size the limits from real runs.
"""

from __future__ import annotations

import contextlib
import json
import os
import subprocess
import sys
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path

import psutil

from ddp_lessons.runtime import processes
from ddp_lessons.grading import cgroups, confine
from ddp_lessons.grading.limits import KINDS, POLL, Plan, size_text
from ddp_lessons.i18n import localize_numbers, tr

OOM_SCORE_ADJ = 500
"""The job's processes are picked by the out-of-memory killer before the grader and the rest of the
machine; the plugin raises the kernel's (and so its ranks') further, above pytest, which records."""
_warned = threading.Lock()
_warnings: set[str] = set()


@dataclass
class Usage:
    """The most a job used at once, as sampled (memory, processes+threads, disk) or counted (output)."""

    memory: int = 0
    tasks: int = 0
    disk: int = 0
    output: int = 0

    def text(self) -> str:
        """``peak 812 MiB memory, 31 processes+threads, 2.1 MiB disk, 4 KiB output``."""
        return tr("peak {memory} memory, {tasks} processes+threads, {disk} disk, {output} output",
                  memory=localize_numbers(size_text(self.memory)), tasks=self.tasks,
                  disk=localize_numbers(size_text(self.disk)), output=localize_numbers(size_text(self.output)))


@dataclass
class Outcome:
    """How a job ended: its exit code (None when stopped), whether it ran late, which limit it hit."""

    code: int | None
    timed_out: bool = False
    stopped_for: str | None = None  # a limit the grader stopped the job for
    kernel_hits: dict[str, int] = field(default_factory=dict)  # cgroup counters: OOM kills, refused forks
    usage: Usage = field(default_factory=Usage)


def warn_once(message: str) -> None:
    """Print `message` to stderr once per grading process."""
    with _warned:
        if message in _warnings:
            return
        _warnings.add(message)
    print(tr("warning: {message}", message=message), file=sys.stderr, flush=True)


class Job:
    """One notebook's run under `plan`: its cgroup (made here, or by systemd-run), its watchdog."""

    def __init__(self, plan: Plan, scratch: Path, log: Path):
        self.plan, self.scratch, self.log = plan, scratch, log
        self.group: cgroups.Group | None = None
        self.usage = Usage()
        self.baseline = 0  # bytes in the scratch folder before the job started (the notebook, its config)
        self.watchdog = {kind for kind in KINDS if plan.watchdog(kind)}
        if plan.direct is not None:
            try:
                self.group = plan.direct.create(plan.limits.memory, plan.limits.processes)
            except OSError as error:  # probed fine at start: say so and bound it by the watchdog instead
                warn_once(tr("could not create a cgroup for a grading job ({error}); memory and processes of "
                             "such jobs are bounded by the watchdog", error=str(error)))
                self.watchdog |= {"memory", "processes"}

    def plugin_config(self) -> dict:
        """What the grader's pytest plugin needs: which cgroup counters are the job's, each limit's words
        and value."""
        limits = self.plan.limits
        version = ("v2" if self.plan.cgroup == "systemd" else self.plan.cgroup) \
            if self.group is not None or self.plan.cgroup == "systemd" else None
        bounded = [kind for kind in KINDS if getattr(limits, kind) is not None]
        return {"cgroup": version, "output": limits.output, "disk": limits.disk is not None,
                "words": {kind: limits.words(kind) for kind in bounded},
                "values": {kind: getattr(limits, kind) for kind in bounded}}

    def command(self, command: list[str]) -> list[str]:
        """`command` started confined: systemd scope or cgroup.procs, RLIMIT_FSIZE, OOM score."""
        limits = self.plan.limits
        prefix = cgroups.systemd_command(limits.memory, limits.processes) if self.plan.cgroup == "systemd" \
            and "memory" not in self.watchdog else []
        wrapper = [sys.executable, "-I", confine.__file__, "--oom-score-adj", str(OOM_SCORE_ADJ)]
        for folder in sorted(set(self.group.dirs.values())) if self.group else []:
            wrapper += ["--cgroup-procs", str(folder / "cgroup.procs")]
        if limits.disk is not None:
            wrapper += ["--fsize", str(limits.disk)]
        return prefix + wrapper + ["--"] + command

    def run(self, command: list[str], cwd: Path, timeout: float, env: dict[str, str] | None) -> Outcome:
        """Run `command` confined and watched, output to the log; every process it started is gone after."""
        deadline = time.monotonic() + timeout
        tree = processes.Tree()
        outcome = Outcome(None, usage=self.usage)
        self.baseline = folder_bytes(self.scratch)
        with open(self.log, "wb") as out:
            proc = subprocess.Popen(self.command(command), cwd=cwd, stdin=subprocess.DEVNULL, stdout=out,
                                    stderr=subprocess.STDOUT, env=env)
            try:
                while not processes.wait([proc], tree, min(deadline, time.monotonic() + POLL)):
                    if time.monotonic() >= deadline:
                        outcome.timed_out = True
                        break
                    outcome.stopped_for = self.check(proc, tree)
                    if outcome.stopped_for:
                        break
                else:
                    outcome.code = proc.returncode
            finally:
                processes.stop([proc], tree)
                self.finish(outcome)
        return outcome

    def finish(self, outcome: Outcome) -> None:
        """Read the cgroup's counters and peaks one last time, then `close`."""
        self.measure_disk()
        self.usage.output = max(self.usage.output, self.log_size())
        if self.group is not None:
            outcome.kernel_hits = {kind: count for kind, count in self.group.hits().items() if count}
            _, peak = self.group.tasks()
            self.usage.tasks = max(self.usage.tasks, peak or 0)
        self.close()

    def close(self) -> None:
        """Kill anything left in the job's cgroup, by pid, and remove the cgroup if the grader made it
        (systemd removes its scopes once empty). Safe to call twice."""
        group, self.group = self.group, None
        if group is not None:
            group.remove() if self.plan.direct is not None else group.kill()

    # --- the watchdog -------------------------------------------------------------------------------

    def check(self, proc: subprocess.Popen, tree: processes.Tree) -> str | None:
        """Measure the running job; the limit it went over that the grader itself enforces, or None."""
        limits = self.plan.limits
        if self.group is None and self.plan.cgroup == "systemd":
            self.group = systemd_group(proc.pid)
        live = alive(tree)
        if self.measure_disk(live) > (limits.disk or float("inf")):
            return "disk"
        self.usage.output = max(self.usage.output, self.log_size())
        if limits.output is not None and self.usage.output > limits.output:
            return "output"
        memory = self.group.memory_in_use() if self.group and "memory" not in self.watchdog else None
        memory = memory if memory is not None else proportional_memory(live)
        self.usage.memory = max(self.usage.memory, memory)
        if "memory" in self.watchdog and limits.memory is not None and memory > limits.memory:
            return "memory"
        now, peak = self.group.tasks() if self.group and "processes" not in self.watchdog else (None, None)
        tasks = now if now is not None else sum(threads(p) for p in live)
        self.usage.tasks = max(self.usage.tasks, tasks, peak or 0)
        if "processes" in self.watchdog and limits.processes is not None and tasks > limits.processes:
            return "processes"
        return None

    def log_size(self) -> int:
        """Bytes the job's processes wrote to the terminal (pytest's own report is a few KiB of it)."""
        with contextlib.suppress(OSError):
            return self.log.stat().st_size
        return 0

    def measure_disk(self, live: list[psutil.Process] | None = None) -> int:
        """Bytes the job wrote into its scratch folder (the log aside: that is output); the peak adds
        what it holds in the sandbox's private /tmp and /dev/shm."""
        used = max(0, folder_bytes(self.scratch, skip={self.log}) - self.baseline)
        tmp = private_tmp_bytes(live or [])
        self.usage.disk = max(self.usage.disk, used + tmp)
        return used


def alive(tree: processes.Tree) -> list[psutil.Process]:
    """The processes `tree` has seen that still run."""
    found = []
    for process in list(tree.seen.values()):
        with contextlib.suppress(psutil.Error):
            if process.is_running() and process.status() != psutil.STATUS_ZOMBIE:
                found.append(process)
    return found


def proportional_memory(live: list[psutil.Process]) -> int:
    """Memory of these processes, shared pages split between their users (PSS; RSS where PSS is unreadable)."""
    total = 0
    for process in live:
        with contextlib.suppress(psutil.Error):
            try:
                total += process.memory_full_info().pss
            except (AttributeError, psutil.AccessDenied):
                total += process.memory_info().rss
    return total


def threads(process: psutil.Process) -> int:
    """Threads of `process` (1 for a plain process), 0 once it has ended."""
    with contextlib.suppress(psutil.Error):
        return process.num_threads()
    return 0


def folder_bytes(folder: Path, skip: set[Path] = frozenset()) -> int:
    """Bytes of disk the files under `folder` occupy (allocated blocks: a sparse file costs what it holds)."""
    total, todo = 0, [str(folder)]
    while todo:
        with contextlib.suppress(OSError), os.scandir(todo.pop()) as entries:
            for entry in entries:
                with contextlib.suppress(OSError):
                    if entry.is_dir(follow_symlinks=False):
                        todo.append(entry.path)
                    elif entry.is_file(follow_symlinks=False) and Path(entry.path) not in skip:
                        stat = entry.stat(follow_symlinks=False)
                        blocks = getattr(stat, "st_blocks", None)  # absent on Windows
                        total += stat.st_size if blocks is None else blocks * 512
    return total


def private_tmp_bytes(live: list[psutil.Process]) -> int:
    """Bytes used in the sandbox's private /tmp and /dev/shm, seen through one of its processes."""
    with contextlib.suppress(OSError):
        mine = os.stat("/proc/self/ns/mnt").st_ino
        for process in live:
            with contextlib.suppress(OSError):
                if os.stat(f"/proc/{process.pid}/ns/mnt").st_ino == mine:
                    continue
                used = 0
                for place in ("tmp", "dev/shm"):
                    stat = os.statvfs(f"/proc/{process.pid}/root/{place}")
                    used += (stat.f_blocks - stat.f_bfree) * stat.f_frsize
                return used
    return 0


def systemd_group(pid: int) -> cgroups.Group | None:
    """The scope systemd-run made for the job, once its process has moved there (else None)."""
    group, mine = cgroups.group_of(pid), cgroups.group_of(os.getpid())
    if group is None or (mine is not None and group.dirs == mine.dirs):
        return None
    return group


def write_plugin_config(job: Job, path: Path) -> Path:
    """The plugin's config file for `job` (read inside the sandbox: it lives in the scratch folder)."""
    path.write_text(json.dumps(job.plugin_config()), encoding="utf-8")
    return path
