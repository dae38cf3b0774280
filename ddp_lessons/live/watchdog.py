"""Make a live group's processes end with the notebook kernel that started them (see docs/LIVE.md).

The kernel exports its pid; every worker and the controller run `watch_kernel()`, a thread that
polls that pid and, once the kernel is gone (shut down, restarted, or killed with SIGKILL, when
no atexit hook runs), kills this process's own children by pid and exits.
"""

from __future__ import annotations

import os
import threading
import time

import psutil

from ddp_lessons.runtime import processes
from ddp_lessons.runtime.contract import KERNEL_PID_ENV


def kernel_alive(kernel: psutil.Process) -> bool:
    """Whether `kernel` still runs (a reused pid or an unreaped zombie counts as gone)."""
    try:
        return kernel.is_running() and kernel.status() != psutil.STATUS_ZOMBIE
    except psutil.Error:
        return False


def _exit_when_gone(kernel: psutil.Process, interval: float) -> None:
    while kernel_alive(kernel):
        time.sleep(interval)
    tree = processes.Tree()
    tree.scan(os.getpid())  # our own children (the controller's heart monitor); never ourselves
    processes.kill_processes(tree.seen.values(), grace=1.0)
    os._exit(0)


def watch_kernel(interval: float = 0.5) -> threading.Thread | None:
    """Start a daemon thread that ends this process once the kernel in `KERNEL_PID_ENV` is gone."""
    pid = os.environ.get(KERNEL_PID_ENV)
    if not pid:
        return None
    try:
        kernel = psutil.Process(int(pid))
    except psutil.NoSuchProcess:
        os._exit(0)
    thread = threading.Thread(target=_exit_when_gone, args=(kernel, interval), daemon=True,
                              name="ddp-lessons-kernel-watch")
    thread.start()
    return thread
