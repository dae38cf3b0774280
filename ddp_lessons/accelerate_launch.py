"""`accelerate launch` from a notebook cell: its command line, and a run that captures its output,
has a timeout and stops every process it started, by pid (taught in lesson 14).

`accelerate launch --multi_gpu` starts torchrun's elastic agent in its own process (it calls
``torch.distributed.run``), so its workers are ordinary torchrun workers. The course's own
launcher, `ddp_lessons.launch.run_torchrun`, runs the same kind of job with per-rank output and
errors that name the failing rank; this module exists to show that the two are the same.
"""

from __future__ import annotations

import os
import re
import sys
import time
from dataclasses import dataclass, field
from typing import IO, Mapping, Sequence

from ddp_lessons import backend, i18n, tracebacks
from ddp_lessons.i18n import tr
from ddp_lessons.runtime import processes, signatures
from ddp_lessons.runtime.contract import LANGUAGE_ENV, PREFIX_ENV
from ddp_lessons.runtime.rank_output import tail

DEFAULT_TIMEOUT = 120.0
RANK_PREFIX = {PREFIX_ENV: "[rank ${rank}] "}
"""torchrun's prefix for each worker line it copies (read by torch.distributed.run, under accelerate too)."""
TAIL_LINES = 12
"""How many of its last lines a failed run's error shows."""
_RANK_LINE = re.compile(r"^\[rank (\d+)\] (.*)")


@dataclass
class AccelerateRun:
    """A finished `accelerate launch`: its command, return code, output lines and wall time."""

    command: list[str]
    returncode: int | None = None
    lines: list[str] = field(default_factory=list)
    wall_seconds: float = 0.0
    pids: set[int] = field(default_factory=set)


class AccelerateLaunchError(RuntimeError):
    """`accelerate launch` failed or ran past its timeout; ``.run`` holds what it printed."""

    def __init__(self, message: str, run: AccelerateRun):
        super().__init__(message)
        self.run = run


class AccelerateFailedError(AccelerateLaunchError):
    """`accelerate launch` exited with an error (a rank failed); the message names the first rank's error."""


class AccelerateTimeoutError(AccelerateLaunchError, TimeoutError):
    """`accelerate launch` ran past its timeout (often a hang) and every process of it was killed."""


def accelerate_command(script: str | os.PathLike, nproc: int = 2, args: Sequence[str] = (),
                       mixed_precision: str = "no") -> list[str]:
    """The `accelerate launch` command for `nproc` processes on this machine, run by this interpreter.

    ``--multi_gpu`` selects accelerate's torchrun launcher (the name is historical: on a machine
    without GPUs the script must ask for the CPU, ``Accelerator(cpu=True)``); port 0 asks accelerate
    for a free port, as ``--standalone`` does for torchrun. Every setting is given, so a config file
    in ~/.cache/huggingface cannot change the run. ``--tee 3`` makes torchrun copy each worker's
    output line by line, prefixed with its rank (see `RANK_PREFIX`).
    """
    return [sys.executable, "-m", "accelerate.commands.launch", "--multi_gpu",
            "--num_processes", str(nproc), "--num_machines", "1", "--mixed_precision", mixed_precision,
            "--dynamo_backend", "no", "--main_process_ip", "127.0.0.1", "--main_process_port", "0",
            "--tee", "3", str(script), *map(str, args)]


def run_accelerate(script: str | os.PathLike, nproc: int = 2, args: Sequence[str] = (), *,
                   mixed_precision: str = "no", timeout: float = DEFAULT_TIMEOUT,
                   env: Mapping[str, str] | None = None, echo: bool = True) -> AccelerateRun:
    """Run `accelerate launch` on `script`; print its lines as they come; return or raise.

    On timeout, failure or Jupyter's stop button every process of the run is stopped, by pid
    (`AccelerateTimeoutError` or `AccelerateFailedError`, both `AccelerateLaunchError`s).
    """
    run = AccelerateRun(accelerate_command(script, nproc, args, mixed_precision))
    child_env = {**os.environ, "PYTHONUNBUFFERED": "1",
                 "OMP_NUM_THREADS": str(backend.threads_per_rank(nproc)), **RANK_PREFIX, **(env or {})}
    child_env.setdefault(LANGUAGE_ENV, i18n.language())  # ranks speak the notebook's language
    start = time.perf_counter()
    job = processes.Job()
    try:  # the deadline, or KeyboardInterrupt from Jupyter's stop button: stop every process seen
        job.start(run.command, child_env, lambda stream: _read(stream, run, echo), merge_stderr=True)
        finished = job.wait(time.monotonic() + timeout)
    finally:
        job.stop()  # also workers left behind by a failed agent, if any
        job.finish()
        run.returncode, run.pids = job.returncodes[0] if job.procs else None, job.tree.pids
        run.wall_seconds = time.perf_counter() - start
    if not finished:
        raise AccelerateTimeoutError(tr("accelerate launch did not finish within {timeout:g} s and was killed (all "
                                        "{count} processes)", timeout=timeout, count=len(run.pids)), run)
    if run.returncode != 0:
        raise AccelerateFailedError(failure_message(run), run)
    return run


def failure_message(run: AccelerateRun) -> str:
    """`AccelerateFailedError`'s text: the exit code, the first rank's error, what that error means when
    it is one learners meet (`runtime.signatures`), and the end of the output."""
    error = first_error(run)
    explained = signatures.explain(error)
    return (tr("accelerate launch exited with code {code}{error};", code=run.returncode, error=error) + " "
            + (f"{explained}; " if explained else "") + tr("the end of its output:") + "\n" + tail(run.lines, TAIL_LINES))


def first_error(run: AccelerateRun) -> str:
    """': rank R: <the exception line>' for the first rank that printed an exception, else ''."""
    for line in run.lines:
        match = _RANK_LINE.match(line)
        parsed = tracebacks.parse_exception(match[2]) if match else None
        if parsed is not None:
            return f": rank {match[1]}: {tracebacks.exception_text(*parsed)}"
    return ""


def _read(stream: IO[str], run: AccelerateRun, echo: bool) -> None:
    """Collect the launcher's lines (its workers share its stdout) and print them from Python."""
    for line in stream:
        run.lines.append(line.rstrip("\r\n"))
        if echo:
            print(run.lines[-1], flush=True)
