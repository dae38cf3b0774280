"""The grader's pytest plugin (``-p ddp_lessons.grading.plugin``), loaded in the process that runs a
submission under nbval: it writes each cell's outcome (a `cells.CellRecord`) to a JSON-lines report,
and it notices at once when the kernel dies (``os._exit``, the out-of-memory killer) instead of
waiting for the cell timeout.

With the grader's limits (``--ddp-lessons-limits FILE``, written by `watch`) it also says which
limit a cell hit: the job cgroup's OOM-kill and refused-fork counters rising while the cell ran, a
full /tmp or a file over RLIMIT_FSIZE, or more output than allowed, which it counts as the messages
arrive (nbval only reads a cell's output once the cell ends: a flood would pile up in memory first)
and then stops the kernel.

Hidden checks (``grade --hidden``) arrive as the last cells of the scratch notebook; once nbval has
collected them, the plugin rewrites the notebook file without them, so that nothing the student's
code can read on disk holds their code.

Its state lives in pytest's stash (`STATE` on the config, `CELL_START` on each cell's item). nbval
offers no hook around waiting for a kernel message, so `watch_kernel` wraps the kernel's
``get_message`` (one assignment; the wrapper's state is the `KernelWatch` kept in the stash).
"""

from __future__ import annotations

import contextlib
import json
import os
import signal
import time
from collections import deque
from dataclasses import dataclass, field
from pathlib import Path
from queue import Empty

import pytest

from ddp_lessons.grading import cells, kernel_start
from ddp_lessons.grading.cells import CellRecord
from ddp_lessons.grading.limits import said
from ddp_lessons.i18n import SOURCE
from ddp_lessons.tracebacks import exception_text

REPORT_OPTION = "--ddp-lessons-report"
LIMITS_OPTION = "--ddp-lessons-limits"
KERNEL_POLL = 0.5
"""Seconds between checks that the kernel still lives while nbval waits for a message."""
OUTPUT_POLL = 0.05
"""Seconds between looks at the output stream while a cell runs, when output is limited."""
KERNEL_OOM_SCORE_ADJ = 1000
"""The kernel (and the ranks it starts) die first when the job runs out of memory: pytest, which
records what happened, survives."""
HINT_CHARS = 2000
"""The most of a failure's text kept as the hint a student sees in their feedback."""
_NBVAL_EXCEPTION = "Cell execution caused an exception"
_NBVAL_TIMEOUT = "Timeout of"


class KernelDied(RuntimeError):
    """The notebook's kernel process ended while a cell ran."""


class OverLimit(RuntimeError):
    """A cell went over one of the grader's limits (`kind`); the message says which, in words."""

    def __init__(self, kind: str, words: str):
        super().__init__(words)
        self.kind = kind


@dataclass
class State:
    """The plugin's state for one pytest run (one graded notebook)."""

    limits: dict
    """The grader's limits file (empty without one): cgroup, each limit's words and value."""
    report: Path | None
    terminal: int = 0
    """Bytes the notebook's processes wrote straight to the terminal so far (counted cell by cell)."""
    watches: dict[int, "KernelWatch"] = field(default_factory=dict)
    """The watch on each kernel nbval started, by the kernel object's id."""

    def output(self, kernel) -> int:
        """Bytes of output so far: what the kernel sent plus what processes wrote to the terminal."""
        watch = self.watches.get(id(kernel))
        return (watch.output if watch else 0) + self.terminal


@dataclass(frozen=True)
class CellStart:
    """What the plugin read when a cell started: the cgroup's limit counters, the terminal's size."""

    hits: dict[str, int]
    terminal: int


STATE = pytest.StashKey[State]()
CELL_START = pytest.StashKey[CellStart]()


def pytest_addoption(parser) -> None:
    """Add the options naming the JSON-lines report and the grader's limits file."""
    parser.addoption(REPORT_OPTION, help="(ddp_lessons grading) append each cell's outcome here")
    parser.addoption(LIMITS_OPTION, help="(ddp_lessons grading) the limits this notebook runs under (JSON)")


def pytest_configure(config) -> None:
    """Read the limits file once; start the run's state."""
    kernel_start.install()  # a kernel that dies before its first reply is started once more
    path, report = config.getoption(LIMITS_OPTION), config.getoption(REPORT_OPTION)
    limits = json.loads(Path(path).read_text(encoding="utf-8")) if path else {}
    config.stash[STATE] = State(limits, Path(report) if report else None)


def pytest_collection_finish(session) -> None:
    """Once nbval holds every cell in memory, rewrite each graded notebook without its hidden checks."""
    if session.config.stash[STATE].report is None:
        return  # not a grading run
    import nbformat

    from ddp_lessons.base.exercise_format import is_hidden_check

    for path in {Path(str(item.fspath)) for item in session.items if hasattr(item, "cell_num")}:
        notebook = nbformat.read(path, as_version=4)
        kept = [cell for cell in notebook.cells if not is_hidden_check(cell)]
        if len(kept) != len(notebook.cells):
            notebook.cells = kept
            nbformat.write(notebook, path)


def pytest_runtest_call(item) -> None:
    """Before nbval runs a cell: note that it started, read the limit counters, watch the kernel."""
    if not hasattr(item, "cell_num"):
        return
    state = item.config.stash[STATE]
    item.stash[CELL_START] = CellStart(limit_hits(state.limits), terminal_bytes())
    append(state, CellRecord(item.cell_num, running=True))
    kernel = getattr(getattr(item, "parent", None), "kernel", None)
    if kernel is not None and id(kernel) not in state.watches:
        words = state.limits.get("words", {}).get("output", "")
        state.watches[id(kernel)] = watch_kernel(kernel, state.limits.get("output"), words)


def pytest_runtest_makereport(item, call) -> None:
    """Append the `CellRecord` of each cell that reached its run (with the limit it hit, if any)."""
    if call.when != "call" or not hasattr(item, "cell_num"):
        return
    state = item.config.stash[STATE]
    record = CellRecord(item.cell_num)
    if call.excinfo is not None:
        record.hint = failure_text(call.excinfo.value, getattr(item, "test_outputs", None))[:HINT_CHARS]
        record.error = first_line(record.hint, type(call.excinfo.value).__name__)
        record.crashed = isinstance(call.excinfo.value, (KernelDied, OverLimit))
        record.timed_out = record.error.startswith(_NBVAL_TIMEOUT)
    start = item.stash.get(CELL_START, CellStart({}, 0))
    state.terminal += max(0, terminal_bytes() - start.terminal)
    record.output = state.output(getattr(getattr(item, "parent", None), "kernel", None))
    limits = state.limits
    kind = limit_hit(limits, start.hits, record.error, call.excinfo)
    if kind is None and "output" in limits.get("words", {}) and record.output > limits["output"]:
        kind = "output"  # what its processes wrote straight to the terminal
    if kind is not None:
        words = f"{limits['words'][kind]} (the grader's limit)"
        record.limit, record.value = kind, limits.get("values", {}).get(kind)
        record.crashed, record.timed_out, record.error = True, False, words
        record.hint = words + (f"\n{record.hint}" if record.hint else "")
    append(state, record)


def append(state: State, record: CellRecord) -> None:
    """Append `record` to the report (when the grader asked for one)."""
    if state.report is not None:
        cells.append(state.report, record)


# --- which limit a cell hit -----------------------------------------------------------------------

def terminal_bytes() -> int:
    """Size of the file pytest's stdout goes to (the grader's log, which the kernel and the processes
    it starts inherit with ``pytest -s``); 0 when stdout is not a file."""
    with contextlib.suppress(OSError):
        return os.fstat(1).st_size
    return 0


DISK_ERRORS = ("[Errno 28] No space left on device", "[Errno 27] File too large")
"""What a write past the private /tmp's size or past RLIMIT_FSIZE raises in the student's code."""


def limit_hits(limits: dict) -> dict[str, int]:
    """The job cgroup's counters now: OOM kills and refused forks (empty without a cgroup)."""
    version = limits.get("cgroup")
    if version is None:
        return {}
    from ddp_lessons.grading import cgroups  # the standard library only: no torch in pytest

    if version == "v2":
        folder = cgroups.own_dir("v2")
        group = cgroups.Group("v2", {"memory": folder, "pids": folder} if folder else {})
    else:
        group = cgroups.Group("v1", {c: d for c in cgroups.CONTROLLERS if (d := cgroups.own_dir(c))})
    return group.hits()


def limit_hit(limits: dict, before: dict[str, int], error: str | None, excinfo) -> str | None:
    """The limit the cell hit, if any: output (counted here), memory and processes (cgroup counters
    rose), disk (the cell failed writing past a cap)."""
    words = limits.get("words", {})
    if excinfo is not None and isinstance(excinfo.value, OverLimit):
        return excinfo.value.kind
    after = limit_hits(limits)
    for kind in ("memory", "processes"):
        if kind in words and after.get(kind, 0) > before.get(kind, 0):
            return kind
    if "disk" in words and error and any(text in error for text in DISK_ERRORS):
        return "disk"
    return None


# --- the kernel: dead, flooding ---------------------------------------------------------------------

def output_bytes(message: dict) -> int:
    """Bytes of output an iopub message carries (streams, displays, results, errors)."""
    content, kind = message.get("content", {}), message.get("msg_type")
    if kind == "stream":
        return len(content.get("text", "").encode())
    if kind in ("display_data", "execute_result", "update_display_data"):
        return sum(len(v.encode()) if isinstance(v, str) else len(json.dumps(v))
                   for v in content.get("data", {}).values())
    if kind == "error":
        return sum(len(line.encode()) for line in content.get("traceback", []))
    return 0


class KernelWatch:
    """The watch on one kernel: waiting on a dead kernel raises `KernelDied` at once, and (with
    `output_limit`) output is counted as it comes; past the limit the kernel is killed and `OverLimit`
    raised. Messages read early are handed to nbval in order, when it asks."""

    def __init__(self, kernel, output_limit: int | None = None, output_words: str = ""):
        self.kernel, self.output_limit, self.output_words = kernel, output_limit, output_words
        self.output = 0
        self.early: deque = deque()  # iopub messages read while nbval waited on the shell channel
        self.wait = kernel.get_message

    def count(self, message: dict) -> dict:
        self.output += output_bytes(message)
        if self.output_limit is not None and self.output > self.output_limit:
            stop_kernel(self.kernel)
            # the limit's kind, and its words in English: the gradebook stores them (limits.Limits.words)
            raise OverLimit("output", self.output_words or said("output", self.output_limit, SOURCE))  # i18n: code
        return message

    def drain(self) -> None:
        while len(self.early) < 10_000:
            try:
                self.early.append(self.count(self.wait("iopub", timeout=0)))
            except Empty:
                return

    def get_message(self, stream, timeout=None):
        """nbval's ``kernel.get_message``, watched."""
        deadline = None if timeout is None else time.monotonic() + timeout
        poll = KERNEL_POLL if self.output_limit is None else OUTPUT_POLL
        while True:
            if stream == "iopub" and self.early:
                return self.early.popleft()
            if self.output_limit is not None and stream != "iopub":
                self.drain()
            left = poll if deadline is None else min(poll, deadline - time.monotonic())
            try:
                message = self.wait(stream, timeout=max(left, 0))
                return self.count(message) if stream == "iopub" else message
            except Empty:
                if not self.kernel.is_alive():
                    raise KernelDied(kernel_death(self.kernel)) from None
                if deadline is not None and time.monotonic() >= deadline:
                    raise


def watch_kernel(kernel, output_limit: int | None = None, output_words: str = "") -> KernelWatch:
    """Start watching `kernel` (see `KernelWatch`): its ``get_message`` becomes the watch's."""
    watch = KernelWatch(kernel, output_limit, output_words)
    raise_oom_score(kernel)
    kernel.get_message = watch.get_message
    return watch


def kernel_process(kernel):
    """The kernel's `subprocess.Popen`, or None where nbval or jupyter_client keep it elsewhere."""
    return getattr(getattr(getattr(kernel, "km", None), "provisioner", None), "process", None)


def raise_oom_score(kernel) -> None:
    """Make the kernel (and the ranks it will start) the out-of-memory killer's first choice."""
    process = kernel_process(kernel)
    with contextlib.suppress(OSError, AttributeError):
        with open(f"/proc/{process.pid}/oom_score_adj", "w") as adj:
            adj.write(str(KERNEL_OOM_SCORE_ADJ))


def stop_kernel(kernel) -> None:
    """SIGKILL the kernel's process group (its own session, as jupyter_client starts it), by pid."""
    process = kernel_process(kernel)
    if process is None:
        return
    with contextlib.suppress(OSError):
        if os.getpgid(process.pid) == process.pid:
            os.killpg(process.pid, signal.SIGKILL)
        else:
            os.kill(process.pid, signal.SIGKILL)


def kernel_death(kernel) -> str:
    """Why the kernel ended, in words: its exit code, or the signal that killed it."""
    process = kernel_process(kernel)
    code = None if process is None else process.poll()
    return f"crashed: the kernel died ({exit_reason(code)}) while this cell ran"


def exit_reason(code: int | None) -> str:
    """``exit code 1``, ``killed by SIGKILL, as the out-of-memory killer does``, or ``exit status unknown``."""
    if code is None:
        return "exit status unknown"
    if code >= 0:
        return f"exit code {code}"
    try:
        name = signal.Signals(-code).name
    except ValueError:
        name = f"signal {-code}"
    return f"killed by {name}" + (", as the out-of-memory killer does" if -code == signal.SIGKILL else "")


def failure_text(exc: BaseException, outputs: list | None) -> str:
    """Why a cell failed, as the student would see it: ``Ename: message`` for an exception, else nbval's reason."""
    message = str(exc).strip()
    errors = [out for out in outputs or [] if out.get("output_type") == "error"]
    if message == _NBVAL_EXCEPTION and errors:
        message = exception_text(errors[-1]["ename"], errors[-1]["evalue"].strip())
    return message or type(exc).__name__


def failure_line(exc: BaseException, outputs: list | None) -> str:
    """First line of why a cell failed (the gradebook's entry)."""
    return first_line(failure_text(exc, outputs), type(exc).__name__)


def first_line(text: str, fallback: str) -> str:
    """The first line of `text`, stripped, or `fallback` when there is none."""
    return text.strip().splitlines()[0].strip() if text.strip() else fallback
