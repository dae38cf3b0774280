"""`make course`: execute every lesson notebook headless and print lesson, seconds, status.

Notebooks run with nbclient in a scratch copy of their folder (the originals stay untouched),
one at a time, with a per-cell timeout. This is how an instructor checks a machine.
"""

from __future__ import annotations

import argparse
import os
import shutil
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

import nbformat
from nbclient import NotebookClient
from nbclient.exceptions import CellExecutionError, CellTimeoutError, DeadKernelError

from ddp_lessons.base.conventions import CELL_TIMEOUT, NOTEBOOK_PATTERN
from ddp_lessons.runtime.contract import JOURNAL_ENV


@dataclass
class Outcome:
    """How one notebook ran: name, wall seconds, and 'ok' or the first error line."""

    notebook: str
    seconds: float
    status: str

    @property
    def ok(self) -> bool:
        return self.status == "ok"


def execute(path: str | Path, cell_timeout: int = CELL_TIMEOUT, workdir: str | Path | None = None,
            kernel_name: str = "python3") -> tuple[nbformat.NotebookNode, Outcome]:
    """Run notebook `path` top to bottom in `workdir` (default: its own folder); never raises."""
    path = Path(path)
    nb = nbformat.read(path, as_version=4)
    client = NotebookClient(nb, timeout=cell_timeout, kernel_name=kernel_name,
                            resources={"metadata": {"path": str(workdir or path.parent)}})
    start = time.perf_counter()
    status = "ok"
    try:
        client.execute(env={**os.environ, JOURNAL_ENV: "off"})  # writes into no learner's record
    except CellTimeoutError:
        status = f"cell timed out after {cell_timeout} s"
    except DeadKernelError as exc:
        status = f"kernel died: {str(exc).strip().splitlines()[0]}"
    except CellExecutionError as exc:
        status = _first_error_line(exc)
    return nb, Outcome(path.name, time.perf_counter() - start, status)


def _first_error_line(exc: CellExecutionError) -> str:
    name = getattr(exc, "ename", "") or "error"
    value = (getattr(exc, "evalue", "") or "").strip().splitlines()
    return f"{name}: {value[0]}" if value else name


def run_course(folder: str | Path = "notebooks", cell_timeout: int = CELL_TIMEOUT) -> list[Outcome]:
    """Execute every ``NN_*.ipynb`` in `folder`, in order, in a scratch copy of the folder."""
    folder = Path(folder)
    outcomes = []
    with tempfile.TemporaryDirectory(prefix="ddp-course-") as scratch:
        copy = Path(scratch) / folder.name
        shutil.copytree(folder, copy, ignore=shutil.ignore_patterns("runs", ".ipynb_checkpoints"))
        for notebook in sorted(copy.glob(NOTEBOOK_PATTERN)):
            _, outcome = execute(notebook, cell_timeout)
            print(f"{outcome.notebook:<40} {outcome.seconds:7.1f} s  {outcome.status}", flush=True)
            outcomes.append(outcome)
    return outcomes


def execute_in_place(path: str | Path, cell_timeout: int = CELL_TIMEOUT) -> Outcome:
    """Run a notebook in its own folder and store its fresh outputs in it (for authors)."""
    nb, outcome = execute(path, cell_timeout)
    if outcome.ok:
        nbformat.write(nb, str(path))
    return outcome


def format_table(outcomes: list[Outcome]) -> str:
    """The course run as a table with a total line."""
    lines = [f"{'lesson':<40} {'seconds':>9}  status", "-" * 60]
    lines += [f"{o.notebook:<40} {o.seconds:9.1f}  {o.status}" for o in outcomes]
    failed = sum(not o.ok for o in outcomes)
    lines += ["-" * 60, f"{'total':<40} {sum(o.seconds for o in outcomes):9.1f}  "
              f"{len(outcomes) - failed} ok, {failed} failed"]
    return "\n".join(lines)


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("folder", nargs="?", default="notebooks", help="folder of NN_*.ipynb lessons")
    parser.add_argument("--cell-timeout", type=int, default=CELL_TIMEOUT, help="seconds per cell")
    parser.add_argument("--store", nargs="+", metavar="NOTEBOOK",
                        help="(authors) execute these notebooks in place and keep their outputs")


def run(args: argparse.Namespace) -> int:
    if args.store:
        stored = [execute_in_place(path, args.cell_timeout) for path in args.store]
        print(format_table(stored))
        return 0 if all(o.ok for o in stored) else 1
    outcomes = run_course(args.folder, args.cell_timeout)
    print(format_table(outcomes))
    if not outcomes:
        print(f"no lessons (NN_*.ipynb) found in {args.folder}", file=sys.stderr)
        return 1
    return 0 if all(o.ok for o in outcomes) else 1
