"""Run a submission inside bubblewrap (``bwrap``): loopback-only network, read-only file system except
its scratch folder and a private /tmp, and the home folder, the submissions, the solutions and the
other jobs' scratch folders hidden behind empty tmpfs mounts.

``--sandbox auto`` uses bwrap when it is installed and works here, else runs unsandboxed and warns
once; ``bwrap`` insists (an error when it cannot work); ``none`` runs with your permissions.
"""

from __future__ import annotations

import functools
import shutil
import subprocess
import sys
from dataclasses import dataclass, field
from pathlib import Path

from ddp_lessons.i18n import tr

MODES = ("auto", "bwrap", "none")
INSTALL_HINT = "sudo apt-get install bubblewrap"
_warned = False


PRIVATE_ENV = {"TMPDIR": "/tmp", "JUPYTER_RUNTIME_DIR": "/tmp/jupyter-runtime", "IPYTHONDIR": "/tmp/ipython",
               "MPLCONFIGDIR": "/tmp/matplotlib"}
"""Where the kernel keeps its files in the sandbox: the private /tmp (the home folder is hidden)."""


class SandboxError(RuntimeError):
    """``--sandbox bwrap`` was asked for, but bwrap is missing or cannot create namespaces here."""


@functools.lru_cache(maxsize=1)
def problem() -> str | None:
    """Why bwrap cannot sandbox here (missing, or namespaces refused), or None when it works."""
    path = shutil.which("bwrap")
    if path is None:
        return tr("bubblewrap (bwrap) is not installed: {hint}", hint=INSTALL_HINT)
    probe = [path, "--unshare-net", "--unshare-pid", "--die-with-parent", "--ro-bind", "/", "/",
             "--dev", "/dev", "--proc", "/proc", "--tmpfs", "/tmp", "true"]
    try:
        done = subprocess.run(probe, capture_output=True, text=True, timeout=30)
    except (OSError, subprocess.TimeoutExpired) as error:
        return tr("bwrap did not run: {error}", error=str(error))
    if done.returncode != 0:
        lines = done.stderr.strip().splitlines() or [tr("exit code {code}", code=done.returncode)]
        return tr("bwrap cannot create its namespaces here: {said}", said=lines[-1])
    return None


def resolve(mode: str) -> bool:
    """Whether to sandbox for `mode` (auto, bwrap, none); auto without a working bwrap warns once."""
    global _warned
    if mode not in MODES:
        raise ValueError(tr("--sandbox {mode!r}: choose one of {modes}", mode=mode, modes=str(MODES)))
    if mode == "none":
        return False
    reason = problem()
    if reason is None:
        return True
    if mode == "bwrap":
        raise SandboxError(reason)
    if not _warned:
        print(tr("warning: grading WITHOUT a sandbox (students' code runs with your permissions): {reason}",
                 reason=reason), file=sys.stderr, flush=True)
        _warned = True
    return False


@dataclass
class Sandbox:
    """The mounts one grading job gets: `hidden` folders become empty, only its scratch is writable."""

    hidden: list[Path] = field(default_factory=list)

    def command(self, command: list[str], scratch: Path, cwd: Path, tmp_size: int | None = None) -> list[str]:
        """`command` wrapped in bwrap, writable only in `scratch`, starting in `cwd` (inside it); the
        private /tmp and /dev/shm (tmpfs: RAM) hold at most `tmp_size` bytes each when given."""
        home = Path.home().resolve()
        hidden = sorted({p.resolve() for p in self.hidden if p.is_dir()})
        if home.is_dir() and home != Path("/"):
            hidden.insert(0, home)
        tmp = Path("/tmp")  # a private tmpfs in the sandbox: what lies under it is hidden already
        hidden = [p for p in hidden if not any(p != q and p.is_relative_to(q) for q in [*hidden, tmp])]
        args = ["bwrap", "--die-with-parent", "--new-session", "--cap-drop", "ALL",
                "--unshare-net", "--unshare-pid", "--unshare-ipc", "--unshare-uts",
                "--ro-bind", "/", "/", "--dev", "/dev", "--proc", "/proc"]
        size = ["--size", str(tmp_size)] if tmp_size is not None else []
        args += [*size, "--tmpfs", "/dev/shm"]
        args += ["--tmpfs", str(home)] if hidden and hidden[0] == home else []
        for path in readable_python():  # the interpreter and the course package, wherever they are
            args += ["--ro-bind", str(path), str(path)]
        for path in hidden[1:] if hidden and hidden[0] == home else hidden:
            args += ["--tmpfs", str(path)]
        args += [*size, "--tmpfs", "/tmp"]
        for path in readable_python():  # a course checked out under /tmp (CI clones) stays readable
            if path.is_relative_to(tmp):
                args += ["--ro-bind", str(path), str(path)]
        args += ["--bind", str(scratch), str(scratch)]
        for path in hidden:  # empty and read-only: writing there fails, as it would outside the sandbox
            args += ["--remount-ro", str(path)]
        for name, value in PRIVATE_ENV.items():
            args += ["--setenv", name, value]
        return args + ["--chdir", str(cwd), "--"] + command


def readable_python() -> list[Path]:
    """Folders the kernel must still read when the home folder is hidden: the Python installation,
    the virtual environment and the ddp_lessons package (an editable install lives outside both)."""
    import ddp_lessons

    folders = {Path(sys.prefix), Path(sys.base_prefix), Path(sys.exec_prefix),
               Path(ddp_lessons.__file__).resolve().parent}
    folders |= {Path(entry) for entry in sys.path if entry and "site-packages" in entry}
    return sorted(path.resolve() for path in folders if path.is_dir())
