"""Where is each rank of a hung live cell waiting? Its Python stack, taken by `runtime.hang_report`
(py-spy by the worker's pid, the faulthandler fallback where py-spy is missing or refused) before
the cell is interrupted, and one line per rank naming the cell line and the torch call (docs/LIVE.md).

On a rank, ipykernel compiles every cell into a file named by a hash of its code
(``<tmp>/ipykernel_<pid>/<hash>.py``, never written to disk); the kernel keeps each cell's code
under that name, so a line of this cell, or of a function an earlier cell defined, can be shown.
"""

from __future__ import annotations

import linecache
import os
import re
from pathlib import Path

from ddp_lessons import tracebacks
from ddp_lessons.i18n import tr
from ddp_lessons.runtime import hang_report, stacks
from ddp_lessons.runtime.rank_output import shorten_paths

CELL_FILE = re.compile(r"[^\s\"(]*ipykernel_\d+[/\\](\d+)\.py")
"""A cell's file on a rank, as py-spy and faulthandler print it; group 1 is the cell's name."""
_PACKAGE_ROOT = str(Path(__file__).resolve().parents[2]) + os.sep  # an editable install's checkout


def cell_name(code: str) -> str | None:
    """The name ipykernel gives `code`'s file on a rank (a hash of the code), or None if unknown."""
    try:
        from ipykernel.compiler import get_tmp_hash_seed, murmur2_x86
    except ImportError:
        return None
    return str(murmur2_x86(code, get_tmp_hash_seed()))


def take(result, pids: dict[int, int], run_dir: str | os.PathLike, cells: dict[str, str],
         current: str | None) -> None:
    """Set ``result.hang`` (a `CellResult`'s) to the report on `pids` ({rank: pid}): their stacks and
    where each waits. Bounded by `stacks.CAPTURE_SECONDS`; a stop press during the capture ends it
    (the cell is then interrupted at once)."""
    try:
        result.hang = hang_report.capture(
            pids, run_dir, locate=lambda text: where(text, cells, current),
            tidy=lambda text: show_cells(shorten_paths(text).replace(_PACKAGE_ROOT, ""), current))
    except KeyboardInterrupt:
        result.interrupted = True


def where(text: str, cells: dict[str, str], current: str | None = None) -> str:
    """One line: the innermost cell line the rank runs and the torch call it waits in.

    E.g. ``in all_reduce() at cell line 4: dist.all_reduce(t)``; ``at cell line 2:
    time.sleep(60)`` when the line calls no Python code of torch; ``line 3 of an earlier cell``
    when the rank waits in a function that cell defined; ``at engine.py:5: dist.all_reduce(t) (called at
    cell line 3: engine.log(t))`` in a module of the learner's own (`tracebacks.is_learner_file`).
    `cells`: {cell name: code}.
    """
    def cell(frame: stacks.Frame) -> str | None:
        found = CELL_FILE.fullmatch(frame.file)
        return found[1] if found else None

    def here(frames: list[stacks.Frame], mine: list[int]) -> str:
        user = frames[mine[0]]
        name = cell(user)
        if name is None:  # a module of the learner's own, imported by a cell
            linecache.checkcache(user.file)
            source = linecache.getline(user.file, user.line).strip()
            place = tr("at {file}:{line}", file=shorten_paths(user.file), line=user.line) \
                + (f": {source}" if source else "")
        else:
            label = tr("cell line {line}", line=user.line) if name == current \
                else tr("line {line} of an earlier cell", line=user.line)
            place = tr("at {place}", place=label) + _source(cells, name, user.line)
        outer = [frames[i] for i in mine if cell(frames[i]) == current]
        if name != current and outer:  # a function an earlier cell or a module defined, called by this cell
            place += tr(" (called at cell line {line}{source})", line=outer[-1].line,
                        source=_source(cells, current, outer[-1].line))
        return place

    # the thread that runs the cell (in IPython's run_code), whichever got the signal
    return stacks.locate(text, runs_ours=lambda frames: any(f.func.endswith("run_code") for f in frames),
                         is_mine=lambda frame: cell(frame) is not None or tracebacks.is_learner_file(frame.file),
                         here=here, show=shorten_paths, outside=tr("not in a cell"))


def _source(cells: dict[str, str], name: str | None, line: int) -> str:
    """': <the source line>' of cell `name`, or '' when the kernel does not know that cell."""
    lines = cells.get(name or "", "").splitlines()
    return f": {lines[line - 1].strip()}" if 0 < line <= len(lines) else ""


def show_cells(text: str, current: str | None) -> str:
    """`text` with cells' file paths (temporary, machine-specific) written ``<cell>`` or ``<cell N>``."""
    return CELL_FILE.sub(lambda m: "<cell>" if m[1] == current else f"<cell {m[1]}>", text)
