"""Where each rank of a failed run left your script, from its traceback (lesson 10).

A rank that raised printed a Python traceback (kept in `RunResult.rank_lines`). These helpers pick
out, per rank, the innermost frame of the training script (``scripts/10_x.py:36: loss.backward()``)
and the exception line, with paths relative to the notebook's folder, so a lesson can show and
assert on them. (A run that *hangs* is read from live stacks instead: `RunResult.where`.)
"""

from __future__ import annotations

import os
import re
from pathlib import Path
from typing import Sequence

_FRAME = re.compile(r'^\s*File "(?P<path>[^"]+)", line (?P<line>\d+), in (?P<function>\S+)')
_EXCEPTION = re.compile(r"^(?:[A-Za-z_][\w.]*\.)?(?P<name>[A-Za-z_]\w*(?:Error|Exception))(?::\s*(?P<text>.*))?$")
_NATIVE_SOURCE = re.compile(r"^\[[^\]]*\.(?:cc|cpp|h|hpp):\d+\]\s*")  # gloo's "[.../pair.cc:553] "


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
    """The last exception line (``RuntimeError: ...``) in a rank's output, without gloo's C++ location."""
    for line in reversed(lines):
        match = _EXCEPTION.match(line.strip())
        if match:
            text = _NATIVE_SOURCE.sub("", match["text"] or "")
            return f"{match['name']}: {text}" if text else match["name"]
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
