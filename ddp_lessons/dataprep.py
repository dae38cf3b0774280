"""A simulated slow data download for lesson 11's "prepare data once": rank 0 writes, others read.

`download(path)` is rank 0's download and preprocessing: it writes a CSV file in two halves with a
pause in between, as a slow network or a long preprocessing step would, and a last line that
marks the end. `read(path)` is what every rank does next: read the file and say whether it was
missing, partial or complete (a plain CSV reader would not notice a partial file: it just reads
fewer rows).

To make the race come out the same on every run (as lesson 8's observer does for checkpoints),
the pause lasts until every other rank has either finished reading the file or is waiting in
`dist.barrier()` (announced by `announce_barrier`, which patches it inside `observed`), and at
most `MAX_PAUSE` seconds. So a rank that reads without waiting for the barrier always reads
before the file is complete, however the ranks are scheduled, and a rank that waits reads it whole.
A rank that first calls `wait_for_first_rows` (a moment of other work) reads exactly the first half.
"""

from __future__ import annotations

import contextlib
import os
import time
from pathlib import Path
from typing import Iterator

import torch.distributed as dist

ROWS = 1000
MIN_PAUSE = 0.5
"""Seconds the simulated download takes at least (a real one takes minutes)."""
MAX_PAUSE = 15.0
"""Seconds rank 0 waits at most for the other ranks to read or reach the barrier."""


def _signal(path: Path, rank: int, what: str) -> Path:
    return path.with_name(f"{path.name}.rank{rank}.{what}")


def download(path: str | os.PathLike, rows: int = ROWS) -> None:
    """Rank 0's slow download: the first half of `rows` CSV rows, a pause, the rest, an end line."""
    path = Path(path)
    lines = [f"{i},{(7 * i) % 10},{i % 2}\n" for i in range(rows)]
    start = time.monotonic()
    with open(path, "w") as f:  # written in place, as most download and preprocessing code does
        f.write("index,feature,label\n" + "".join(lines[:rows // 2]))
        f.flush()
        others = range(1, dist.get_world_size()) if dist.is_initialized() else range(0)
        while time.monotonic() - start < MAX_PAUSE and (
                time.monotonic() - start < MIN_PAUSE
                or not all(_signal(path, r, "read").exists() or _signal(path, r, "barrier").exists()
                           for r in others)):
            time.sleep(0.01)
        f.write("".join(lines[rows // 2:]) + f"# end: {rows} rows\n")


def wait_for_first_rows(path: str | os.PathLike, rows: int = ROWS, timeout: float = MAX_PAUSE) -> None:
    """Stands for other work that keeps a rank busy a moment: returns once rank 0's `download(path)`
    has written its first half (or after `timeout` seconds), so a read right after finds a partial file."""
    path, start = Path(path), time.monotonic()
    while time.monotonic() - start < timeout:
        if path.exists() and path.read_text().count("\n") > rows // 2:  # the header and the first half
            return
        time.sleep(0.01)


def read(path: str | os.PathLike) -> dict:
    """Read the prepared file: {'status': 'missing' | 'partial' | 'complete', 'rows': rows read}."""
    path = Path(path)
    try:
        text = path.read_text()
    except FileNotFoundError:
        found = {"status": "missing", "rows": 0}
    else:
        lines = text.splitlines()
        rows = [line for line in lines[1:] if not line.startswith("#")]
        complete = bool(lines) and lines[-1].startswith("# end:")
        found = {"status": "complete" if complete else "partial", "rows": len(rows)}
    rank = dist.get_rank() if dist.is_initialized() else 0
    _signal(path, rank, "read").touch()  # tells rank 0's download this rank has read
    return found


@contextlib.contextmanager
def observed(path: str | os.PathLike) -> Iterator[None]:
    """Inside, `dist.barrier()` first tells rank 0's `download(path)` that this rank waits there."""
    path, real_barrier = Path(path), dist.barrier

    def barrier(*args, **kwargs):
        _signal(path, dist.get_rank(), "barrier").touch()
        return real_barrier(*args, **kwargs)

    dist.barrier = barrier
    try:
        yield
    finally:
        dist.barrier = real_barrier
