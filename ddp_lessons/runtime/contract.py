"""The job contract: the environment a launched rank gets, and what it leaves in its run directory.

Every ``DDP_LESSONS_*`` and ``TORCHELASTIC_*`` name the course sets or reads is defined here, with
the run directory's layout and `rank_environment`, the one function that builds a rank's
environment (used by the launcher, live ranks and the stack probe). Inside a rank, `backend`,
`records` and the packaged scripts read these names. The rank hooks (``rank_hooks/sitecustomize.py``)
run before the package may be imported, so they spell their names out; tests/test_contract.py pins
those literals to this module.

This module imports nothing of the package, so every layer, a rank included, may read it.
"""

from __future__ import annotations

import os
import re
from pathlib import Path
from typing import Mapping

# -- set by the launcher (launch.run_torchrun, live ranks) for its ranks ---------------------------
RUN_DIR_ENV = "DDP_LESSONS_RUN_DIR"
"""The run directory; ranks write records there (`records`; under a bare torchrun: ./runs/manual)."""
BACKEND_ENV = "DDP_LESSONS_BACKEND"
"""Set (by the launcher's ``backend=`` argument) to force a backend instead of choosing one."""
BACKEND_REASON_ENV = "DDP_LESSONS_BACKEND_REASON"
"""Set by the launcher when it, not the student, decided the backend: why (e.g. simulated nodes)."""
THREADS_ENV = "DDP_LESSONS_THREADS"
"""The threads per rank the launcher planned for every rank on this machine."""
HOOKS_DIR = Path(__file__).parent / "rank_hooks"
"""Put first on the ranks' PYTHONPATH: its sitecustomize records the evidence `diagnose` and
`stacks` read (an uncaught exception, the faulthandler fallback of hang stacks)."""
HOOKED_ENV = "DDP_LESSONS_HOOKED"
"""Set by the rank hooks in the rank they run in (its pid), so the rank's own subprocesses keep out."""

# -- set by others, read by the course ---------------------------------------------------------------
CORES_ENV = "DDP_LESSONS_CORES"
"""Set (by the grader's ``--jobs``) to the cores one job may use, so parallel jobs divide the threads."""
KERNEL_PID_ENV = "DDP_LESSONS_LIVE_KERNEL_PID"
"""The pid of the notebook kernel that owns a live group; its processes end when it is gone."""
STACK_TOOL_ENV = "DDP_LESSONS_STACK_TOOL"
"""``py-spy``, ``faulthandler`` or ``auto`` (default): which tool takes a hung rank's stack."""
PROGRESS_MODE_ENV = "DDP_LESSONS_PROGRESS"
"""``text`` or ``widgets`` forces how live progress shows; unset: widgets where a frontend shows them."""
CRASH_AT_SAVE_ENV = "DDP_LESSONS_CRASH_AT_SAVE"
"""Exercise 12's check: rank 0 dies in the middle of its k-th ``torch.save`` (scripts/crash_during_snapshot)."""
LANGUAGE_ENV = "DDP_LESSONS_LANG"
"""``en`` or ``es``: the language hints and feedback speak (`i18n.language`); the grader sets it from the
notebook's metadata, a learner may set it to override."""
JOURNAL_ENV = "DDP_LESSONS_JOURNAL"
"""The learner's record (`ddp_lessons.journal`): a file path to keep it there, ``off`` to write none (the
test suite, the grader and `make course` set ``off`` for every kernel they start); unset, a learner's own
notebook kernel keeps it in ``my_progress.jsonl`` at the course's root."""
JOURNAL_OFF = ("off", "none", "0", "")
"""Values of `JOURNAL_ENV` that turn the record off."""
SESSION_ENV = "JPY_SESSION_NAME"
"""Set by a Jupyter server (JupyterLab, Notebook; VS Code too) in the kernel it starts for a notebook:
the notebook's path. nbval and nbclient (`make course`) start kernels without it."""

# -- torchrun's (torch.distributed.run) ---------------------------------------------------------------
PREFIX_ENV = "TORCHELASTIC_LOG_LINE_PREFIX_TEMPLATE"
"""torchrun prefixes each teed line with this template; the launcher asks for `RANK_MARK`."""
RANK_MARK = "\x1e${rank}\x1f"
"""The prefix the launcher asks for: the global rank between two control characters no program prints."""
RANK_MARK_PATTERN = re.compile(re.escape(RANK_MARK).replace(re.escape("${rank}"), r"(\d+)"))
"""`RANK_MARK` as torchrun writes it; group 1 is the rank."""
RUN_ID_ENV = "TORCHELASTIC_RUN_ID"
"""Set by torchrun in every rank: the rank hooks run only where it is set."""
RESTART_COUNT_ENV = "TORCHELASTIC_RESTART_COUNT"
"""Set by torchrun in every rank: how many times it restarted the workers so far."""
SEPARATE_STORE_ENV = "TORCH_DISABLE_SHARE_RDZV_TCP_STORE"
"""=1: each attempt's ranks get a fresh store instead of the rendezvous store (safe restarts)."""

# -- the run directory ---------------------------------------------------------------------------------
MANUAL_RUN_DIR = Path("runs") / "manual"
"""Where ranks write records when no launcher set `RUN_DIR_ENV` (a bare torchrun)."""
RECORD_FILE = "{name}.rank{rank}.json"
"""One rank's record `name` (`records.write`)."""
PROGRESS_RECORD = "progress"
"""The record name of live progress (``progress.rankR.json``, `records.progress`)."""
EVIDENCE_DIR = "diagnose"
"""The rank hooks' folder in the run directory."""
ERROR_FILE = "rank{rank}.error.json"
"""A rank's record of its uncaught exception: rank, time, type, message, traceback."""
EXIT_FILE = "rank{rank}.exit.json"
"""When a rank's Python exited through its normal shutdown (time, pid): a rank that left early."""
STACK_FILE = "rank{rank}.stack.txt"
"""Where a rank's faulthandler writes every thread's stack on SIGUSR1."""
TORCHRUN_LOGS = "torchrun-logs"
"""torchrun's own ``--log-dir``, one ``node<N>`` folder per agent (attempts, restarts)."""


def record_path(directory: str | os.PathLike, name: str, rank: int) -> Path:
    """The file of rank `rank`'s record `name` in `directory`."""
    return Path(directory) / RECORD_FILE.format(name=name, rank=rank)


def record_glob(name: str) -> str:
    """The glob pattern of every rank's record `name`."""
    return RECORD_FILE.format(name=name, rank="*")


def evidence_file(run_dir: str | os.PathLike, pattern: str, rank: int) -> Path:
    """A rank's file in the hooks' folder, e.g. ``evidence_file(run_dir, ERROR_FILE, 1)``."""
    return Path(run_dir) / EVIDENCE_DIR / pattern.format(rank=rank)


def evidence_files(run_dir: str | os.PathLike, pattern: str) -> list[Path]:
    """Every rank's file of one kind in the hooks' folder, e.g. ``evidence_files(run_dir, ERROR_FILE)``."""
    return sorted((Path(run_dir) / EVIDENCE_DIR).glob(pattern.format(rank="*")))


def torchrun_log_dir(run_dir: str | os.PathLike, node: int | None = None) -> Path:
    """torchrun's log folder in the run directory, or one agent's (`node`)."""
    logs = Path(run_dir) / TORCHRUN_LOGS
    return logs if node is None else logs / f"node{node}"


def rank_environment(run_dir: str | os.PathLike, threads: int, *, backend: str | None = None,
                     backend_reason: str | None = None, extra: Mapping[str, str] | None = None,
                     base: Mapping[str, str] | None = None) -> dict[str, str]:
    """The environment of a rank the course starts (through torchrun, which adds RANK and the rest).

    `base` (default: this process's environment), then unbuffered output, `threads` CPU threads,
    the rank marker on torchrun's teed lines, the run directory, then `extra` (the caller's own
    variables); the rank hooks first on PYTHONPATH; `backend` (and why, when the launcher decided it)
    last, so that they win.
    """
    env = {**(os.environ if base is None else base), "PYTHONUNBUFFERED": "1", "OMP_NUM_THREADS": str(threads),
           PREFIX_ENV: RANK_MARK, RUN_DIR_ENV: str(Path(run_dir).resolve()), THREADS_ENV: str(threads),
           **(extra or {})}
    env["PYTHONPATH"] = os.pathsep.join(p for p in (str(HOOKS_DIR), env.get("PYTHONPATH")) if p)
    env.pop(HOOKED_ENV, None)  # set in a rank that itself launches: its job's ranks are hooked anew
    if backend_reason is not None:
        env[BACKEND_REASON_ENV] = backend_reason
    if backend is not None:
        env[BACKEND_ENV] = backend
    return env
