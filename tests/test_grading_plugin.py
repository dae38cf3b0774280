"""The grader's pytest plugin: a dead kernel is reported at once and in words."""
import signal
import subprocess
import sys
import time
from queue import Empty

import pytest

from ddp_lessons.grading import plugin


class FakeKernel:
    """nbval's RunningKernel as the plugin sees it: messages never come; alive until `dies_at`."""

    def __init__(self, dies_at):
        self.dies_at = dies_at

    def get_message(self, stream, timeout=None):
        time.sleep(timeout or 0)
        raise Empty

    def is_alive(self):
        return time.monotonic() < self.dies_at


def test_waiting_on_a_kernel_that_died_raises_at_once_not_at_the_timeout(monkeypatch):
    monkeypatch.setattr(plugin, "KERNEL_POLL", 0.05)
    kernel = FakeKernel(dies_at=time.monotonic() + 0.2)
    plugin.watch_kernel(kernel)
    start = time.monotonic()
    with pytest.raises(plugin.KernelDied, match="crashed: the kernel died"):
        kernel.get_message("shell", timeout=600)
    assert time.monotonic() - start < 5


def test_a_live_kernel_still_times_out_as_nbval_expects(monkeypatch):
    monkeypatch.setattr(plugin, "KERNEL_POLL", 0.05)
    kernel = FakeKernel(dies_at=float("inf"))
    plugin.watch_kernel(kernel)
    with pytest.raises(Empty):
        kernel.get_message("iopub", timeout=0.2)


@pytest.mark.parametrize("code, words", [
    (1, "exit code 1"), (-signal.SIGKILL, "killed by SIGKILL, as the out-of-memory killer does"),
    (-signal.SIGSEGV, "killed by SIGSEGV"), (None, "exit status unknown")])
def test_exit_reason_names_the_code_or_signal(code, words):
    assert plugin.exit_reason(code) == words


def test_loading_the_plugin_does_not_import_torch():
    """pytest loads the plugin once per graded notebook: torch would add seconds to each."""
    probe = "import sys, ddp_lessons.grading.plugin; print('torch' in sys.modules)"
    assert subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True,
                          check=True).stdout.strip() == "False"


class FakeNbvalError(Exception):
    pass


@pytest.mark.parametrize("message, outputs, expected", [
    ("Cell execution caused an exception",
     [{"output_type": "error", "ename": "AssertionError", "evalue": "hint: use set_epoch\nmore"}],
     "AssertionError: hint: use set_epoch"),
    ("Cell execution caused an exception", [{"output_type": "error", "ename": "AssertionError",
                                             "evalue": ""}], "AssertionError"),
    ("Timeout of 10 seconds exceeded executing cell", [], "Timeout of 10 seconds exceeded executing cell"),
    ("", None, "FakeNbvalError"),
])
def test_failure_line_is_the_exception_or_nbvals_reason(message, outputs, expected):
    assert plugin.failure_line(FakeNbvalError(message), outputs) == expected
