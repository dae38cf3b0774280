"""Run a training script under torchrun from a notebook, safely (taught in every lesson).

`run_torchrun` is the one way the course starts distributed jobs:

* it runs ``sys.executable -m torch.distributed.run --standalone --nproc_per_node N script``
  (the kernel's own interpreter, a free rendezvous port on 127.0.0.1, never a fixed one);
* it streams every rank's lines live, prefixed ``[rank r]``, and prints them from Python so that
  Jupyter and nbval see them (child processes' own file descriptors are not captured there);
* it has a timeout, and on timeout or Jupyter's interrupt button it kills the whole process tree
  it started, by pid, and waits until no rank is left;
* on failure it raises `RankFailedError` naming the failing rank with the tail of its traceback.
"""

from __future__ import annotations

import contextlib
import os
import re
import socket
import subprocess
import sys
import threading
import time
import uuid
from dataclasses import dataclass, field
from pathlib import Path
from typing import Iterable, Mapping, Sequence

from ddp_lessons import backend as _backend
from ddp_lessons import processes
from ddp_lessons.records import RUN_DIR_ENV, new_run_dir

DEFAULT_TIMEOUT = 120.0
"""Seconds a run may take; well under the course's nbval cell timeout (300 s)."""

TAIL_LINES = 15
LOCAL_ADDR = "127.0.0.1"
"""Local runs rendezvous on loopback only: nothing listens on the machine's network addresses."""
PREFIX_ENV = "TORCHELASTIC_LOG_LINE_PREFIX_TEMPLATE"
"""torchrun prefixes each teed line with this template; the launcher asks for the global rank."""
RANK_MARK = "\x1e${rank}\x1f"
"""torchrun prefixes each teed piece of output with this; control characters no program prints."""
_RANK_MARK = re.compile("\x1e(\\d+)\x1f")
_EXCEPTION_LINE = re.compile(r"^[A-Za-z_][\w.]*(Error|Exception|Interrupt|Exit)\b.*")
_TORCH_RANK_TAG = re.compile(r"^\[rank\d+\]: ?")  # torch tags a rank's uncaught exception lines
_ROOT_CAUSE_RANK = re.compile(r"rank\s*:\s*(\d+)\s*\(local_rank")


class LaunchError(RuntimeError):
    """The job could not be started as asked (bad arguments or hardware)."""


class RankFailedError(RuntimeError):
    """A rank exited with an error; ``.ranks`` lists the failing ranks, first failure first."""

    def __init__(self, message: str, ranks: list[int], result: "RunResult"):
        super().__init__(message)
        self.ranks = ranks
        self.result = result


class RunTimeoutError(TimeoutError):
    """The job ran past its timeout (often a hang in a collective); every process was killed."""

    def __init__(self, message: str, result: "RunResult"):
        super().__init__(message)
        self.result = result


@dataclass
class RunResult:
    """What a finished run left behind: per-rank output, return code, wall time and run directory."""

    command: list[str]
    nproc: int
    run_dir: Path
    nnodes: int = 1
    returncode: int | None = None
    wall_seconds: float = 0.0
    rank_lines: dict[int, list[str]] = field(default_factory=dict)
    launcher_lines: list[str] = field(default_factory=list)
    pids: set[int] = field(default_factory=set)
    restarts: int = 0
    """Times torchrun restarted the workers after a failure (``max_restarts``; lesson 12)."""

    @property
    def world_size(self) -> int:
        """Ranks in the job: nnodes x nproc (per node)."""
        return self.nnodes * self.nproc

    def output(self, rank: int) -> str:
        """Everything rank `rank` printed (stdout and stderr), as one string."""
        return "\n".join(self.rank_lines.get(rank, []))

    @property
    def outputs(self) -> list[str]:
        """Each rank's output, sorted by rank."""
        return [self.output(r) for r in range(self.world_size)]

    def print_sorted(self) -> None:
        """Print every rank's lines grouped by rank (deterministic, unlike the live stream)."""
        for rank in range(self.world_size):
            for line in self.rank_lines.get(rank, []):
                print(f"[rank {rank}] {line}")


def torchrun_command(script: str | os.PathLike, nproc: int, args: Sequence[str] = (),
                     log_dir: str | os.PathLike | None = None, nnodes: int = 1,
                     rdzv_endpoint: str | None = None, rdzv_id: str = "ddp-course",
                     is_host: bool = True, max_restarts: int = 0) -> list[str]:
    """The exact command line `run_torchrun` executes (what you would type as ``torchrun ...``).

    One node: ``--standalone`` (a private rendezvous on a free local port). Simulated nodes: each
    agent joins a c10d rendezvous at `rdzv_endpoint`; the first one (`is_host`) hosts its store.
    """
    cmd = [sys.executable, "-m", "torch.distributed.run"]
    if nnodes == 1:
        cmd.append("--standalone")
    else:
        cmd += ["--nnodes", str(nnodes), "--rdzv-backend", "c10d", "--rdzv-endpoint", str(rdzv_endpoint),
                "--rdzv-id", rdzv_id, "--rdzv-conf", f"is_host={int(is_host)}"]
    cmd += ["--local-addr", LOCAL_ADDR, "--nproc_per_node", str(nproc), "--tee", "3"]
    if max_restarts:
        cmd += ["--max-restarts", str(max_restarts)]
    if log_dir is not None:
        cmd += ["--log-dir", str(log_dir)]
    return cmd + [str(script), *map(str, args)]


def free_port(host: str = LOCAL_ADDR) -> int:
    """A TCP port that is free on `host` right now (for a simulated multi-node rendezvous)."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.bind((host, 0))
        return sock.getsockname()[1]


def validate(script: str | os.PathLike, nproc: int, backend: str | None = None,
             gpu_count: int | None = None, nnodes: int = 1) -> None:
    """Raise `LaunchError` with a clear explanation when the run cannot work as asked."""
    if not isinstance(nproc, int) or nproc < 1:
        raise LaunchError(f"nproc must be a whole number >= 1 (one process per rank), got {nproc!r}")
    if not isinstance(nnodes, int) or nnodes < 1:
        raise LaunchError(f"nnodes must be a whole number >= 1, got {nnodes!r}")
    if not Path(script).is_file():
        raise LaunchError(f"training script not found: {script} "
                          f"(write it first, e.g. with %%writefile, relative to {os.getcwd()})")
    if backend is None:
        return
    if backend not in _backend.BACKENDS:
        raise LaunchError(f"unknown backend {backend!r}; choose one of {_backend.BACKENDS}")
    if backend == "nccl":
        gpus = _backend.gpu_count() if gpu_count is None else gpu_count
        ranks_here = nproc * nnodes  # simulated nodes share this machine's GPUs
        if gpus == 0:
            raise LaunchError("backend 'nccl' needs CUDA GPUs and this machine has none; "
                              "use backend='gloo' (or leave backend unset to choose automatically)")
        if ranks_here > gpus:
            raise LaunchError(
                f"backend 'nccl' needs one GPU per rank: {ranks_here} ranks but {gpus} GPU(s). NCCL "
                "refuses two ranks on one GPU ('Duplicate GPU detected'); use backend='gloo' to let "
                "several ranks share a GPU, or lower nproc")


def run_torchrun(script: str | os.PathLike, nproc: int = 2, args: Sequence[str] = (), *,
                 nnodes: int = 1, env: Mapping[str, str] | None = None,
                 timeout: float = DEFAULT_TIMEOUT, backend: str | None = None,
                 threads_per_rank: int | None = None, run_dir: str | os.PathLike | None = None,
                 echo: bool = True, max_restarts: int = 0) -> RunResult:
    """Run `script` on `nproc` ranks per node with torchrun; return a `RunResult` or raise.

    nnodes: simulate this many nodes on this machine (one torchrun agent each, rendezvous on
      127.0.0.1 at a free port); ranks are numbered node by node, LOCAL_RANK restarts per node.
    backend: force 'gloo' or 'nccl' (scripts read it via `ddp_lessons.backend.choose`); None = auto.
    threads_per_rank: CPU threads per rank; default max(1, cores // ranks on this machine).
    run_dir: where ranks write records; default a fresh folder under ./runs.
    echo: stream rank-prefixed lines live while the job runs.
    max_restarts: torchrun restarts all workers up to this many times after a failure
      (``--max-restarts``); ``result.restarts`` says how many restarts it took.
    """
    validate(script, nproc, backend, nnodes=nnodes)
    run_dir = Path(run_dir) if run_dir is not None else new_run_dir(Path(script).stem)
    run_dir.mkdir(parents=True, exist_ok=True)
    threads = threads_per_rank or _backend.threads_per_rank(nproc * nnodes)
    child_env = {**os.environ, "PYTHONUNBUFFERED": "1", "OMP_NUM_THREADS": str(threads),
                 PREFIX_ENV: RANK_MARK, RUN_DIR_ENV: str(run_dir.resolve()), **(env or {})}
    node_gpus = _split_gpus(nproc, nnodes)
    if nnodes > 1 and node_gpus is None and backend is None:
        backend = "gloo"  # too few GPUs for one per rank: simulated nodes share them via gloo
    if backend is not None:
        child_env[_backend.BACKEND_ENV] = backend
    endpoint = f"{LOCAL_ADDR}:{free_port()}" if nnodes > 1 else None
    rdzv_id = f"ddp-course-{uuid.uuid4().hex[:8]}"
    commands = [torchrun_command(script, nproc, args, log_dir=run_dir / "torchrun-logs" / f"node{n}",
                                 nnodes=nnodes, rdzv_endpoint=endpoint, rdzv_id=rdzv_id,
                                 is_host=n == 0, max_restarts=max_restarts)
                for n in range(nnodes)]
    result = RunResult(command=commands[0], nproc=nproc, nnodes=nnodes, run_dir=run_dir)

    start = time.perf_counter()
    lock = threading.Lock()
    tree = processes.Tree()
    agents, readers = [], []
    try:
        for cmd in commands:
            node_env = dict(child_env)
            if node_gpus is not None:  # each simulated node sees only its own GPUs, as cuda:0..
                node_env["CUDA_VISIBLE_DEVICES"] = node_gpus[len(agents)]
            agent = subprocess.Popen(cmd, env=node_env, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                                     stdin=subprocess.DEVNULL, text=True, errors="replace", bufsize=1)
            agents.append(agent)
            tree.scan(agent.pid)
            readers += [threading.Thread(target=_pump, args=(stream, result, lock, echo), daemon=True)
                        for stream in (agent.stdout, agent.stderr)]
            threading.Thread(target=_watch, args=(agent, tree), daemon=True).start()
        for reader in readers:
            reader.start()
        _wait(agents, tree, start + timeout)
    except subprocess.TimeoutExpired:
        _kill(agents, tree)
        _finish(result, agents, readers, tree, start)
        raise RunTimeoutError(_timeout_message(result, timeout), result) from None
    except BaseException:  # KeyboardInterrupt from Jupyter's stop button, or anything else
        _kill(agents, tree)
        _finish(result, agents, readers, tree, start)
        raise
    _finish(result, agents, readers, tree, start)
    if result.returncode != 0:
        ranks = failed_ranks(result)
        raise RankFailedError(_failure_message(result, ranks), ranks, result)
    return result


def _split_gpus(nproc: int, nnodes: int) -> list[str] | None:
    """CUDA_VISIBLE_DEVICES for each simulated node when every rank can have its own GPU, else None."""
    if nnodes == 1:
        return None
    visible = os.environ.get("CUDA_VISIBLE_DEVICES")
    ids = visible.split(",") if visible else [str(i) for i in range(_backend.gpu_count())]
    if len(ids) < nproc * nnodes:
        return None
    return [",".join(ids[n * nproc:(n + 1) * nproc]) for n in range(nnodes)]


def _wait(agents: list[subprocess.Popen], tree: processes.Tree, deadline: float,
          grace: float = 10.0) -> None:
    """Wait for every agent; once one fails, give the others `grace` seconds, then stop them."""
    while True:
        codes = [agent.poll() for agent in agents]
        if all(code is not None for code in codes):
            return
        if any(code not in (None, 0) for code in codes):
            deadline = min(deadline, time.perf_counter() + grace)
            if time.perf_counter() >= deadline:
                _kill(agents, tree)
                return
        if time.perf_counter() >= deadline:
            raise subprocess.TimeoutExpired("torchrun", deadline)
        time.sleep(0.05)


def _pump(stream, result: RunResult, lock: threading.Lock, echo: bool) -> None:
    """Read one torchrun stream, reassemble each rank's lines, file them under the rank, echo them.

    torchrun's tee copies a rank's log file to its own stream as it grows, so a line the rank
    wrote in two pieces can arrive in two pieces, with another rank's line in between. Each
    piece carries its rank's marker; a piece is a whole line only where the stream's line ends.
    """
    pending: dict[int, str] = {}

    def emit(rank: int, text: str) -> None:
        text = _TORCH_RANK_TAG.sub("", text, count=1)
        result.rank_lines.setdefault(rank, []).append(text)
        if echo:
            print(f"[rank {rank}] {text}", flush=True)

    for raw in stream:
        head, *pieces = _RANK_MARK.split(raw.rstrip("\r\n"))
        with lock:
            if head or not pieces:  # torchrun's own output
                result.launcher_lines.append(head)
                if echo and not _is_torchrun_noise(head):
                    print(f"[torchrun] {head}", flush=True)
            for i in range(0, len(pieces), 2):
                rank = int(pieces[i])
                pending[rank] = pending.get(rank, "") + pieces[i + 1]
                if i == len(pieces) - 2:
                    emit(rank, pending.pop(rank))
    with lock:
        for rank, text in sorted(pending.items()):
            emit(rank, text)


def _is_torchrun_noise(line: str) -> bool:
    """torchrun's own chatter that a student does not need to see live (kept in launcher_lines)."""
    return (not line.strip() or line.startswith(("*****", "Setting OMP_NUM_THREADS"))
            or bool(re.match(r"^[WIE]\d{4} ", line)))


def _watch(agent: subprocess.Popen, tree: processes.Tree) -> None:
    """Remember every process below `agent` while it runs, so a kill can reach all of them
    (even ranks whose torchrun parent died first and left them orphaned)."""
    while agent.poll() is None:
        tree.scan(agent.pid)
        time.sleep(0.5)


def _kill(agents: list[subprocess.Popen], tree: processes.Tree) -> None:
    """Kill the torchrun agents and every process seen below them; reap the agents."""
    tree.kill(agent.pid for agent in agents)
    for agent in agents:
        with contextlib.suppress(subprocess.TimeoutExpired):
            agent.wait(timeout=3)


def _finish(result: RunResult, agents: list[subprocess.Popen], readers: Iterable[threading.Thread],
            tree: processes.Tree, start: float) -> None:
    result.pids = tree.pids
    for reader in readers:
        reader.join(timeout=5)
    codes = [agent.returncode for agent in agents]
    result.returncode = next((code for code in codes if code != 0), 0) if None not in codes else None
    result.wall_seconds = time.perf_counter() - start
    result.restarts = count_restarts(result.run_dir / "torchrun-logs")


def count_restarts(log_root: Path) -> int:
    """Worker restarts torchrun made: it logs each attempt to ``<node>/<run id>/attempt_<n>``."""
    attempts = [int(p.name.split("_")[1]) for p in log_root.glob("*/*/attempt_*")]
    return max(attempts, default=0)


def failed_ranks(result: RunResult) -> list[int]:
    """Ranks that failed, root cause first: torchrun's report, else ranks that printed a traceback."""
    ranks: list[int] = []
    text = "\n".join(result.launcher_lines)
    root = text.split("Root Cause", 1)
    if len(root) == 2:
        ranks += [int(m) for m in _ROOT_CAUSE_RANK.findall(root[1])]
    ranks += [r for r in sorted(result.rank_lines) if "Traceback (most recent call last)"
              in result.output(r) and r not in ranks]
    return ranks


def _tail(lines: Sequence[str], n: int = TAIL_LINES) -> str:
    lines = list(lines)
    while lines and not lines[-1].strip():
        lines.pop()
    return "\n".join("    " + line for line in lines[-n:])


def _failure_message(result: RunResult, ranks: list[int]) -> str:
    if not ranks:
        return (f"torchrun exited with code {result.returncode} before any rank reported an error:\n"
                + _tail(result.launcher_lines))
    first = ranks[0]
    lines = result.rank_lines.get(first, [])
    start = max((i for i, line in enumerate(lines) if line.startswith("Traceback")), default=0)
    error = next((line for line in reversed(lines[start:]) if _EXCEPTION_LINE.match(line)), None)
    others = f" (also failed: {', '.join(map(str, ranks[1:]))})" if len(ranks) > 1 else ""
    return (f"rank {first} failed{': ' + error if error else ''}{others}\n"
            f"the end of its output:\n{_tail(lines[start:])}\n"
            f"(all output: result.rank_lines; run directory: {result.run_dir})")


def _timeout_message(result: RunResult, timeout: float) -> str:
    parts = [f"the job did not finish within {timeout:g} s and was killed (all {len(result.pids)} "
             "processes). A run that stops making progress is usually a hang: one rank waits in a "
             "collective (all_reduce, barrier, DDP's backward) that another rank never reaches. "
             "Rerun with env={'TORCH_DISTRIBUTED_DEBUG': 'DETAIL'} to see which collective."]
    for rank in range(result.world_size):
        lines = result.rank_lines.get(rank, [])
        parts.append(f"last output of rank {rank}:\n{_tail(lines, 5) if lines else '    (nothing)'}")
    return "\n".join(parts)
