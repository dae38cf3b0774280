"""Live per-rank progress of a running job: one bar per rank in JupyterLab, plain lines elsewhere.

A rank reports with ``records.progress(step, total, samples=...)`` (a small JSON file in the run
directory, at most a few writes per second). ``launch.run_torchrun(..., progress=True)`` starts a
`Watcher` that polls those files while the job runs and shows them:

* in a notebook served by Jupyter (JupyterLab, Notebook 7): one ipywidgets ``FloatProgress`` per
  rank with "step k/n, samples/s", updated live from the watcher's thread and left on the page as
  the job's summary when it ends (no ``Output`` widget, no ``clear_output``: nbval-safe);
* anywhere else (a terminal, nbval, ``make course``): a plain line per rank every few seconds and
  a summary line per rank at the end.

Which one: `ddp_lessons.base.frontend.live_frontend` (``DDP_LESSONS_PROGRESS=text`` or ``=widgets`` forces
one). Taught in lesson 11.
"""

from __future__ import annotations

import json
import os
import threading
import time
from pathlib import Path
from typing import Any

from ddp_lessons.base.frontend import live_frontend
from ddp_lessons.i18n import label, tr
from ddp_lessons.i18n.labels import LABELS
from ddp_lessons.runtime.contract import PROGRESS_RECORD, record_glob

POLL_SECONDS = 0.2
TEXT_EVERY_SECONDS = 5.0
_FIELDS = ("rank", "step", "total", "samples", "time", "start", "start_step", "start_samples")


def read(run_dir: str | os.PathLike) -> dict[int, dict[str, Any]]:
    """The latest progress record of each rank in `run_dir`, {rank: record} (ranks not started yet are absent)."""
    rows = {}
    for path in Path(run_dir).glob(record_glob(PROGRESS_RECORD)):
        try:
            row = json.loads(path.read_text())
        except (OSError, ValueError):  # replaced while we read it: take the next poll's
            continue
        rows[int(row["rank"])] = row
    return rows


def rate(row: dict[str, Any]) -> tuple[float | None, str]:
    """(rate, unit) since the rank's first report: samples/s when it counts samples, else steps/s.

    The rate is None until a second report (one report has no elapsed time).
    """
    seconds = row["time"] - row["start"]
    if row.get("samples") is not None:
        done, unit = row["samples"] - (row.get("start_samples") or 0), "samples/s"
    else:
        done, unit = row["step"] - row.get("start_step", 0), "steps/s"
    return (done / seconds if seconds > 0 else None), unit


def describe(row: dict[str, Any] | None) -> str:
    """One rank's progress as short text: 'step 40/120, 812 samples/s, phase=warm-up'.

    The rate counts from the rank's first report in this loop, so it leaves out start-up time.
    """
    if row is None:
        return tr("waiting for the first step")
    speed, unit = rate(row)
    extra = "".join(f", {key}={label(value) if isinstance(value, str) and value in LABELS else value}"
                    for key, value in row.items() if key not in _FIELDS)  # a setup's name: i18n.label
    unit = tr("samples/s") if unit == "samples/s" else tr("steps/s")
    speed_text = tr("{speed:,.0f} {unit}", speed=speed, unit=unit) if speed is not None else f"- {unit}"
    return tr("step {step}/{total}, {speed}", step=row["step"], total=row["total"], speed=speed_text) + extra


class TextDisplay:
    """Plain lines: each rank's progress every `every` seconds, and a summary line per rank at the end."""

    def __init__(self, world_size: int, every: float = TEXT_EVERY_SECONDS):
        self.world_size, self.every, self.last = world_size, every, time.monotonic()

    def update(self, rows: dict[int, dict[str, Any]]) -> None:
        if rows and time.monotonic() - self.last >= self.every:
            self.last = time.monotonic()
            for rank in range(self.world_size):
                print(tr("[progress] rank {rank}: {progress}", rank=rank, progress=describe(rows.get(rank))), flush=True)

    def finish(self, rows: dict[int, dict[str, Any]], ok: bool) -> None:
        for rank in sorted(rows):
            print(tr("[progress] rank {rank} done: {progress}", rank=rank, progress=describe(rows[rank])) if ok else
                  tr("[progress] rank {rank} stopped: {progress}", rank=rank, progress=describe(rows[rank])), flush=True)


class WidgetDisplay:
    """One ipywidgets progress bar per rank, updated in place; left on the page as the summary."""

    def __init__(self, world_size: int):
        import ipywidgets as widgets
        from IPython.display import display

        self.bars, self.labels = [], []
        rows = []
        for rank in range(world_size):
            bar = widgets.FloatProgress(value=0, min=0, max=1, description=tr("rank {rank}", rank=rank),
                                        layout=widgets.Layout(width="45%"))
            bar.add_class("ddp-progress-bar")
            label = widgets.Label(describe(None))
            label.add_class("ddp-progress-label")
            self.bars.append(bar)
            self.labels.append(label)
            rows.append(widgets.HBox([bar, label]))
        self.box = widgets.VBox(rows)
        self.box.add_class("ddp-progress")
        display(self.box)

    def update(self, rows: dict[int, dict[str, Any]]) -> None:
        for rank, row in rows.items():
            if rank < len(self.bars):
                self.bars[rank].max = max(row["total"], 1)
                self.bars[rank].value = row["step"]
                self.labels[rank].value = describe(row)

    def finish(self, rows: dict[int, dict[str, Any]], ok: bool) -> None:
        self.update(rows)
        for rank, bar in enumerate(self.bars):
            done = rank in rows and rows[rank]["step"] >= rows[rank]["total"]
            bar.bar_style = "success" if ok and done else "" if ok else "danger"


class Watcher:
    """Polls a run directory's progress records in a thread and shows them (started by run_torchrun)."""

    def __init__(self, run_dir: str | os.PathLike, world_size: int, display: Any = None,
                 poll_seconds: float = POLL_SECONDS):
        self.run_dir, self.poll_seconds = Path(run_dir), poll_seconds
        if display is None:
            display = WidgetDisplay(world_size) if live_frontend() else TextDisplay(world_size)
        self.display = display
        self.rows: dict[int, dict[str, Any]] = {}
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._loop, name="ddp-progress", daemon=True)

    def start(self) -> "Watcher":
        self._thread.start()
        return self

    def poll(self) -> dict[int, dict[str, Any]]:
        """Read the records now and update the display; returns {rank: latest record}."""
        rows = read(self.run_dir)
        if rows != self.rows:
            self.rows = rows
            self.display.update(rows)
        return rows

    def _loop(self) -> None:
        while not self._stop.wait(self.poll_seconds):
            try:
                self.poll()
            except Exception as error:  # a display problem must never break the job
                print(tr("[progress] display stopped: {error!r}", error=error), flush=True)
                return

    def stop(self, ok: bool = True) -> dict[int, dict[str, Any]]:
        """Stop polling, show the final state as a summary (`ok`: the job succeeded); returns it."""
        self._stop.set()
        if self._thread.is_alive():
            self._thread.join(timeout=5)
        self.rows = read(self.run_dir)
        self.display.finish(self.rows, ok)
        return self.rows
