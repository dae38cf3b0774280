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
from typing import Mapping, Sequence

from ddp_lessons import backend as _backend
from ddp_lessons import i18n
from ddp_lessons.base.exercise_format import holds_stub
from ddp_lessons.i18n import tr
from ddp_lessons.records import new_run_dir
from ddp_lessons.runtime import contract, diagnose, processes, stacks
from ddp_lessons.runtime import progress as _progress
from ddp_lessons.runtime.diagnose import RankFailedError, RunTimeoutError  # noqa: F401 (the launcher's API)
from ddp_lessons.runtime.hang_report import HangFields, HangReport, capture
from ddp_lessons.runtime.rank_output import pump

DEFAULT_TIMEOUT = 120.0
"""Seconds a run may take; well under the course's nbval cell timeout (300 s)."""

LOCAL_ADDR = "127.0.0.1"
"""Local runs rendezvous on loopback only: nothing listens on the machine's network addresses."""


class LaunchError(RuntimeError):
    """The job could not be started as asked (bad arguments or hardware)."""


@dataclass
class RunResult(HangFields):
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
    hang: HangReport = field(default_factory=HangReport)
    """On a timeout: where each live rank was, taken before the kill (also as ``.stacks``, ``.where``)."""
    restarts: int = 0
    """Times torchrun restarted the workers after a failure (``max_restarts``; lesson 12)."""
    started_at: float | None = None
    """When the launcher started the job (``time.time()``): the diagnosis says when a rank left, after it."""

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
        raise LaunchError(tr("nproc must be a whole number >= 1 (one process per rank), got {nproc!r}", nproc=nproc))
    if not isinstance(nnodes, int) or nnodes < 1:
        raise LaunchError(tr("nnodes must be a whole number >= 1, got {nnodes!r}", nnodes=nnodes))
    if not Path(script).is_file():
        raise LaunchError(tr("training script not found: {script} (write it first, e.g. with %%writefile, relative "
                             "to {folder})", script=script, folder=os.getcwd()))
    if holds_stub(Path(script).read_text(encoding="utf-8", errors="replace")):
        raise LaunchError(tr("{script} still raises NotImplementedError where it says `# YOUR CODE HERE`: write your "
                             "code there and run its %%writefile cell again (nothing was launched: every rank would "
                             "stop there)", script=script))
    if backend is None:
        return
    if backend not in _backend.BACKENDS:
        raise LaunchError(tr("unknown backend {backend!r}; choose one of {choices}", backend=backend,
                             choices=_backend.BACKENDS))
    if backend == "nccl":
        gpus = _backend.gpu_count() if gpu_count is None else gpu_count
        ranks_here = nproc * nnodes  # simulated nodes share this machine's GPUs
        if gpus == 0:
            raise LaunchError(tr("backend 'nccl' needs CUDA GPUs and this machine has none; "
                                 "use backend='gloo' (or leave backend unset to choose automatically)"))
        if ranks_here > gpus:
            raise LaunchError(tr(
                "backend 'nccl' needs one GPU per rank: {ranks} ranks but {gpus} GPU(s). NCCL refuses two ranks on "
                "one GPU ('Duplicate GPU detected'); use backend='gloo' to let several ranks share a GPU, or lower "
                "nproc", ranks=ranks_here, gpus=gpus))


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
    node_envs = _node_environments(run_dir, nproc, nnodes, env, backend, threads_per_rank, max_restarts)
    commands = _node_commands(script, nproc, args, run_dir, nnodes, max_restarts)
    result = RunResult(command=commands[0], nproc=nproc, nnodes=nnodes, run_dir=run_dir, started_at=time.time())
    watcher = _progress.Watcher(run_dir, nproc * nnodes).start() if progress else None
    job = processes.Job()
    try:
        _supervise(job, result, commands, node_envs, script, timeout, echo)
    finally:
        if watcher is not None:
            watcher.stop(ok=all(code == 0 for code in job.returncodes))
    if result.returncode != 0:
        raise RankFailedError.of(result)
    return result


def _node_environments(run_dir: Path, nproc: int, nnodes: int, env: Mapping[str, str] | None,
                       backend: str | None, threads_per_rank: int | None, max_restarts: int) -> list[dict]:
    """Each torchrun agent's environment (the job contract's rank environment, plus its node's GPUs)."""
    threads = threads_per_rank or _backend.threads_per_rank(nproc * nnodes)
    node_gpus = _split_gpus(nproc, nnodes)
    reason = None
    if node_gpus is not None and not node_gpus[0] and _backend.gpu_count():
        reason = tr("{gpus} GPU(s) cannot be split over {nodes} simulated nodes, so no node sees one: gloo on CPU",
                    gpus=_backend.gpu_count(), nodes=nnodes)
    child_env = contract.rank_environment(run_dir, threads, backend=backend, backend_reason=reason, extra=env)
    child_env.setdefault(contract.LANGUAGE_ENV, i18n.language())  # ranks speak the notebook's language
    if max_restarts:  # torch 2.13: restarted workers sharing the agent's store can read the failed
        child_env.setdefault(contract.SEPARATE_STORE_ENV, "1")  # attempt's gloo addresses and fail; lesson 12
    if node_gpus is None:
        return [child_env] * nnodes
    # each simulated node sees only its own GPUs, as cuda:0..
    return [{**child_env, "CUDA_VISIBLE_DEVICES": gpus} for gpus in node_gpus]


def _node_commands(script: str | os.PathLike, nproc: int, args: Sequence[str], run_dir: Path, nnodes: int,
                   max_restarts: int) -> list[list[str]]:
    """One torchrun command per (simulated) node; the first hosts the rendezvous."""
    endpoint = f"{LOCAL_ADDR}:{free_port()}" if nnodes > 1 else None
    rdzv_id = f"ddp-course-{uuid.uuid4().hex[:8]}"
    return [torchrun_command(script, nproc, args, log_dir=contract.torchrun_log_dir(run_dir, n), nnodes=nnodes,
                             rdzv_endpoint=endpoint, rdzv_id=rdzv_id, is_host=n == 0, max_restarts=max_restarts)
            for n in range(nnodes)]


def _supervise(job: processes.Job, result: RunResult, commands: list[list[str]], node_envs: list[dict],
               script: str | os.PathLike, timeout: float, echo: bool) -> None:
    """Start the agents, stream their output into `result`, wait; on a timeout, Jupyter's stop button
    or any error, stop every process of the job (on a timeout after taking each rank's stack)."""
    start, deadline = time.perf_counter(), time.monotonic() + timeout
    lock = threading.Lock()
    try:
        for command, node_env in zip(commands, node_envs):
            job.start(command, node_env, lambda stream: pump(stream, result, lock, echo))
        _wait(job, deadline)
    except subprocess.TimeoutExpired:
        try:  # where is each rank stuck? (ask before the kill; even a stop press must not skip it)
            live = stacks.rank_pids(proc.pid for proc in job.procs)
            result.hang = capture(live, result.run_dir, locate=lambda text: stacks.where(text, script))
            result.hang.exited = diagnose.exited_ranks(result, alive=live)
        finally:
            job.stop()
            _finish(result, job, start)
        raise RunTimeoutError(diagnose.timeout_message(result, timeout), result) from None
    except BaseException:  # KeyboardInterrupt from Jupyter's stop button, or anything else
        job.stop()
        _finish(result, job, start)
        raise
    _finish(result, job, start)


def _split_gpus(nproc: int, nnodes: int) -> list[str] | None:
    """CUDA_VISIBLE_DEVICES for each simulated node: disjoint sets of this machine's GPUs, as real
    nodes have, at most `nproc` each ("" when there are fewer GPUs than nodes); None for one node."""
    if nnodes == 1:
        return None
    visible = os.environ.get("CUDA_VISIBLE_DEVICES")
    ids = visible.split(",") if visible else [str(i) for i in range(_backend.gpu_count())]
    per_node = min(nproc, len(ids) // nnodes)
    return [",".join(ids[n * per_node:(n + 1) * per_node]) for n in range(nnodes)]


def _wait(job: processes.Job, deadline: float, grace: float = 10.0) -> None:
    """Wait for every agent; once one fails, give the others `grace` seconds, then stop them.
    Raise `subprocess.TimeoutExpired` at `deadline` (`time.monotonic()`), the processes left running."""
    if job.wait(deadline, grace=grace):
        return
    if job.failed:
        job.stop()  # a failed rank's peers outlived their grace period
        return
    raise subprocess.TimeoutExpired("torchrun", deadline)


def _finish(result: RunResult, job: processes.Job, start: float) -> None:
    result.pids = job.tree.pids
    job.finish()
    codes = job.returncodes
    result.returncode = next((code for code in codes if code != 0), 0) if None not in codes else None
    result.wall_seconds = time.perf_counter() - start
    result.restarts = count_restarts(contract.torchrun_log_dir(result.run_dir))


def count_restarts(log_root: Path) -> int:
    """Worker restarts torchrun made: it logs each attempt to ``<node>/<run id>/attempt_<n>``."""
    attempts = [int(p.name.split("_")[1]) for p in log_root.glob("*/*/attempt_*")]
    return max(attempts, default=0)
