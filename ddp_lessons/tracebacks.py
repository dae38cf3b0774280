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
from pathlib import Path
from typing import Sequence

_FRAME = re.compile(r'^\s*File "(?P<path>[^"]+)", line (?P<line>\d+), in (?P<function>\S+)')
EXCEPTION = re.compile(r"^(?:[A-Za-z_][\w.]*\.)?(?P<name>[A-Za-z_]\w*(?:Error|Exception|Interrupt|Exit))"
                       r"(?::\s*(?P<text>.*))?$")
"""An exception line as Python prints it, ``[module.]Name[: message]``, Name ending in Error,
Exception, Interrupt (KeyboardInterrupt) or Exit (SystemExit)."""
TORCH_RANK_TAG = re.compile(r"^\[rank\d+\]: ?")
"""torch tags each line of a rank's uncaught exception with ``[rankN]: ``."""
_NATIVE_SOURCE = re.compile(r"^\[[^\]]*\.(?:cc|cpp|h|hpp):\d+\]\s*")  # gloo's "[.../pair.cc:553] "
UNREADABLE = "an exception (see its traceback)"
"""What `traceback_error` says of a traceback that ends without an exception line."""


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
    return None if start is None else error_line(lines[start:]) or UNREADABLE


def _relative(path: str) -> str:
    """`path` relative to the current folder when it lies below it, else its file name."""
    try:
        relative = os.path.relpath(path)
    except ValueError:  # another drive (Windows)
        return Path(path).name
    return Path(path).name if relative.startswith("..") else Path(relative).as_posix()


def script_frame(lines: Sequence[str], script: str | os.PathLike) -> str | None:
    """``path:line: source`` of the innermost traceback frame in `script`, or None if none is there."""
    name = Path(script).name
    found = None
    for index, line in enumerate(lines):
        match = _FRAME.match(line)
        if match and Path(match["path"]).name == name:
            source = lines[index + 1].strip() if index + 1 < len(lines) else ""
            found = f"{_relative(match['path'])}:{match['line']}: {source}"
    return found


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
            failed[rank] = f"{frame or '(no frame in ' + Path(script).name + ')'} -> {error}"
    return failed
