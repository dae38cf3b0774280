"""Control groups for grading jobs: one cgroup per notebook, so the kernel bounds its memory
(``memory.max`` / ``memory.limit_in_bytes``) and its processes and threads (``pids.max``), and says
afterwards whether the job hit either limit (``oom_kill`` and ``max`` event counters).

Three ways to get one, probed in this order (`probe`):

- cgroup v2, directly: a child of this process's cgroup when the grader may write there with the
  memory and pids controllers enabled (a delegated subtree, a container's own cgroup);
- cgroup v1, directly: the memory and pids hierarchies mounted and writable (older hosts and
  containers, where each controller is its own tree);
- ``systemd-run --scope`` (``--user`` when not root): systemd creates the cgroup with
  ``MemoryMax``/``TasksMax``; the usual way on a desktop, where the grader's own cgroup is not writable.

Only the standard library: the grader's pytest plugin (inside the sandbox) reads its own counters here.
"""

from __future__ import annotations

import contextlib
import functools
import itertools
import json
import os
import shutil
import signal
import subprocess
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path

from ddp_lessons.i18n import tr

CONTROLLERS = ("memory", "pids")
PREFIX = "ddp-grade"
_names = itertools.count()


def mounts(mountinfo: str | None = None) -> dict[str, tuple[Path, str]]:
    """Cgroup mounts: ``"v2"`` and each v1 controller (``"memory"``, ``"pids"``) -> (mount point, mount root)."""
    if mountinfo is None:
        try:
            mountinfo = Path("/proc/self/mountinfo").read_text()
        except OSError:
            return {}
    found: dict[str, tuple[Path, str]] = {}
    for line in mountinfo.splitlines():
        fields, _, tail = line.partition(" - ")
        parts, tail_parts = fields.split(), tail.split()
        if len(parts) < 5 or len(tail_parts) < 3:
            continue
        fstype, options = tail_parts[0], tail_parts[2].split(",")
        place = (Path(parts[4].replace("\\040", " ")), parts[3])
        if fstype == "cgroup2":
            found.setdefault("v2", place)
        elif fstype == "cgroup":
            for controller in CONTROLLERS:
                if controller in options:
                    found.setdefault(controller, place)
    return found


def memberships(text: str | None = None) -> dict[str, str]:
    """This process's cgroup paths: ``"v2"`` and each v1 controller -> path (from /proc/self/cgroup)."""
    if text is None:
        try:
            text = Path("/proc/self/cgroup").read_text()
        except OSError:
            return {}
    paths = {}
    for line in text.splitlines():
        number, _, rest = line.partition(":")
        controllers, _, path = rest.partition(":")
        if number == "0" and controllers == "":
            paths["v2"] = path
        for controller in controllers.split(","):
            if controller in CONTROLLERS:
                paths[controller] = path
    return paths


def own_dir(kind: str) -> Path | None:
    """The folder of this process's cgroup in hierarchy `kind` (``v2``, ``memory``, ``pids``), if mounted."""
    place, path = mounts().get(kind), memberships().get(kind)
    if place is None or path is None:
        return None
    point, root = place
    relative = os.path.relpath(path, root) if root != "/" else path.lstrip("/")
    if relative.startswith(".."):  # our cgroup lies outside what this mount shows
        return None
    return point / relative if relative != "." else point


# --- what a job's cgroup says ---------------------------------------------------------------------

def read_key(path: Path, key: str) -> int:
    """The number after `key` in a flat-keyed cgroup file (``memory.events``, ``pids.events``); 0 if absent."""
    try:
        for line in path.read_text().splitlines():
            name, _, value = line.partition(" ")
            if name == key:
                return int(value)
    except (OSError, ValueError):
        pass
    return 0


def read_number(path: Path) -> int | None:
    """A single-number cgroup file (``pids.peak``), or None when absent or ``max``."""
    try:
        text = path.read_text().strip()
        return int(text)
    except (OSError, ValueError):
        return None


@dataclass
class Group:
    """One job's cgroup: a folder per hierarchy (cgroup v2 and systemd: the same folder for both)."""

    version: str  # "v2" or "v1" (systemd scopes are v2)
    dirs: dict[str, Path] = field(default_factory=dict)  # "memory"/"pids" -> folder

    def counters(self) -> dict[str, tuple[Path, str]]:
        """Where each limit's hit counter is: OOM kills for memory, refused forks for processes."""
        found = {}
        if "memory" in self.dirs:
            name = "memory.events" if self.version == "v2" else "memory.oom_control"
            found["memory"] = (self.dirs["memory"] / name, "oom_kill")
        if "pids" in self.dirs:
            found["processes"] = (self.dirs["pids"] / "pids.events", "max")
        return found

    def hits(self) -> dict[str, int]:
        """How often each limit was hit so far: ``{"memory": oom kills, "processes": refused forks}``."""
        return {kind: read_key(path, key) for kind, (path, key) in self.counters().items()}

    def memory_in_use(self) -> int | None:
        """Memory the job holds that reclaim cannot drop: anonymous memory and tmpfs/shared pages."""
        folder = self.dirs.get("memory")
        if folder is None:
            return None
        keys = ("anon", "shmem") if self.version == "v2" else ("total_rss", "total_shmem")
        return sum(read_key(folder / "memory.stat", key) for key in keys)

    def tasks(self) -> tuple[int | None, int | None]:
        """(processes and threads now, the most at once so far where the kernel keeps it)."""
        folder = self.dirs.get("pids")
        if folder is None:
            return None, None
        return read_number(folder / "pids.current"), read_number(folder / "pids.peak")

    def pids(self) -> set[int]:
        """Pids of every process in the group (all hierarchies)."""
        found: set[int] = set()
        for folder in set(self.dirs.values()):
            with contextlib.suppress(OSError, ValueError):
                found |= {int(pid) for pid in (folder / "cgroup.procs").read_text().split()}
        return found

    def kill(self) -> None:
        """SIGKILL every process still in the group, by pid (including any that left the process tree)."""
        for _ in range(20):
            pids = self.pids() - {os.getpid()}
            if not pids:
                return
            for pid in pids:
                with contextlib.suppress(ProcessLookupError, PermissionError):
                    os.kill(pid, signal.SIGKILL)
            time.sleep(0.05)

    def remove(self) -> None:
        """Kill what is left and remove the folders this grader created."""
        self.kill()
        for folder in set(self.dirs.values()):
            for _ in range(20):  # a killed process leaves its cgroup a moment after SIGKILL
                try:
                    folder.rmdir()
                    break
                except FileNotFoundError:
                    break
                except OSError:
                    time.sleep(0.05)


def _write(path: Path, value: str) -> None:
    with open(path, "w") as out:
        out.write(value)


# --- creating one: directly (v2, v1) --------------------------------------------------------------

@dataclass
class Direct:
    """Where this grader may create job cgroups itself: parent folder per controller."""

    version: str
    parents: dict[str, Path]

    def create(self, memory: int | None, tasks: int | None) -> Group:
        """A new job cgroup with these limits (None: no limit on that controller, only its counters)."""
        name = f"{PREFIX}-{os.getpid()}-{next(_names)}"
        group = Group(self.version)
        try:
            for controller, parent in self.parents.items():
                folder = parent / name
                if not folder.is_dir():  # cgroup v2: one folder holds both controllers
                    folder.mkdir()
                group.dirs[controller] = folder
            write_limits(group, memory, tasks)
        except OSError:
            group.remove()
            raise
        return group

    def check(self) -> None:
        """Make a job cgroup with small limits and start a process in it as jobs are started;
        OSError (with the reason) if any step is refused."""
        from ddp_lessons.grading import confine

        group = self.create(64 << 20, 64)
        try:
            command = [sys.executable, "-I", confine.__file__]
            for folder in sorted(set(group.dirs.values())):
                command += ["--cgroup-procs", str(folder / "cgroup.procs")]
            done = subprocess.run(command + ["--", sys.executable, "-I", "-c", "pass"], capture_output=True,
                                  text=True, timeout=60)
            if done.returncode != 0:
                lines = done.stderr.strip().splitlines() or [tr("exit code {code}", code=done.returncode)]
                raise OSError(tr("a process cannot join it: {said}", said=lines[-1]))
        finally:
            group.remove()


def write_limits(group: Group, memory: int | None, tasks: int | None) -> None:
    """Write the memory and task limits into `group` (swap too, so a hog cannot swap instead)."""
    if "memory" in group.dirs and memory is not None:
        folder = group.dirs["memory"]
        if group.version == "v2":
            _write(folder / "memory.max", str(memory))
            if (folder / "memory.swap.max").exists():
                _write(folder / "memory.swap.max", "0")
        else:
            _write(folder / "memory.limit_in_bytes", str(memory))
            if (folder / "memory.memsw.limit_in_bytes").exists():
                _write(folder / "memory.memsw.limit_in_bytes", str(memory))
    if "pids" in group.dirs and tasks is not None:
        _write(group.dirs["pids"] / "pids.max", str(tasks))


def direct(memory: bool = True, pids: bool = True) -> tuple[Direct | None, str]:
    """Where job cgroups can be made directly (v2 first, then v1), or None and why not."""
    wanted = [c for c, on in (("memory", memory), ("pids", pids)) if on]
    reasons = []
    home = own_dir("v2")
    if home is not None:
        try:
            enabled = (home / "cgroup.subtree_control").read_text().split()
            missing = [c for c in wanted if c not in enabled]
            if missing:
                _write(home / "cgroup.subtree_control", " ".join(f"+{c}" for c in missing))
            attempt = Direct("v2", {c: home for c in wanted})
            attempt.check()
            return attempt, ""
        except OSError as error:
            reasons.append(tr("cgroup v2 at {home} is not writable with the memory and pids controllers ({error})",
                              home=str(home), error=str(error.strerror or error)))
    parents = {c: own_dir(c) for c in wanted}
    if wanted and all(parents.values()):
        try:
            attempt = Direct("v1", {c: p for c, p in parents.items() if p is not None})
            attempt.check()
            return attempt, ""
        except OSError as error:
            reasons.append(tr("cgroup v1 {controllers} is not writable ({error})", controllers="/".join(wanted),
                              error=str(error.strerror or error)))
    elif home is None:
        reasons.append(tr("no cgroup v2 and no cgroup v1 {controllers} hierarchy is mounted",
                          controllers="/".join(c for c in wanted if not parents[c])))
    return None, "; ".join(reasons)


# --- creating one: systemd-run --scope ------------------------------------------------------------

def systemd_command(memory: int | None, tasks: int | None) -> list[str]:
    """The ``systemd-run --scope`` prefix giving a command a cgroup with these limits."""
    command = ["systemd-run", "--scope", "--quiet", "--collect"]
    if os.geteuid() != 0:
        command.append("--user")
    if memory is not None:
        command += ["-p", f"MemoryMax={memory}", "-p", "MemorySwapMax=0"]
    if tasks is not None:
        command += ["-p", f"TasksMax={tasks}"]
    return command + ["--"]


def systemd(timeout: float = 20) -> tuple[bool, str]:
    """Whether ``systemd-run --scope`` gives a child a cgroup v2 whose memory.max and pids.max hold."""
    if shutil.which("systemd-run") is None:
        return False, tr("systemd-run is not installed")
    if not Path("/run/systemd/system").is_dir():
        return False, tr("systemd is not running here")
    memory, tasks = 256 << 20, 64
    probe = systemd_command(memory, tasks) + [sys.executable, "-I", "-c", _DESCRIBE]
    try:
        done = subprocess.run(probe, capture_output=True, text=True, timeout=timeout)
    except (OSError, subprocess.TimeoutExpired) as error:
        return False, tr("systemd-run did not run: {error}", error=str(error))
    if done.returncode != 0:
        lines = done.stderr.strip().splitlines() or [tr("exit code {code}", code=done.returncode)]
        return False, tr("systemd-run --scope failed: {said}", said=lines[-1])
    try:
        seen = json.loads(done.stdout.strip().splitlines()[-1])
    except (ValueError, IndexError):
        return False, tr("systemd-run --scope gave no cgroup: {said}", said=done.stdout.strip()[-200:])
    if seen.get("memory.max") != str(memory) or seen.get("pids.max") != str(tasks):
        return False, tr("systemd-run --scope did not apply the limits (memory.max {memory}, pids.max {pids}: are the "
                         "memory and pids controllers delegated?)", memory=str(seen.get("memory.max")),
                         pids=str(seen.get("pids.max")))
    return True, ""


_DESCRIBE = """
import json, pathlib
path = [l.split(':', 2)[2] for l in open('/proc/self/cgroup').read().splitlines() if l.startswith('0::')][0]
mount = [l.split(' - ')[0].split()[4] for l in open('/proc/self/mountinfo') if ' - cgroup2 ' in l][0]
folder = pathlib.Path(mount + path)
print(json.dumps({'dir': str(folder), **{name: (folder / name).read_text().strip() if (folder / name).exists()
                                          else None for name in ('memory.max', 'pids.max')}}))
"""
"""Run inside a new scope by `systemd`: prints the scope's cgroup folder and its two limits as JSON."""


def group_of(pid: int) -> Group | None:
    """The cgroup v2 group of process `pid` (a systemd scope), read from /proc."""
    try:
        text = Path(f"/proc/{pid}/cgroup").read_text()
    except OSError:
        return None
    path = memberships(text).get("v2")
    place = mounts().get("v2")
    if path is None or place is None:
        return None
    folder = place[0] / path.lstrip("/")
    return Group("v2", {"memory": folder, "pids": folder})


@functools.lru_cache(maxsize=4)
def probe(memory: bool = True, pids: bool = True) -> tuple[str | None, Direct | None, str]:
    """How job cgroups are made here: ("v2" | "v1" | "systemd" | None, the direct parents, why not)."""
    if not (memory or pids):
        return None, None, tr("no memory or process limit asked for")
    if sys.platform != "linux":
        return None, None, tr("cgroups exist only on Linux")
    found, why_not_direct = direct(memory, pids)
    if found is not None:
        return found.version, found, ""
    works, why_not_systemd = systemd()
    if works:
        return "systemd", None, ""
    return None, None, f"{why_not_direct}; {why_not_systemd}"
