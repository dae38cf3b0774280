"""Where is each rank stuck? Python stacks of live ranks, and a one-line summary per rank (lesson 10).

When a run times out, `ddp_lessons.launch.run_torchrun` (and a live cell) calls `capture`, through
`hang_report.capture`, before it kills the job:

* **py-spy** (``py-spy dump --pid``) reads a process's Python stack from outside through ptrace,
  without the process's help; it works on a rank blocked inside C++ (a gloo/NCCL collective).
* Where py-spy is missing or ptrace is refused (containers without CAP_SYS_PTRACE, Yama), the
  fallback is Python's own `faulthandler`: every launched rank registers a SIGUSR1 handler that
  writes all its threads' stacks to ``<run dir>/diagnose/rank<R>.stack.txt`` (see
  ``rank_hooks/sitecustomize.py``, `contract.STACK_FILE`); the launcher sends the signal and reads them.

Ranks are found as the torchrun agents' children, and named by the ``RANK`` in their environment.
All ranks are captured in parallel, within `CAPTURE_SECONDS`. Set ``DDP_LESSONS_STACK_TOOL`` to
``faulthandler`` (or ``py-spy``) to force one tool, e.g. to test the fallback. `where` says in one
line where a launched rank waits; `parse`, `pick_thread` and `torch_call` serve live ranks too.
"""

from __future__ import annotations

import linecache
import os
import re
import shutil
import signal
import subprocess
import sys
import sysconfig
import tempfile
import time
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path
from typing import Callable, Iterable

import psutil

from ddp_lessons import tracebacks
from ddp_lessons.i18n import tr
from ddp_lessons.runtime.contract import RUN_ID_ENV, STACK_FILE, STACK_TOOL_ENV, evidence_file, rank_environment

CAPTURE_SECONDS = 4.5
"""The most a timeout's stack capture may add before the job is killed."""

_ANSI = re.compile(r"\x1b\[[0-9;]*[A-Za-z]")  # py-spy colours its dump when the environment asks for colour
_PYSPY_FRAME = re.compile(r"^\s+(?P<func>.+?) \((?P<file>.+):(?P<line>\d+)\)\s*$")
_FAULTHANDLER_FRAME = re.compile(r'^\s+File "(?P<file>.+)", line (?P<line>\d+) in (?P<func>.+?)\s*$')
_THREAD = re.compile(r"^(Current thread|Thread) ")
_WRAPPERS = {"wrapper", "inner", "decorate_context", "_fn"}


@dataclass
class Frame:
    """One stack frame: function name, file as the tool printed it, line number."""

    func: str
    file: str
    line: int


@dataclass
class Capture:
    """What `capture` got: stack text per rank, the tool used, and why some or all are missing."""

    stacks: dict[int, str]
    tool: str | None
    note: str = ""
    seconds: float = 0.0


def find_py_spy() -> str | None:
    """Path of the py-spy binary: next to this Python, in its scripts folder, or on PATH."""
    for folder in (Path(sys.executable).parent, Path(sysconfig.get_path("scripts"))):
        candidate = folder / "py-spy"
        if candidate.is_file() and os.access(candidate, os.X_OK):
            return str(candidate)
    return shutil.which("py-spy")


def rank_pids(agent_pids: Iterable[int]) -> dict[int, int]:
    """{global rank: pid} of the ranks the torchrun agents started (their children with a RANK)."""
    found: dict[int, int] = {}
    for agent in agent_pids:
        try:
            children = psutil.Process(agent).children()
        except psutil.Error:
            continue
        for child in children:
            try:
                rank = child.environ().get("RANK")
            except psutil.Error:
                continue
            if rank is not None and rank.isdigit():
                found[int(rank)] = child.pid
    return dict(sorted(found.items()))


def capture(pids: dict[int, int], run_dir: str | os.PathLike, tool: str | None = None,
            seconds: float = CAPTURE_SECONDS) -> Capture:
    """Stacks of the ranks `pids` ({rank: pid}), with py-spy or else the faulthandler fallback."""
    start = time.perf_counter()
    tool = tool or os.environ.get(STACK_TOOL_ENV, "auto")
    if not pids:
        return Capture({}, None, tr("no live rank process was found"), 0.0)
    note = tr("py-spy not tried: {variable}={tool}", variable=STACK_TOOL_ENV, tool=tool) if tool == "faulthandler" else ""
    if tool in ("auto", "py-spy"):
        binary = find_py_spy()
        if binary is None:
            note = tr("py-spy is not installed")
        else:
            with ThreadPoolExecutor(len(pids)) as pool:
                dumps = dict(zip(pids, pool.map(lambda pid: _py_spy(binary, pid, seconds * 0.5),
                                                pids.values())))
            stacks = {r: text for r, (ok, text) in dumps.items() if ok}
            note = "" if len(stacks) == len(pids) else tr("py-spy could not read the ranks: {why}", why="; ".join(
                sorted({text for ok, text in dumps.values() if not ok}))[:300])
            if stacks and (len(stacks) == len(pids) or tool == "py-spy"):
                return Capture(stacks, "py-spy", note, time.perf_counter() - start)
        if tool == "py-spy":
            return Capture({}, None, note, time.perf_counter() - start)
    left = max(0.5, seconds - (time.perf_counter() - start))
    stacks, why = _faulthandler(pids, run_dir, left)
    note = "; ".join(n for n in (note, why) if n)
    return Capture(stacks, "faulthandler" if stacks else None, note, time.perf_counter() - start)


def _py_spy(binary: str, pid: int, timeout: float) -> tuple[bool, str]:
    """(True, stack text) or (False, why py-spy failed) for one process."""
    try:
        out = subprocess.run([binary, "dump", "--pid", str(pid), "--full-filenames"],
                             capture_output=True, text=True, timeout=timeout,
                             stdin=subprocess.DEVNULL)
    except subprocess.TimeoutExpired:  # subprocess.run has killed it by pid
        return False, tr("py-spy took longer than {timeout:.1f} s", timeout=timeout)
    except OSError as exc:
        return False, tr("py-spy could not start ({error})", error=exc)
    stdout = _ANSI.sub("", out.stdout)  # e.g. FORCE_COLOR/CLICOLOR_FORCE, set in Jupyter kernels
    if out.returncode != 0 or "Thread " not in stdout:
        lines = (out.stderr or stdout).strip().splitlines()
        return False, (lines[-1] if lines else tr("py-spy exited with code {code}", code=out.returncode))
    return True, stdout


def _faulthandler(pids: dict[int, int], run_dir: str | os.PathLike,
                  seconds: float) -> tuple[dict[int, str], str]:
    """Signal every rank to dump its stacks into its file; collect what they wrote within `seconds`."""
    sizes, missing = {}, []
    if not hasattr(signal, "SIGUSR1"):
        return {}, tr("the faulthandler fallback needs SIGUSR1, which this system lacks")
    for rank, pid in pids.items():
        path = evidence_file(run_dir, STACK_FILE, rank)
        if not path.is_file():  # no handler registered: SIGUSR1 would simply kill the rank
            missing.append(rank)
            continue
        sizes[rank] = path.stat().st_size
        try:
            os.kill(pid, signal.SIGUSR1)
        except OSError:
            missing.append(rank)
    stacks: dict[int, str] = {}
    deadline, last = time.perf_counter() + seconds, {}
    while sizes.keys() - stacks.keys() and time.perf_counter() < deadline:
        time.sleep(0.1)
        for rank in sizes.keys() - stacks.keys():
            path = evidence_file(run_dir, STACK_FILE, rank)
            size = path.stat().st_size
            if size > sizes[rank] and size == last.get(rank):  # written, and no longer growing
                with open(path) as f:
                    f.seek(sizes[rank])
                    stacks[rank] = f.read()
            last[rank] = size
    missing += sorted(sizes.keys() - stacks.keys())
    why = (tr("faulthandler got no stack from rank(s) {ranks}", ranks=", ".join(map(str, sorted(missing))))
           if missing else "")
    return stacks, why


def parse(text: str) -> list[tuple[str, list[Frame]]]:
    """Threads in a py-spy or faulthandler dump: [(thread header, frames innermost first)]."""
    threads: list[tuple[str, list[Frame]]] = []
    for line in text.splitlines():
        if _THREAD.match(line):
            threads.append((line.strip(), []))
            continue
        match = _PYSPY_FRAME.match(line) or _FAULTHANDLER_FRAME.match(line)
        if match and threads:
            threads[-1][1].append(Frame(match["func"], match["file"], int(match["line"])))
    return threads


def where(text: str, script: str | os.PathLike, cwd: str | os.PathLike | None = None) -> str:
    """One line saying where a rank is: the innermost line of the learner's code it runs, and the torch call.

    E.g. ``in barrier() at scripts/10_x.py:14: dist.barrier()``; ``at scripts/10_x.py:9:
    time.sleep(60)`` when the line calls no Python code of torch. The learner's code is the script and
    any module of theirs (`tracebacks.is_learner_file`: outside torch, the standard library,
    site-packages): a rank waiting in ``engine.py`` is ``in all_reduce() at engine.py:5: dist.all_reduce(t)
    (called from train.py:10)``, the script's line that led there last. The torch function is named as
    faulthandler names it (``backward``, where py-spy says ``Tensor.backward``), whichever tool ran.
    """
    cwd = Path(cwd or os.getcwd())
    script = _resolve(script, cwd)

    def in_script(frame: Frame) -> bool:
        return _resolve(frame.file, cwd) == script

    def here(frames: list[Frame], mine: list[int]) -> str:
        user = frames[mine[0]]
        text = tr("at {file}:{line}", file=_show(user.file, cwd), line=user.line) + (
            f": {source}" if (source := _source(_resolve(user.file, cwd), user.line)) else "")
        caller = next((frames[i] for i in mine if in_script(frames[i])), None)
        if not in_script(user) and caller is not None:
            text += tr(" (called from {file}:{line})", file=_show(script, cwd), line=caller.line)
        return text

    return locate(text, runs_ours=lambda frames: bool(frames) and frames[-1].func == "<module>"
                  and in_script(frames[-1]),
                  is_mine=lambda frame: in_script(frame) or tracebacks.is_learner_file(_resolve(frame.file, cwd)),
                  here=here, show=lambda file: _show(file, cwd), outside=tr("not in {file}", file=_show(script, cwd)))


def _source(path: Path, line: int) -> str:
    linecache.checkcache(str(path))  # a lesson may have rewritten the script since
    return linecache.getline(str(path), line).strip()


def locate(text: str, runs_ours: Callable[[list[Frame]], bool], is_mine: Callable[[Frame], bool],
           here: Callable[[list[Frame], list[int]], str], show: Callable[[str], str], outside: str) -> str:
    """One line for a rank's dump: the torch call it waits in and where in our code (launched script or
    live cell), ``in all_reduce() <here>``, or its innermost frame when no frame is ours.

    runs_ours: picks the thread (`pick_thread`); is_mine: a frame of our code; here: words the place
    from the thread's frames (innermost first) and the positions of ours; show: a frame's file as
    shown; outside: said of a thread that runs none of our code.
    """
    threads = parse(text)
    if not threads:
        return tr("no Python stack in the dump")
    frames = pick_thread(threads, runs_ours)
    if not frames:
        return tr("no Python frames (the thread runs native code only)")
    mine = [i for i, frame in enumerate(frames) if is_mine(frame)]
    if not mine:
        return tr("in {call}() {place}", call=frames[0].func, place=tr(
            "at {file}:{line}", file=show(frames[0].file), line=frames[0].line)) + f" ({outside})"
    call = torch_call(frames[:mine[0]])
    place = here(frames, mine)
    return tr("in {call}() {place}", call=call, place=place) if call else place


def pick_thread(threads: list[tuple[str, list[Frame]]], runs_ours) -> list[Frame]:
    """The frames of the first thread for which `runs_ours(frames)` holds (the one running the
    script or the cell, whichever thread got the signal), else the main thread's, else the first's."""
    return next((frames for _, frames in threads if runs_ours(frames)), None) or next(
        (frames for header, frames in threads if "MainThread" in header or "Current" in header),
        threads[0][1])


def torch_call(frames: list[Frame]) -> str | None:
    """The outermost torch function in `frames` (innermost first), named the same for both tools.

    Used by `where` and by live ranks (``ddp_lessons.live.hangs``): ``all_reduce``, not its wrapper.
    """
    calls = [f.func.rsplit(".", 1)[-1] for f in reversed(frames)
             if _is_torch(f.file) and not _is_wrapper(f.func)]
    return calls[0] if calls else None


def check(tool: str | None = None, seconds: float = CAPTURE_SECONDS) -> Capture:
    """Capture the stack of a sleeping Python started like a rank: does stack capture work here?"""
    with tempfile.TemporaryDirectory(prefix="ddp-stacks-") as run_dir:
        env = rank_environment(run_dir, 1, extra={"RANK": "0", RUN_ID_ENV: "check"})
        child = subprocess.Popen([sys.executable, "-c", "import time; print('ready', flush=True); "
                                  "time.sleep(60)"], env=env, stdout=subprocess.PIPE, text=True)
        try:
            child.stdout.readline()
            return capture({0: child.pid}, run_dir, tool, seconds)
        finally:
            child.kill()
            child.wait()
            child.stdout.close()


def _resolve(path: str | os.PathLike, cwd: Path) -> Path:
    return (cwd / path).resolve()


def _show(path: str | os.PathLike, cwd: Path) -> str:
    resolved = _resolve(path, cwd)
    return str(resolved.relative_to(cwd.resolve())) if resolved.is_relative_to(cwd.resolve()) \
        else str(resolved)


def _is_torch(file: str) -> bool:
    return f"{os.sep}torch{os.sep}" in file or file.startswith(f"torch{os.sep}")


def _is_wrapper(func: str) -> bool:
    name = func.rsplit(".", 1)[-1]
    return name in _WRAPPERS or (name.startswith("_") and not name.startswith("__"))
