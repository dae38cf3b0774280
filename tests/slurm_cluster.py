"""A one-node SLURM cluster on this machine for the tests: munged, slurmctld and slurmd from Debian's
`slurm-wlm` and `munge`, every file in one temporary folder, every daemon stopped by pid at the end.

    with SlurmCluster(tmp_path) as cluster:
        subprocess.run(["sbatch", "--wait", "job.sbatch"], env=cluster.env)

Where `slurmctld` is not installed, `require_slurm()` skips the test with the install hint, or fails
it when the environment variable CI is set (CI installs the packages, see .ci/run).
"""

from __future__ import annotations

import os
import secrets
import shutil
import socket
import subprocess
import time
from dataclasses import dataclass
from pathlib import Path

import pytest

from ddp_lessons.launch import free_port
from ddp_lessons.runtime import processes

INSTALL_HINT = "sudo apt-get install slurm-wlm munge (Debian/Ubuntu)"
DAEMONS = ("munged", "slurmctld", "slurmd")
ENDED = {"COMPLETED", "FAILED", "CANCELLED", "TIMEOUT", "NODE_FAIL", "OUT_OF_MEMORY", "BOOT_FAIL", "DEADLINE"}
"""Job states after which a job will not run again (REQUEUED, PENDING, RUNNING, COMPLETING are not)."""


def require_slurm() -> None:
    """Skip (or under CI fail) the calling test when the SLURM and munge daemons are not installed."""
    missing = [name for name in DAEMONS + ("sbatch", "sinfo") if not _which(name)]
    if missing:
        message = f"SLURM is not installed (missing {', '.join(missing)}): {INSTALL_HINT}"
        if os.environ.get("CI"):
            pytest.fail(message)
        pytest.skip(message)


def memory_mib() -> int:
    """Most of this machine's memory in MiB, as the node offers it (jobs may then ask for memory with
    --mem); 90 %: slurmd refuses a node whose configured memory is above what it measures."""
    with open("/proc/meminfo") as meminfo:
        kib = next(int(line.split()[1]) for line in meminfo if line.startswith("MemTotal:"))
    return kib * 9 // 10 // 1024


def _which(name: str) -> str | None:
    """The path of program `name` on PATH or in the sbin folders, where Debian puts the daemons."""
    return shutil.which(name) or shutil.which(name, path="/usr/sbin:/sbin:/usr/local/sbin")


class SlurmCluster:
    """munged + slurmctld + slurmd for one node named after this host, configured in `root`."""

    def __init__(self, root: Path, cpus: int | None = None):
        self.root = Path(root)
        self.node = socket.gethostname().split(".")[0]
        self.cpus = cpus or os.cpu_count() or 1
        self.daemons: dict[str, subprocess.Popen] = {}
        self.tree = processes.Tree()
        self.conf = self.root / "slurm.conf"
        self.env = {**os.environ, "SLURM_CONF": str(self.conf)}

    def __enter__(self) -> "SlurmCluster":
        try:
            self.start()
        except BaseException:
            self.stop()
            raise
        return self

    def __exit__(self, *exc) -> None:
        self.stop()

    def start(self, timeout: float = 60) -> None:
        """Write the munge key and slurm.conf, start the three daemons, wait until the node is idle."""
        for folder in ("state", "spool", "munge", "log"):
            (self.root / folder).mkdir(parents=True, exist_ok=True)
        key = self.root / "munge" / "munge.key"
        key.write_bytes(secrets.token_bytes(1024))
        key.chmod(0o400)
        socket_path = self.root / "munge" / "munge.socket"
        self._start("munged", [_which("munged"), "--foreground", "--force", f"--key-file={key}",
                               f"--socket={socket_path}", f"--pid-file={self.root / 'munge' / 'munged.pid'}",
                               f"--seed-file={self.root / 'munge' / 'munged.seed'}",
                               f"--log-file={self.root / 'log' / 'munged.log'}"])
        self._wait_for(lambda: socket_path.exists(), timeout, "munged did not create its socket")
        self.conf.write_text(self._slurm_conf(socket_path))
        self._start("slurmctld", [_which("slurmctld"), "-D", "-f", str(self.conf)])
        self._start("slurmd", [_which("slurmd"), "-D", "-f", str(self.conf), "-N", self.node])
        self._wait_for(self._node_idle, timeout, "the SLURM node did not become idle")

    def _slurm_conf(self, munge_socket: Path) -> str:
        root = self.root
        return "\n".join([
            "ClusterName=ddpcourse",
            f"SlurmctldHost={self.node}(127.0.0.1)",
            f"SlurmctldPort={free_port()}",
            f"SlurmdPort={free_port()}",
            "SlurmUser=root",
            "SlurmdUser=root",
            f"AuthInfo=socket={munge_socket},cred_expire=5",  # a requeued job may start 6 s later (default 121)
            "ProctrackType=proctrack/linuxproc",
            "TaskPlugin=task/none",
            "SelectType=select/cons_tres",
            "SelectTypeParameters=CR_Core",
            "MpiDefault=none",
            "SchedulerParameters=sched_interval=2,bf_interval=1",  # schedule a requeued job within seconds
            "ReturnToService=2",
            "JobAcctGatherType=jobacct_gather/none",
            "AccountingStorageType=accounting_storage/none",
            f"StateSaveLocation={root / 'state'}",
            f"SlurmdSpoolDir={root / 'spool'}",
            f"SlurmctldPidFile={root / 'slurmctld.pid'}",
            f"SlurmdPidFile={root / 'slurmd.pid'}",
            f"SlurmctldLogFile={root / 'log' / 'slurmctld.log'}",
            f"SlurmdLogFile={root / 'log' / 'slurmd.log'}",
            f"NodeName={self.node} NodeAddr=127.0.0.1 CPUs={self.cpus} RealMemory={memory_mib()} State=UNKNOWN",
            "PartitionName=debug Nodes=ALL Default=YES MaxTime=INFINITE State=UP",
            "",
        ])

    def _start(self, name: str, command: list[str]) -> None:
        log = open(self.root / "log" / f"{name}.out", "w")
        self.daemons[name] = subprocess.Popen(command, env=self.env, stdout=log, stderr=subprocess.STDOUT,
                                              stdin=subprocess.DEVNULL)
        log.close()
        self.tree.scan(self.daemons[name].pid)

    def _node_idle(self) -> bool:
        for name, daemon in self.daemons.items():
            if daemon.poll() is not None:
                raise RuntimeError(f"{name} exited with {daemon.returncode}:\n{self.logs()}")
        out = subprocess.run(["sinfo", "-h", "-N", "-o", "%T"], env=self.env, capture_output=True,
                             text=True, timeout=20)
        return out.returncode == 0 and out.stdout.strip() == "idle"

    @staticmethod
    def _wait_for(ready, timeout: float, message: str) -> None:
        deadline = time.monotonic() + timeout
        while not ready():
            if time.monotonic() > deadline:
                raise TimeoutError(message)
            time.sleep(0.5)

    def run(self, *args: str, timeout: float = 60, **kwargs) -> subprocess.CompletedProcess:
        """Run a SLURM command (sbatch, squeue, ...) against this cluster; returns the finished process."""
        for daemon in self.daemons.values():  # remember job steps slurmd started, to stop them too
            self.tree.scan(daemon.pid)
        return subprocess.run(list(args), env=self.env, capture_output=True, text=True,
                              timeout=timeout, **kwargs)

    def job(self, job_id: str) -> dict[str, str]:
        """The job's fields from ``scontrol show job`` (JobState, Restarts, ExitCode, ...)."""
        out = self.run("scontrol", "--oneliner", "show", "job", job_id, timeout=20)
        return dict(field.split("=", 1) for field in out.stdout.split() if "=" in field)

    def wait_for_job(self, job_id: str, timeout: float = 300) -> dict[str, str]:
        """Wait until the job has ended (through any requeues); its fields from `job`."""
        deadline = time.monotonic() + timeout
        while (fields := self.job(job_id)).get("JobState") not in ENDED:
            if time.monotonic() > deadline:
                raise TimeoutError(f"job {job_id} still {fields.get('JobState')} after {timeout} s\n{self.logs()}")
            time.sleep(0.5)
        return fields

    def logs(self) -> str:
        """The end of every daemon's log, for a failure message."""
        parts = []
        for path in sorted((self.root / "log").glob("*")):
            lines = path.read_text(errors="replace").splitlines()[-15:]
            parts.append(f"--- {path.name}\n" + "\n".join(lines))
        return "\n".join(parts)

    def stop(self) -> None:
        """Cancel every job, then stop slurmd, slurmctld and munged and everything below them, by pid."""
        if "slurmctld" in self.daemons and self.daemons["slurmctld"].poll() is None:
            subprocess.run(["scancel", "--user", str(os.getuid())], env=self.env, capture_output=True,
                           timeout=20)
        for daemon in self.daemons.values():
            self.tree.scan(daemon.pid)
        for name in reversed(list(self.daemons)):  # slurmd, slurmctld, munged
            self.tree.kill([self.daemons[name].pid])
            self.daemons[name].wait(timeout=10)
        self.daemons.clear()


@dataclass
class PreemptedJob:
    """A job of the sbatch template that was sent SIGUSR1 once while training, then ran to its end."""

    job_id: str
    fields: dict[str, str]  # `SlurmCluster.job` after the end: JobState, Restarts, ExitCode, ...
    output: str  # the job's output file, every start of it (--open-mode=append)


def run_preempted_job(cluster: SlurmCluster, job_dir: Path, args: list[str], snapshot: Path,
                      timeout: float = 300) -> PreemptedJob:
    """Submit `job_dir`/train_ddp.sbatch on CPU ranks (--cpu, no GPU requested), send its batch script
    SIGUSR1 once the first snapshot exists (what --signal=B:USR1@120 does before the time limit), and
    wait through the requeue until the job has ended."""
    cluster.env.update(NPROC_PER_NODE="2", OMP_NUM_THREADS="1", PYTHONUNBUFFERED="1")
    submitted = cluster.run("sbatch", "--parsable", "--gpus-per-node=0", f"--cpus-per-task={cluster.cpus}",
                            f"--chdir={job_dir}", "train_ddp.sbatch", *args, "--cpu",
                            "--snapshot", str(snapshot), timeout=60)
    assert submitted.returncode == 0, f"sbatch failed: {submitted.stderr}\n{cluster.logs()}"
    job_id = submitted.stdout.strip().split(";")[0]
    output = job_dir / f"train_ddp-{job_id}.out"
    deadline = time.monotonic() + timeout
    while not snapshot.exists():
        state = cluster.job(job_id).get("JobState")
        if state in ENDED or time.monotonic() > deadline:
            text = output.read_text() if output.exists() else "(no output file)"
            raise AssertionError(f"job {job_id} ({state}) wrote no snapshot:\n{text}\n{cluster.logs()}")
        time.sleep(0.1)
    signalled = cluster.run("scancel", "--batch", "--signal=USR1", job_id)
    assert signalled.returncode == 0, signalled.stderr
    fields = cluster.wait_for_job(job_id, timeout=max(1.0, deadline - time.monotonic()))
    return PreemptedJob(job_id, fields, output.read_text() if output.exists() else "(no output file)")
