"""A persistent group of ranks: torchrun starts ipyparallel engines that have joined the process
group, and the notebook runs code on them cell by cell (used by ``%%ranks``; see docs/LIVE.md).

Processes, all tracked by pid in one `processes.Tree` and killed by pid:

* the controller, ``python -m ddp_lessons.live.controller`` (ipyparallel's, threads only);
* the torchrun agent, built by `launch.torchrun_command`, its ranks' environment the launcher's
  (`contract.rank_environment`);
* under it, one ``live/worker.py`` per rank: ``init_process_group``, then an ipyparallel engine.

Workers and controller also watch the kernel's pid and exit when it is gone. This class owns the
processes (start, stop, restart, interrupt); `cells.CellRunner` runs the cells on them.
"""

from __future__ import annotations

import atexit
import contextlib
import json
import os
import signal
import subprocess
import sys
import threading
import time
import uuid
from pathlib import Path
from typing import Mapping, Sequence

from ddp_lessons import backend as _backend
from ddp_lessons import i18n, launch
from ddp_lessons.i18n import tr
from ddp_lessons.live.cells import CellRunner
from ddp_lessons.live.results import CellResult, LiveError
from ddp_lessons.records import new_run_dir
from ddp_lessons.runtime import contract, processes

WORKER = Path(__file__).with_name("worker.py")
DEFAULT_CELL_TIMEOUT = launch.DEFAULT_TIMEOUT
START_TIMEOUT = 180.0


class RankGroup:
    """`nproc` ranks kept running under torchrun, each an ipyparallel engine in the process group."""

    def __init__(self, nproc: int = 2, *, backend: str | None = None, threads_per_rank: int | None = None,
                 env: Mapping[str, str] | None = None, cell_timeout: float = DEFAULT_CELL_TIMEOUT,
                 start_timeout: float = START_TIMEOUT, runs_root: str | os.PathLike = "runs"):
        if not isinstance(nproc, int) or nproc < 1:
            raise LiveError(tr("nproc must be a whole number >= 1 (one process per rank), got {nproc!r}", nproc=nproc))
        launch.validate(WORKER, nproc, backend)
        self.nproc, self.backend, self.env = nproc, backend, dict(env or {})
        self.threads = threads_per_rank or _backend.threads_per_rank(nproc)
        self.cell_timeout, self.start_timeout, self.runs_root = cell_timeout, start_timeout, runs_root
        self.tree = processes.Tree()
        self.client = None
        self.engines: dict[int, int] = {}  # rank -> engine id
        self.pids: dict[int, int] = {}  # rank -> worker pid
        self.describe: dict[int, str] = {}  # rank -> backend.choose().describe()
        self.run_dir: Path | None = None
        self._controller: subprocess.Popen | None = None
        self._agent: subprocess.Popen | None = None
        self._logs: list = []
        self._running = threading.Event()
        self.cells = CellRunner(self)
        """Runs cells on the ranks (`execute`, `evaluate`, `gather` below hand them to it)."""

    # -- lifecycle -------------------------------------------------------------------------------
    @property
    def running(self) -> bool:
        """Whether the group is up: started, not stopped, its torchrun agent alive."""
        return self._running.is_set() and self._agent is not None and self._agent.poll() is None

    @property
    def ranks(self) -> list[int]:
        """Every rank of the group, in order."""
        return list(range(self.nproc))

    def start(self) -> "RankGroup":
        """Start controller and torchrun job; return once every rank has joined and registered."""
        import ipyparallel

        self.run_dir = new_run_dir("live", self.runs_root).resolve()
        profile, cluster_id = self.run_dir / "ipython", f"ddp-live-{uuid.uuid4().hex[:8]}"
        profile.mkdir()
        common = {**os.environ, "PYTHONUNBUFFERED": "1", contract.KERNEL_PID_ENV: str(os.getpid()),
                  contract.LANGUAGE_ENV: os.environ.get(contract.LANGUAGE_ENV) or i18n.language()}
        ipp_args = [f"--profile-dir={profile}", f"--cluster-id={cluster_id}", "--log-level=WARN"]
        self._running.set()
        atexit.register(self.stop)
        try:
            self._controller = self._spawn(
                [sys.executable, "-m", "ddp_lessons.live.controller", *ipp_args,
                 f"--ip={launch.LOCAL_ADDR}", "--usethreads"], common, "controller.log")
            rank_env = contract.rank_environment(self.run_dir, self.threads, backend=self.backend,
                                                 extra=self.env, base=common)
            command = launch.torchrun_command(WORKER, self.nproc, ipp_args,
                                              log_dir=contract.torchrun_log_dir(self.run_dir))
            self._agent = self._spawn(command, rank_env, "torchrun.log")
            threading.Thread(target=self._watch, daemon=True, name="ddp-live-watch").start()
            client_file = profile / "security" / f"ipcontroller-{cluster_id}-client.json"
            deadline = time.monotonic() + self.start_timeout
            self._wait_until(lambda: _whole_json(client_file), deadline,
                             tr("the controller to write its connection file"))
            self.client = ipyparallel.Client(str(client_file), timeout=max(5.0, deadline - time.monotonic()))
            self._wait_until(lambda: len(self.client.ids) >= self.nproc, deadline,
                             tr("{count} ranks to join the process group and register", count=self.nproc))
            self._map_ranks()
        except BaseException:
            self.stop()
            raise
        return self

    def _spawn(self, command: list[str], env: dict, log_name: str) -> subprocess.Popen:
        log = open(self.run_dir / log_name, "wb")
        self._logs.append(log)
        # A session of its own: Jupyter's interrupt signals the kernel's whole process group, which
        # would stop torchrun and the controller; the kernel forwards SIGINT to the ranks instead.
        child = subprocess.Popen(command, env=env, stdin=subprocess.DEVNULL, stdout=log,
                                 stderr=subprocess.STDOUT, start_new_session=True)
        self.tree.scan(child.pid)
        return child

    def _watch(self) -> None:
        """Remember every process below controller and agent while the group runs (for the kill)."""
        while self._running.is_set():
            for child in (self._controller, self._agent):
                if child is not None and child.poll() is None:
                    self.tree.scan(child.pid)
            time.sleep(0.5)

    def _wait_until(self, ready, deadline: float, what: str) -> None:
        while not ready():
            for name, child in (("controller", self._controller), ("torchrun", self._agent)):
                if child is not None and child.poll() is not None:
                    who = tr("the controller") if name == "controller" else tr("the torchrun agent")
                    raise LiveError(tr("{who} exited with code {code} while waiting for {what}; the end of its log:",
                                       who=who, code=child.returncode, what=what)
                                    + "\n" + self.log_tail(name))
            if time.monotonic() > deadline:
                raise LiveError(tr("timed out after {timeout:g} s waiting for {what}; the end of torchrun's log:",
                                   timeout=self.start_timeout, what=what) + "\n" + self.log_tail("torchrun"))
            time.sleep(0.1)

    def _map_ranks(self) -> None:
        """Ask every engine which rank and pid it is (engine ids need not equal ranks)."""
        reports = self.client[:].apply_async(_identify).get_dict(timeout=self.start_timeout)
        by_rank = {report["rank"]: (engine, report) for engine, report in reports.items()}
        if sorted(by_rank) != self.ranks:
            raise LiveError(tr("engines reported ranks {got}, expected {expected}", got=sorted(by_rank),
                               expected=self.ranks))
        for rank, (engine, report) in sorted(by_rank.items()):
            self.engines[rank], self.pids[rank] = engine, report["pid"]
            self.describe[rank] = report["describe"]

    def log_tail(self, name: str = "torchrun", lines: int = 15) -> str:
        """The last `lines` lines of the controller's or torchrun's log, rank markers made readable."""
        path = self.run_dir / f"{name}.log" if self.run_dir else None
        if path is None or not path.exists():
            return tr("    (no log)")
        text = contract.RANK_MARK_PATTERN.sub(lambda m: f"[rank {m.group(1)}] ", path.read_text(errors="replace"))
        return "\n".join("    " + line for line in text.splitlines()[-lines:])

    def stop(self) -> None:
        """Stop every process of the group by pid (SIGTERM, then SIGKILL); safe to call twice."""
        self._running.clear()
        with contextlib.suppress(Exception):
            atexit.unregister(self.stop)
        if self.client is not None:
            with contextlib.suppress(Exception):
                self.client.close(linger=0)
            self.client = None
        self.tree.kill([c.pid for c in (self._controller, self._agent) if c is not None])
        for child in (self._controller, self._agent):
            if child is not None:
                with contextlib.suppress(Exception):
                    child.wait(timeout=5)
        for log in self._logs:
            log.close()
        self._logs.clear()

    def restart(self) -> "RankGroup":
        """Stop this group and start a fresh one with the same settings (variables are lost)."""
        self.stop()
        self.tree = processes.Tree()
        self.engines, self.pids, self.describe = {}, {}, {}
        return self.start()

    # -- running cells (live/cells.py) -----------------------------------------------------------
    def execute(self, code: str, ranks: Sequence[int] | None = None, timeout: float | None = None) -> CellResult:
        """Run `code` on `ranks` (default all); wait; return each rank's output, result and state."""
        return self.cells.execute(code, ranks, timeout)

    def evaluate(self, expression: str, ranks: Sequence[int] | None = None,
                 timeout: float | None = None) -> CellResult:
        """Evaluate `expression` on `ranks`; each rank's value is in ``.outputs[i].value``."""
        return self.cells.evaluate(expression, ranks, timeout)

    def gather(self, expression: str, ranks: Sequence[int] | None = None, timeout: float | None = None) -> list:
        """The value of `expression` on each rank, as a list in rank order (raises if a rank fails)."""
        return self.cells.gather(expression, ranks, timeout)

    @property
    def last_result(self) -> CellResult | None:
        """The last cell's `CellResult` (after a timeout: ``.stacks`` and ``.where`` per rank)."""
        return self.cells.last_result

    @last_result.setter
    def last_result(self, result: CellResult | None) -> None:
        self.cells.last_result = result

    def interrupt(self, ranks: Sequence[int] | None = None) -> None:
        """Send SIGINT to the given ranks' workers by pid (a KeyboardInterrupt in their cell)."""
        for rank in self.ranks if ranks is None else ranks:
            with contextlib.suppress(Exception):
                os.kill(self.pids[rank], signal.SIGINT)

    def status(self) -> str:
        """One line per rank: its pid and backend, or that the group is not running."""
        if not self.running:
            return tr("no live ranks running")
        return "\n".join(f"[rank {r}] pid {self.pids[r]}, engine {self.engines[r]}: {self.describe[r]}"
                         for r in self.ranks)


def _whole_json(path: Path) -> bool:
    """Whether `path` holds a whole JSON document (the controller writes its connection file in place,
    so the file can exist, still empty, when the client would read it)."""
    try:
        json.loads(path.read_text())
    except (OSError, ValueError):
        return False
    return True


def _identify() -> dict:
    """(runs on a rank) Which rank and pid this engine is, and the backend it chose."""
    import os

    import torch.distributed as dist

    from ddp_lessons import backend

    return {"rank": dist.get_rank(), "pid": os.getpid(), "describe": backend.choose().describe()}
