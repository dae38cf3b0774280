"""Per-rank JSON records: how a rank tells the notebook what it saw (used by every lesson).

A rank calls ``records.write("sampler", {...})``; the notebook calls
``records.load(result.run_dir, "sampler")`` and gets one list of dicts, sorted by rank.
Nothing is parsed from printed text. Writes are atomic (temp file + rename), so a reader never
sees half a file, even if a rank dies mid-write.
"""

from __future__ import annotations

import json
import os
import tempfile
import time
from pathlib import Path
from typing import Any

from ddp_lessons.i18n import tr
from ddp_lessons.runtime.contract import MANUAL_RUN_DIR, PROGRESS_RECORD, RUN_DIR_ENV, record_glob, record_path


def run_dir() -> Path:
    """The current run's directory (from the launcher), or ./runs/manual under a bare torchrun."""
    return Path(os.environ.get(RUN_DIR_ENV) or MANUAL_RUN_DIR)


def new_run_dir(label: str, root: str | os.PathLike = "runs") -> Path:
    """A fresh, empty run directory ``root/<label>-<time>-<random>`` for one launch."""
    Path(root).mkdir(parents=True, exist_ok=True)
    stamp = time.strftime("%Y%m%d-%H%M%S")
    return Path(tempfile.mkdtemp(prefix=f"{label}-{stamp}-", dir=root))


def write(name: str, data: dict[str, Any], rank: int | None = None,
          directory: str | os.PathLike | None = None) -> Path:
    """Atomically write this rank's record `name` as JSON; return its path."""
    rank = int(os.environ.get("RANK", 0)) if rank is None else rank
    directory = Path(directory) if directory is not None else run_dir()
    directory.mkdir(parents=True, exist_ok=True)
    path = record_path(directory, name, rank)
    fd, tmp = tempfile.mkstemp(prefix=path.name, suffix=".tmp", dir=directory)
    try:
        with os.fdopen(fd, "w") as f:
            json.dump({"rank": rank, **data}, f)
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise
    return path


def load(directory: str | os.PathLike, name: str) -> list[dict[str, Any]]:
    """All ranks' records `name` from `directory`, one dict per rank, sorted by rank."""
    paths = sorted(Path(directory).glob(record_glob(name)))
    if not paths:
        raise FileNotFoundError(tr("no records named {name!r} in {directory} (did every rank call records.write "
                                   "with this name?)", name=name, directory=directory))
    rows = [json.loads(p.read_text()) for p in paths]
    return sorted(rows, key=lambda row: row["rank"])


PROGRESS_INTERVAL = 0.25
"""Seconds between two progress writes of one rank at most (the first and last step always write)."""
_progress_state: dict[str, float] = {}


def progress(step: int, total: int, *, samples: int | None = None, force: bool = False,
             **extra: Any) -> bool:
    """Report this rank's progress, step `step` of `total` (live bars, lesson 11); True if written.

    Cheap enough to call every step: it writes (atomically, like `write`) at most once per
    `PROGRESS_INTERVAL` seconds, plus always the first call and the last step. `samples` counts the
    samples this rank has processed so far (for samples/s); `force` writes now (a loop that stops
    early); `extra` (e.g. ``phase="warm-up"``) is shown next to the bar.
    """
    now = time.time()
    if step < _progress_state.get("step", 0):  # a new loop (the next setup, phase or epoch)
        _progress_state.clear()
    if "start" not in _progress_state:  # rates count from the first report of this loop
        _progress_state.update(start=now, start_step=step, start_samples=samples)
    _progress_state["step"] = step
    last = _progress_state.get("last")
    if last is not None and step < total and not force and now - last < PROGRESS_INTERVAL:
        return False
    _progress_state["last"] = now
    state = _progress_state
    write(PROGRESS_RECORD, {"step": step, "total": total, "samples": samples, "time": now,
                     "start": state["start"], "start_step": state["start_step"],
                     "start_samples": state["start_samples"], **extra})
    return True
