"""Choose the process-group backend, device and CPU threads for a rank (taught in lessons 2 and 3).

The rule the course teaches:

* **nccl** when every local rank has a GPU of its own (``LOCAL_RANK`` -> ``cuda:LOCAL_RANK``);
* **gloo** otherwise: on CPU, or when several ranks share one GPU (NCCL refuses two ranks on one
  device with "Duplicate GPU detected");
* on CPU, each rank uses ``max(1, cores // local_world_size)`` threads, so ranks never
  oversubscribe the cores (the launcher's own number when it sets ``DDP_LESSONS_THREADS``: with
  simulated nodes, more ranks share the machine than one node's LOCAL_WORLD_SIZE).

Training scripts still call ``torch.cuda.set_device``, ``dist.init_process_group`` and ``DDP``
themselves; this module only makes the decision and says why. The rule itself, `placement`, needs
no torch (``plots.diagrams`` draws it); torch is imported where a device or the GPUs are needed.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from typing import TYPE_CHECKING

from ddp_lessons.i18n import tr
from ddp_lessons.runtime.contract import BACKEND_ENV, BACKEND_REASON_ENV, CORES_ENV, THREADS_ENV

if TYPE_CHECKING:
    import torch

BACKENDS = ("gloo", "nccl")


@dataclass(frozen=True)
class Choice:
    """The backend, device and threads one rank should use, and the reason for them."""

    backend: str
    device: torch.device
    threads: int
    reason: str

    @property
    def device_id(self) -> torch.device | None:
        """What to pass as ``init_process_group(device_id=...)``: the GPU under nccl, else None."""
        return self.device if self.backend == "nccl" else None

    def describe(self) -> str:
        """One line for the rank to print, e.g. ``gloo on cpu, 1 thread(s): no GPU on this machine``."""
        return tr("{backend} on {device}, {threads} thread(s): {reason}", backend=self.backend, device=self.device,
                  threads=self.threads, reason=self.reason)


def cpu_cores() -> int:
    """CPU cores this process may run on: its affinity, or its share when `CORES_ENV` is set."""
    if os.environ.get(CORES_ENV, "").strip():
        return max(1, int(os.environ[CORES_ENV]))
    try:
        return len(os.sched_getaffinity(0))
    except AttributeError:  # macOS, Windows
        return os.cpu_count() or 1


def gpu_count() -> int:
    """How many CUDA GPUs torch can see (0 without CUDA)."""
    import torch

    return torch.cuda.device_count() if torch.cuda.is_available() else 0


def threads_per_rank(local_world_size: int, cores: int | None = None) -> int:
    """CPU threads for each of `local_world_size` ranks on this machine: max(1, cores // ranks)."""
    return max(1, (cores or cpu_cores()) // max(1, local_world_size))


def placement(local_rank: int, local_world_size: int, gpus: int, forced: str | None = None,
              forced_reason: str | None = None) -> tuple[str, str, str]:
    """(backend, device, reason) for one of `local_world_size` ranks on a machine with `gpus` GPUs,
    e.g. ``("nccl", "cuda:1", ...)``: the course's rule, without torch (`choose` applies it)."""
    if forced not in (None, *BACKENDS):
        raise ValueError(tr("{variable}={forced!r}: choose one of {choices}", variable=BACKEND_ENV, forced=forced,
                            choices=BACKENDS))
    if forced == "nccl" and gpus < local_world_size:
        raise RuntimeError(tr("nccl needs one GPU per local rank: {ranks} ranks, {gpus} GPU(s); use gloo to share "
                              "GPUs or the CPU", ranks=local_world_size, gpus=gpus))

    if gpus == 0:  # the launcher says why where a simulated node was given none of the machine's GPUs
        return "gloo", "cpu", forced_reason or tr("no GPU on this machine: gloo on CPU")
    if forced == "gloo":
        return "gloo", f"cuda:{local_rank % gpus}", forced_reason or tr("gloo asked for explicitly")
    if gpus >= local_world_size:
        return "nccl", f"cuda:{local_rank}", tr("each of {ranks} local rank(s) has its own GPU ({gpus} visible)",
                                                ranks=local_world_size, gpus=gpus)
    return ("gloo", f"cuda:{local_rank % gpus}",
            tr("{ranks} ranks share {gpus} GPU(s): nccl allows one rank per GPU", ranks=local_world_size, gpus=gpus))


def choose(local_rank: int | None = None, local_world_size: int | None = None,
           gpus: int | None = None, cores: int | None = None,
           forced: str | None = None) -> Choice:
    """Decide backend/device/threads for this rank; arguments default to torchrun's environment."""
    import torch

    local_rank = int(os.environ.get("LOCAL_RANK", 0)) if local_rank is None else local_rank
    if local_world_size is None:
        local_world_size = int(os.environ.get("LOCAL_WORLD_SIZE", 1))
    gpus = gpu_count() if gpus is None else gpus
    if forced is None:
        forced = os.environ.get(BACKEND_ENV) or None
    planned = os.environ.get(THREADS_ENV) if cores is None else None
    threads = int(planned) if planned else threads_per_rank(local_world_size, cores)
    name, device, reason = placement(local_rank, local_world_size, gpus, forced,
                                     os.environ.get(BACKEND_REASON_ENV))
    return Choice(name, torch.device(device), threads, reason)
