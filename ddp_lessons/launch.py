"""Run a training script under torchrun from a notebook, safely (taught in every lesson).

`run_torchrun` is the one way the course starts distributed jobs:

* it runs ``sys.executable -m torch.distributed.run --standalone --nproc_per_node N script``
  (the kernel's own interpreter, a free rendezvous port on 127.0.0.1, never a fixed one);
* it streams every rank's lines live, prefixed ``[rank r]``, and prints them from Python so that
  Jupyter and nbval see them (child processes' own file descriptors are not captured there);
* it has a timeout, and on timeout or Jupyter's interrupt button it kills the whole process tree
  it started, by pid, and waits until no rank is left;
* on a timeout it first takes every live rank's Python stack (`ddp_lessons.runtime.stacks`) and says
  where each rank waits; on failure it names the root-cause rank (`ddp_lessons.runtime.diagnose`).
"""

from __future__ import annotations

import os
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
from ddp_lessons.runtime import diagnose, processes, stacks
from ddp_lessons.runtime.diagnose import RankFailedError, RunTimeoutError  # noqa: F401 (the launcher's API)
from ddp_lessons.runtime.rank_output import PREFIX_ENV, RANK_MARK, pump
from ddp_lessons.runtime import progress as _progress
from ddp_lessons.records import RUN_DIR_ENV, new_run_dir

DEFAULT_TIMEOUT = 120.0
"""Seconds a run may take; well under the course's nbval cell timeout (300 s)."""

LOCAL_ADDR = "127.0.0.1"
"""Local runs rendezvous on loopback only: nothing listens on the machine's network addresses."""
SEPARATE_STORE_ENV = "TORCH_DISABLE_SHARE_RDZV_TCP_STORE"
"""=1: each attempt's ranks get a fresh store instead of the rendezvous store (safe restarts)."""


class LaunchError(RuntimeError):
    """The job could not be started as asked (bad arguments or hardware)."""


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
    stacks: dict[int, str] = field(default_factory=dict)
    """On a timeout: each live rank's Python stack, taken before the kill."""
    stack_tool: str | None = None
    """"py-spy" or "faulthandler": what took `stacks`; None if nothing could (see `stack_note`)."""
    where: dict[int, str] = field(default_factory=dict)
    """On a timeout: {rank: one line}, the rank's innermost line of the script and the torch call."""
    stack_note: str = ""
    stack_seconds: float = 0.0
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
                 echo: bool = True, progress: bool = False, max_restarts: int = 0) -> RunResult:
    """Run `script` on `nproc` ranks per node with torchrun; return a `RunResult` or raise.

    nnodes: simulate this many nodes on this machine (one torchrun agent each, rendezvous on
      127.0.0.1 at a free port); ranks are numbered node by node, LOCAL_RANK restarts per node, and
      each node sees only its own GPUs (`_split_gpus`: disjoint sets, or none), as real nodes do.
    backend: force 'gloo' or 'nccl' (scripts read it via `ddp_lessons.backend.choose`); None = auto.
    threads_per_rank: CPU threads per rank; default max(1, cores // ranks on this machine).
    run_dir: where ranks write records; default a fresh folder under ./runs.
    echo: stream rank-prefixed lines live while the job runs.
    progress: show each rank's ``records.progress`` live (bars in JupyterLab, lines elsewhere).
    max_restarts: torchrun restarts all workers up to this many times after a failure
      (``--max-restarts``); ``result.restarts`` says how many restarts it took.
    """
    validate(script, nproc, backend, nnodes=nnodes)
    run_dir = Path(run_dir) if run_dir is not None else new_run_dir(Path(script).stem)
    run_dir.mkdir(parents=True, exist_ok=True)
    threads = threads_per_rank or _backend.threads_per_rank(nproc * nnodes)
    child_env = {**os.environ, "PYTHONUNBUFFERED": "1", "OMP_NUM_THREADS": str(threads),
                 PREFIX_ENV: RANK_MARK, RUN_DIR_ENV: str(run_dir.resolve()),
                 _backend.THREADS_ENV: str(threads), **(env or {})}
    child_env["PYTHONPATH"] = os.pathsep.join(  # ranks record evidence: see rank_hooks/
        p for p in (str(stacks.HOOKS_DIR), child_env.get("PYTHONPATH")) if p)
    node_gpus = _split_gpus(nproc, nnodes)
    if node_gpus is not None and not node_gpus[0] and _backend.gpu_count():
        child_env[_backend.BACKEND_REASON_ENV] = (
            f"{_backend.gpu_count()} GPU(s) cannot be split over {nnodes} simulated nodes, so no node "
            "sees one: gloo on CPU")
    if backend is not None:
        child_env[_backend.BACKEND_ENV] = backend
    if max_restarts:  # torch 2.13: restarted workers sharing the agent's store can read the failed
        child_env.setdefault(SEPARATE_STORE_ENV, "1")  # attempt's gloo addresses and fail; see lesson 12
    endpoint = f"{LOCAL_ADDR}:{free_port()}" if nnodes > 1 else None
    rdzv_id = f"ddp-course-{uuid.uuid4().hex[:8]}"
    commands = [torchrun_command(script, nproc, args, log_dir=run_dir / "torchrun-logs" / f"node{n}",
                                 nnodes=nnodes, rdzv_endpoint=endpoint, rdzv_id=rdzv_id,
                                 is_host=n == 0, max_restarts=max_restarts)
                for n in range(nnodes)]
    result = RunResult(command=commands[0], nproc=nproc, nnodes=nnodes, run_dir=run_dir)

    watcher = _progress.Watcher(run_dir, nproc * nnodes).start() if progress else None
    start, deadline = time.perf_counter(), time.monotonic() + timeout
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
            readers += [threading.Thread(target=pump, args=(stream, result, lock, echo), daemon=True)
                        for stream in (agent.stdout, agent.stderr)]
        for reader in readers:
            reader.start()
        _wait(agents, tree, deadline)
    except subprocess.TimeoutExpired:
        try:  # where is each rank stuck? (ask before the kill; even a stop press must not skip it)
            stacks.take(result, [agent.pid for agent in agents], script)
        finally:
            processes.stop(agents, tree)
            _finish(result, agents, readers, tree, start)
        raise RunTimeoutError(diagnose.timeout_message(result, timeout), result) from None
    except BaseException:  # KeyboardInterrupt from Jupyter's stop button, or anything else
        processes.stop(agents, tree)
        _finish(result, agents, readers, tree, start)
        raise
    finally:
        if watcher is not None:
            watcher.stop(ok=all(agent.returncode == 0 for agent in agents))
    _finish(result, agents, readers, tree, start)
    if result.returncode != 0:
        raise RankFailedError.of(result)
    return result


def _split_gpus(nproc: int, nnodes: int) -> list[str] | None:
    """CUDA_VISIBLE_DEVICES for each simulated node: disjoint sets of this machine's GPUs, as real
    nodes have, at most `nproc` each ("" when there are fewer GPUs than nodes); None for one node."""
    if nnodes == 1:
        return None
    visible = os.environ.get("CUDA_VISIBLE_DEVICES")
    ids = visible.split(",") if visible else [str(i) for i in range(_backend.gpu_count())]
    per_node = min(nproc, len(ids) // nnodes)
    return [",".join(ids[n * per_node:(n + 1) * per_node]) for n in range(nnodes)]


def _wait(agents: list[subprocess.Popen], tree: processes.Tree, deadline: float,
          grace: float = 10.0) -> None:
    """Wait for every agent; once one fails, give the others `grace` seconds, then stop them.
    Raise `subprocess.TimeoutExpired` at `deadline` (`time.monotonic()`), the processes left running."""
    if processes.wait(agents, tree, deadline, grace=grace):
        return
    if any(agent.poll() not in (None, 0) for agent in agents):
        processes.stop(agents, tree)  # a failed rank's peers outlived their grace period
        return
    raise subprocess.TimeoutExpired("torchrun", deadline)


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

