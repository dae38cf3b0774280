"""Reassemble torchrun's teed output into each rank's own lines (used by `launch.run_torchrun`).

torchrun (``--tee 3``) copies every rank's stdout and stderr to its own two streams. The launcher
asks torchrun to prefix each piece with `contract.RANK_MARK`, two control characters around the global
rank that no program prints, so every piece can be filed under the rank that wrote it.
"""

from __future__ import annotations

import os
import re
import sys
import sysconfig
import threading
from pathlib import Path
from typing import Iterable, Sequence

from ddp_lessons.runtime.contract import RANK_MARK_PATTERN
from ddp_lessons.tracebacks import TORCH_RANK_TAG  # torch tags a rank's uncaught exception lines

TAIL_LINES = 15
"""How many lines of a rank's output an error message shows."""


def pump(stream: Iterable[str], result, lock: threading.Lock, echo: bool) -> None:
    """Read one torchrun stream into ``result.rank_lines`` / ``result.launcher_lines``; echo lines.

    torchrun's tee copies a rank's log file to its own stream as it grows, so a line the rank
    wrote in two pieces can arrive in two pieces, with another rank's line in between. Each
    piece carries its rank's marker; a piece is a whole line only where the stream's line ends.
    """
    pending: dict[int, str] = {}

    def emit(rank: int, text: str) -> None:
        text = TORCH_RANK_TAG.sub("", text, count=1)
        result.rank_lines.setdefault(rank, []).append(text)
        if echo:
            print(f"[rank {rank}] {text}", flush=True)

    for raw in stream:
        head, *pieces = RANK_MARK_PATTERN.split(raw.rstrip("\r\n"))
        with lock:
            if head or not pieces:  # torchrun's own output
                result.launcher_lines.append(head)
                if echo and not is_torchrun_noise(head):
                    print(f"[torchrun] {head}", flush=True)
            for i in range(0, len(pieces), 2):
                rank = int(pieces[i])
                pending[rank] = pending.get(rank, "") + pieces[i + 1]
                if i == len(pieces) - 2:
                    emit(rank, pending.pop(rank))
    with lock:
        for rank, text in sorted(pending.items()):
            emit(rank, text)


def is_torchrun_noise(line: str) -> bool:
    """Whether `line` is torchrun's own chatter a student need not see live (kept in launcher_lines)."""
    return (not line.strip() or line.startswith(("*****", "Setting OMP_NUM_THREADS"))
            or bool(re.match(r"^[WIE]\d{4} ", line)))


def tail(lines: Sequence[str], n: int = TAIL_LINES) -> str:
    """The last `n` non-blank-ended lines, indented by four spaces, as one string."""
    lines = list(lines)
    while lines and not lines[-1].strip():
        lines.pop()
    return "\n".join("    " + line for line in lines[-n:])


def shorten_paths(text: str, cwd: str | os.PathLike | None = None) -> str:
    """`text` with the working directory, site-packages and stdlib prefixes cut from its paths."""
    prefixes = {str(Path(cwd or os.getcwd())) + os.sep}
    prefixes |= {sysconfig.get_path(key) + os.sep for key in ("purelib", "platlib", "stdlib")}
    prefixes |= {prefix + os.sep for prefix in (sys.prefix, sys.base_prefix)}
    text = re.sub(r"[^\s\"(]*/(site|dist)-packages/", "", text)
    for prefix in sorted(prefixes, key=len, reverse=True):
        text = text.replace(prefix, "")
    return text
