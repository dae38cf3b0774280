"""Reading Python tracebacks out of a rank's output: the course's one traceback parser (lesson 10).

A rank that raised printed a Python traceback (kept in `RunResult.rank_lines`). The lessons use
`where_ranks_failed` and `error_line`: per rank, the innermost frame of the training script
(``scripts/10_x.py:36: loss.backward()``) and the exception line, with paths relative to the
notebook's folder. The launcher's failure attribution (`runtime.diagnose`), the Accelerate launcher
and the grader read exceptions with the same `parse_exception` and write them with the same
`exception_text`, so they agree on what an exception line is. (A run that *hangs* is read from
live stacks instead: `RunResult.where`.)
"""

from __future__ import annotations

import os
import re
import sysconfig
from dataclasses import dataclass
from pathlib import Path
from typing import Sequence

from ddp_lessons.i18n import tr

_FRAME = re.compile(r'^\s*File "(?P<path>[^"]+)", line (?P<line>\d+), in (?P<function>\S+)')
EXCEPTION = re.compile(r"^(?:[A-Za-z_][\w.]*\.)?(?P<name>[A-Za-z_]\w*(?:Error|Exception|Interrupt|Exit))"
                       r"(?::\s*(?P<text>.*))?$")
"""An exception line as Python prints it, ``[module.]Name[: message]``, Name ending in Error,
Exception, Interrupt (KeyboardInterrupt) or Exit (SystemExit)."""
TORCH_RANK_TAG = re.compile(r"^\[rank\d+\]: ?")
"""torch tags each line of a rank's uncaught exception with ``[rankN]: ``."""
_NATIVE_SOURCE = re.compile(r"^\[[^\]]*\.(?:cc|cpp|h|hpp):\d+\]\s*")  # gloo's "[.../pair.cc:553] "
UNREADABLE = "an exception (see its traceback)"  # in English; `traceback_error` says it in the notebook's
"""What `traceback_error` says of a traceback that ends without an exception line."""


_PACKAGE = Path(__file__).resolve().parent
_PYTHON_LIB = re.compile(r"[/\\](?:lib|lib64|Lib)[/\\]python\d+(?:\.\d+)?[/\\]")
"""An installed Python's library folder (``.../lib/python3.11/``), this interpreter's or another's."""
_LIBRARIES = tuple({Path(p).resolve() for key in ("stdlib", "platstdlib", "purelib", "platlib")
                    if (p := sysconfig.get_paths().get(key))})


@dataclass(frozen=True)
class Frame:
    """One frame of a Python traceback: file as printed, line number, function, the line's source."""

    path: str
    line: int
    function: str
    source: str = ""


def is_learner_file(path: str | os.PathLike) -> bool:
    """True for the learner's own code: any file outside torch, the standard library, site-packages
    and this package (``<frozen ...>``, ``<string>`` and other pseudo-files are not files)."""
    text = str(path)
    if not text or text.startswith("<"):
        return False
    parts = Path(text).parts
    if {"site-packages", "dist-packages"} & set(parts) or (parts and parts[0] == "torch") \
            or f"{os.sep}torch{os.sep}" in text or _PYTHON_LIB.search(text):
        return False
    resolved = Path(text).resolve()
    return not any(resolved.is_relative_to(root) for root in (*_LIBRARIES, _PACKAGE))


def frames(lines: Sequence[str]) -> list[Frame]:
    """Every traceback frame in `lines`, in the order Python prints them (outermost first; a chained
    exception's tracebacks one after the other, so the learner's line is found in whichever has it)."""
    found = []
    for index in range(len(lines)):
        match = _FRAME.match(lines[index])
        if match:
            following = lines[index + 1] if index + 1 < len(lines) else ""
            source = "" if _FRAME.match(following) or parse_exception(following) else following.strip()
            found.append(Frame(match["path"], int(match["line"]), match["function"], source))
    return found


def learner_frame(found: Sequence[Frame], script: str | os.PathLike | None = None) -> int | None:
    """The index in `found` (outermost first) of the innermost frame of the learner's code (the
    launched `script` or any file `is_learner_file` accepts), or None."""
    name = Path(script).name if script is not None else None
    mine = [i for i, f in enumerate(found) if Path(f.path).name == name or is_learner_file(f.path)]
    return mine[-1] if mine else None


def parse_exception(line: str) -> tuple[str, str] | None:
    """(name, message) of an exception line, or None: ``torch.distributed.DistBackendError: [../pair.cc:5]
    boom`` -> ``("DistBackendError", "boom")`` (the module path, torch's rank tag and gloo's C++
    location dropped; the message is "" when the line has none)."""
    match = EXCEPTION.match(TORCH_RANK_TAG.sub("", line.strip(), count=1))
    if match is None:
        return None
    return match["name"], _NATIVE_SOURCE.sub("", match["text"] or "")


def exception_text(name: str, message: str) -> str:
    """``Name: message`` as Python prints an exception, or ``Name`` alone when the message is empty."""
    return f"{name}: {message}" if message else name


def last_traceback(lines: Sequence[str]) -> int | None:
    """The index of the last ``Traceback`` line in `lines`, or None."""
    return max((i for i, line in enumerate(lines) if line.startswith("Traceback")), default=None)


def traceback_error(lines: Sequence[str]) -> str | None:
    """The exception that ends the last traceback in `lines` (``Name: message``); None without a
    traceback, `UNREADABLE` when that traceback shows no exception line."""
    start = last_traceback(lines)
    return None if start is None else error_line(lines[start:]) or tr("an exception (see its traceback)")


def _relative(path: str) -> str:
    """`path` relative to the current folder when it lies below it, else its file name."""
    try:
        relative = os.path.relpath(path)
    except ValueError:  # another drive (Windows)
        return Path(path).name
    return Path(path).name if relative.startswith("..") else Path(relative).as_posix()


def script_frame(lines: Sequence[str], script: str | os.PathLike) -> str | None:
    """``path:line: source`` of the innermost frame of the learner's code in the tracebacks of `lines`,
    or None if `script` is not in them. In a module of the learner's (``engine.py``) called from `script`, the script's
    line that led there follows: ``engine.py:5: dist.all_reduce(t) (called from train.py:10)``."""
    found, name = frames(lines), Path(script).name
    index = learner_frame(found, script)
    if index is None or not any(Path(f.path).name == name for f in found):
        return None
    frame = found[index]
    text = f"{_relative(frame.path)}:{frame.line}: {frame.source}"
    if Path(frame.path).name != name:
        caller = next((f for f in reversed(found[:index]) if Path(f.path).name == name), None)
        if caller is not None:
            text += tr(" (called from {file}:{line})", file=_relative(caller.path), line=caller.line)
    return text


def error_line(lines: Sequence[str]) -> str | None:
    """The last exception line (``RuntimeError: ...``) in a rank's output, as `parse_exception` reads it."""
    for line in reversed(lines):
        parsed = parse_exception(line)
        if parsed is not None:
            return exception_text(*parsed)
    return None


def where_ranks_failed(result, script: str | os.PathLike) -> dict[int, str]:
    """{rank: 'scripts/x.py:N: source -> ErrorName: message'} for every rank that printed a traceback."""
    failed = {}
    for rank in sorted(result.rank_lines):
        lines = result.rank_lines[rank]
        frame, error = script_frame(lines, script), error_line(lines)
        if frame or error:
            failed[rank] = f"{frame or tr('(no frame in {file})', file=Path(script).name)} -> {error}"
    return failed
