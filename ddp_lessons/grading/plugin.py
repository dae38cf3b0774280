"""The grader's pytest plugin (``-p ddp_lessons.grading.plugin``), loaded in the process that runs a
submission under nbval: it writes each cell's outcome to a JSON-lines report, and it notices at once
when the kernel dies (``os._exit``, the out-of-memory killer) instead of waiting for the cell timeout.
"""

from __future__ import annotations

import json
import signal
import time
from queue import Empty

from ddp_lessons.tracebacks import exception_text

REPORT_OPTION = "--ddp-lessons-report"
KERNEL_POLL = 0.5
"""Seconds between checks that the kernel still lives while nbval waits for a message."""
HINT_CHARS = 2000
"""The most of a failure's text kept as the hint a student sees in their feedback."""
_NBVAL_EXCEPTION = "Cell execution caused an exception"
_NBVAL_TIMEOUT = "Timeout of"


class KernelDied(RuntimeError):
    """The notebook's kernel process ended while a cell ran."""


def pytest_addoption(parser) -> None:
    """Add the option naming the JSON-lines file that receives each cell's outcome."""
    parser.addoption(REPORT_OPTION, help="(ddp_lessons grading) append each cell's outcome here")


def pytest_runtest_call(item) -> None:
    """Before nbval runs a cell, make its kernel's message waits notice a dead kernel."""
    kernel = getattr(getattr(item, "parent", None), "kernel", None)
    if kernel is not None and hasattr(item, "cell_num"):
        watch_kernel(kernel)


def pytest_runtest_makereport(item, call) -> None:
    """Append ``{"cell", "error", "hint", "timed_out", "crashed"}`` for each cell that reached its run."""
    report = item.config.getoption(REPORT_OPTION)
    if report is None or call.when != "call" or not hasattr(item, "cell_num"):
        return
    record = {"cell": item.cell_num, "error": None, "hint": "", "timed_out": False, "crashed": False}
    if call.excinfo is not None:
        outputs = getattr(item, "test_outputs", None)
        record["hint"] = failure_text(call.excinfo.value, outputs)[:HINT_CHARS]
        record["error"] = first_line(record["hint"], type(call.excinfo.value).__name__)
        record["crashed"] = isinstance(call.excinfo.value, KernelDied)
        record["timed_out"] = record["error"].startswith(_NBVAL_TIMEOUT)
    with open(report, "a", encoding="utf-8") as out:
        out.write(json.dumps(record) + "\n")


def watch_kernel(kernel) -> None:
    """Wrap nbval's `kernel.get_message` so that waiting on a dead kernel raises `KernelDied` at once."""
    if getattr(kernel, "_ddp_lessons_watched", False):
        return
    wait = kernel.get_message

    def get_message(stream, timeout=None):
        deadline = None if timeout is None else time.monotonic() + timeout
        while True:
            left = KERNEL_POLL if deadline is None else min(KERNEL_POLL, deadline - time.monotonic())
            try:
                return wait(stream, timeout=max(left, 0))
            except Empty:
                if not kernel.is_alive():
                    raise KernelDied(kernel_death(kernel)) from None
                if deadline is not None and time.monotonic() >= deadline:
                    raise

    kernel.get_message = get_message
    kernel._ddp_lessons_watched = True


def kernel_death(kernel) -> str:
    """Why the kernel ended, in words: its exit code, or the signal that killed it."""
    process = getattr(getattr(getattr(kernel, "km", None), "provisioner", None), "process", None)
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
