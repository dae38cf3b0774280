"""What one graded notebook may use: memory, disk, processes (and threads), output; and how each
limit is enforced on this machine (`plan`), said in the grader's first line and by ``doctor``.

Enforcement, strongest available first (nothing is ever silently unlimited):

| limit | enforced by | fallback |
|---|---|---|
| memory | the job's cgroup (v2 ``memory.max``, v1 ``memory.limit_in_bytes``, or a systemd scope's ``MemoryMax``): the kernel's OOM killer stops the job's largest process | a watchdog sums the proportional memory (PSS) of the job's processes every `watch.POLL` s and stops the notebook |
| processes | the job's cgroup ``pids.max`` (it counts threads too, as the kernel does) | a watchdog counts the job's processes and threads every `watch.POLL` s |
| disk | its scratch folder watched every `watch.POLL` s, any one file capped by RLIMIT_FSIZE, and the sandbox's private /tmp and /dev/shm are tmpfs of at most this size (``bwrap --size``) | (always) |
| output | the grader's pytest plugin counts what the cells print, the grader watches what processes write to the terminal | (always) |

RLIMIT_NPROC is not used: it counts every process of the user (all jobs and the instructor's own),
and the kernel ignores it for root. RLIMIT_AS is not used: it bounds each process's address space,
not the notebook's memory, and torch reserves far more address space than it uses (a CUDA context
tens of GiB).
"""

from __future__ import annotations

import functools
import re
import shutil
import subprocess
from dataclasses import dataclass

from ddp_lessons.grading import cgroups
from ddp_lessons.i18n import SOURCE, language, localize_numbers, tr

KINDS = ("memory", "processes", "disk", "output")

GiB, MiB, KiB = 1 << 30, 1 << 20, 1 << 10
# Defaults, from grading every solution (docs/INSTRUCTORS.md, "Limits", has the measurements): the
# heaviest used 872 MiB, 40 processes+threads, 204 KiB of disk and 104 KiB of output with 2 CPU
# ranks; a 2-rank exercise run with 4 ranks used 1.2 GiB and 55 processes+threads.
MEMORY = 4 * GiB
"""Default memory per notebook, all its processes together: 3x what a 4-rank CPU job used."""
PROCESSES = 512
"""Default processes and threads at once per notebook (cgroup ``pids.max`` counts both): 9x a 4-rank job."""
DISK = 1 * GiB
"""Default bytes a notebook may write into its scratch folder, and into its private /tmp and /dev/shm."""
OUTPUT = 16 * MiB
"""Default bytes of output a notebook may print: 150x the most a solution prints (figures included)."""

_OPTION = {"memory": "--memory", "processes": "--processes", "disk": "--disk", "output": "--output"}


@dataclass(frozen=True)
class Limits:
    """Per-notebook limits; None means unlimited (asked for explicitly with ``--memory none``)."""

    memory: int | None = MEMORY
    processes: int | None = PROCESSES
    disk: int | None = DISK
    output: int | None = OUTPUT

    def words(self, kind: str) -> str:
        """What a notebook did when it hit limit `kind`: ``used more than 4 GiB of memory`` (in English,
        as the gradebook and the grader's log say it; `said` gives it in a student's language)."""
        return said(kind, getattr(self, kind), SOURCE)

    def option(self, kind: str) -> str:
        """The grade option that sets limit `kind`."""
        return _OPTION[kind]


def said(kind: str, value: int | None, lang: str | None = None) -> str:
    """What a notebook did when it went over limit `kind` of `value`, in `lang`: ``used more than 4 GiB
    of memory``, ``usó más de 4 GiB de memoria``."""
    lang = lang or language()
    amount = str(value) if kind == "processes" else size_text(value)
    if lang == "es":
        amount = amount.replace(".", ",")  # 1,5 MiB
    if kind == "memory":
        return tr("used more than {amount} of memory", lang=lang, amount=amount)
    if kind == "processes":
        return tr("ran more than {amount} processes and threads at once", lang=lang, amount=amount)
    if kind == "disk":
        return tr("wrote more than {amount} to disk", lang=lang, amount=amount)
    if kind == "output":
        return tr("printed more than {amount} of output", lang=lang, amount=amount)
    raise ValueError(tr("unknown limit {kind!r}: one of {kinds}", kind=kind, kinds=", ".join(KINDS)))


def parse_size(text: str) -> int | None:
    """``4G``, ``4GiB``, ``300M``, ``512k``, ``1048576`` -> bytes (powers of 1024); ``none`` -> None."""
    match = re.fullmatch(r"\s*(\d+(?:\.\d+)?)\s*([kmgt]?)(?:i?b)?\s*", text.lower())
    if text.strip().lower() in ("none", "unlimited"):
        return None
    if not match:
        raise ValueError(tr("{text!r} is not a size: write e.g. 4G, 300M, 512K or none", text=text))
    number, unit = float(match[1]), match[2]
    value = int(number * (1 << (10 * " kmgt".index(unit or " "))))
    if value <= 0:
        raise ValueError(tr("{text!r}: a limit must be above zero (or none)", text=text))
    return value


def parse_count(text: str) -> int | None:
    """A whole number above zero, or ``none`` -> None."""
    if text.strip().lower() in ("none", "unlimited"):
        return None
    value = int(text)
    if value <= 0:
        raise ValueError(tr("{text!r}: a limit must be above zero (or none)", text=text))
    return value


def size_text(value: int | None) -> str:
    """``4 GiB``, ``300 MiB``, ``1.5 GiB``, ``512 KiB``, ``12 B``."""
    if value is None:
        return "unlimited"
    for unit, size in (("GiB", GiB), ("MiB", MiB), ("KiB", KiB)):
        if value >= size:
            return f"{value / size:.1f}".removesuffix(".0") + f" {unit}"
    return f"{value} B"


POLL = 0.25
"""Seconds between the grader's looks at a running job (scratch size, output, and the fallbacks)."""


@functools.lru_cache(maxsize=1)
def bwrap_has_size() -> bool:
    """Whether this bwrap can cap a tmpfs (``--size``, bubblewrap 0.5 and later)."""
    path = shutil.which("bwrap")
    if path is None:
        return False
    try:
        done = subprocess.run([path, "--help"], capture_output=True, text=True, timeout=30)
    except (OSError, subprocess.TimeoutExpired):
        return False
    return "--size" in done.stdout + done.stderr


@dataclass(frozen=True)
class Plan:
    """How each limit is enforced on this machine for one grading run (`probe` finds out)."""

    limits: Limits
    sandboxed: bool
    cgroup: str | None  # "v2", "v1", "systemd" or None (then a watchdog bounds memory and processes)
    direct: cgroups.Direct | None = None
    why_no_cgroup: str = ""
    tmpfs_size: bool = True  # bwrap accepts --size for its tmpfs mounts

    @classmethod
    def probe(cls, limits: Limits, sandboxed: bool) -> "Plan":
        """Probe this machine (once per process) and say how each of `limits` will be enforced."""
        version, direct, why = cgroups.probe()
        return cls(limits, sandboxed, version, direct, why, bwrap_has_size() if sandboxed else True)

    def by(self, kind: str) -> str:
        """How limit `kind` is enforced here, in a few words."""
        kernel = {"v2": "cgroup v2 {}", "v1": "cgroup v1 {}", "systemd": "systemd scope {}"}.get(self.cgroup or "")
        if kind == "memory":
            return kernel.format("MemoryMax" if self.cgroup == "systemd" else tr("memory limit")) if kernel else \
                tr("a watchdog summing its processes' memory (PSS) every {poll:g} s", poll=POLL)
        if kind == "processes":
            return kernel.format("TasksMax" if self.cgroup == "systemd" else "pids.max") if kernel else \
                tr("a watchdog counting its processes and threads every {poll:g} s", poll=POLL)
        if kind == "disk":
            where = tr("a watch on its scratch folder, RLIMIT_FSIZE on any one file")
            if not self.sandboxed:
                return where + tr(", TMPDIR inside the scratch folder")
            return where + (tr(", /tmp and /dev/shm as tmpfs of that size") if self.tmpfs_size else
                            tr(", but /tmp NOT capped: this bwrap has no --size"))
        return tr("the grader counting what cells and processes print")

    def watchdog(self, kind: str) -> bool:
        """Whether the grader's watchdog (not the kernel) enforces limit `kind` here."""
        return kind in ("memory", "processes") and self.cgroup is None

    def line(self, cell_timeout: float, notebook_timeout: float) -> str:
        """The grader's first line: every limit, its value and how it is enforced (or why it is weaker)."""
        parts = []
        for kind in KINDS:
            value = getattr(self.limits, kind)
            shown = self.limit_text(kind, value) if value is not None else \
                tr("{kind} UNLIMITED ({option} none)", kind=self.limit_name(kind), option=self.limits.option(kind))
            parts.append(shown if value is None else f"{shown} ({self.by(kind)})")
        text = tr("limits per notebook: {limits}, cell {cell:g} s, notebook {notebook:g} s", limits=", ".join(parts),
                  cell=cell_timeout, notebook=notebook_timeout)
        if self.cgroup is None:
            text += tr("; no cgroup here ({why}): the watchdog stops memory and processes within {poll:g} s of going "
                       "over, so a fast enough allocation can overshoot", why=self.why_no_cgroup, poll=POLL)
        return text

    @staticmethod
    def limit_name(kind: str) -> str:
        """A limit's name in the limits line: ``memory``, ``disk``, ``output``, ``processes``."""
        return {"memory": tr("memory"), "disk": tr("disk"), "output": tr("output")}.get(kind, tr("processes"))

    def limit_text(self, kind: str, value: int) -> str:
        """A limit and its value in the limits line: ``memory 4 GiB``, ``512 processes+threads``."""
        if kind == "processes":
            return tr("{count} processes+threads", count=value)
        amount = size_text(value)
        return f"{self.limit_name(kind)} {localize_numbers(amount)}"


def summary() -> dict[str, str]:
    """For ``doctor``: how each limit would be enforced here by default (sandboxed when bwrap works)."""
    from ddp_lessons.grading import sandbox

    here = Plan.probe(Limits(), sandbox.problem() is None)
    found = {kind: here.by(kind) for kind in KINDS}
    if here.cgroup is None:
        found["why_no_cgroup"] = here.why_no_cgroup
    return found
