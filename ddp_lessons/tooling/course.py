"""`make course`: execute every lesson notebook headless and print lesson, seconds, status.

Notebooks run with nbclient in a scratch copy of their folder (the originals stay untouched),
one at a time, with a per-cell timeout. This is how an instructor checks a machine.
``--check-outputs`` also compares each ``# NBVAL_CHECK_OUTPUT`` cell's text with the stored one, as
nbval does (sanitized by ``tests/nbval_sanitize.cfg``), in the lessons whose stored outputs come from
a run in their own language: `make course-es` runs the Spanish lessons so. ``--store`` (authors) runs
notebooks in place and keeps their outputs, refusing outputs that show a machine path; a generated
translation (``notebooks/es/``) is stored by `translations.store`, with the record of the code it ran.
"""

from __future__ import annotations

import argparse
import configparser
import os
import re
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
from ddp_lessons.i18n import number, tr
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
        status = tr("cell timed out after {timeout} s", timeout=cell_timeout)
    except DeadKernelError as exc:
        status = tr("kernel died: {error}", error=str(exc).strip().splitlines()[0])
    except CellExecutionError as exc:
        status = _first_error_line(exc)
    return nb, Outcome(path.name, time.perf_counter() - start, status)


def _first_error_line(exc: CellExecutionError) -> str:
    name = getattr(exc, "ename", "") or "error"
    value = (getattr(exc, "evalue", "") or "").strip().splitlines()
    return f"{name}: {value[0]}" if value else name


def run_course(folder: str | Path = "notebooks", cell_timeout: int = CELL_TIMEOUT,
               check_outputs: bool = False) -> list[Outcome]:
    """Execute every ``NN_*.ipynb`` in `folder`, in order, in a scratch copy of the folder; with
    `check_outputs`, a checked cell whose text differs from the stored one fails its notebook."""
    folder = Path(folder)
    outcomes = []
    sanitizers = load_sanitizers(folder) if check_outputs else []
    with tempfile.TemporaryDirectory(prefix="ddp-course-") as scratch:
        copy = Path(scratch) / folder.name
        shutil.copytree(folder, copy, ignore=shutil.ignore_patterns("runs", ".ipynb_checkpoints"))
        for notebook in sorted(copy.glob(NOTEBOOK_PATTERN)):
            ran, outcome = execute(notebook, cell_timeout)
            stored = nbformat.read(folder / notebook.name, as_version=4) if check_outputs else None
            if outcome.ok and stored is not None and ran_in_its_language(stored):
                differ = checked_differences(stored, ran, sanitizers)
                if differ:
                    outcome.status = differ[0]
            print(f"{outcome.notebook:<40} {outcome.seconds:7.1f} s  {outcome.status}", flush=True)
            outcomes.append(outcome)
    return outcomes


MACHINE_PATH = re.compile(r"(?<![\w.~-])/(?:work|root|tmp|home|Users|private|var/folders)/\S*")
"""Where a path shows whose machine ran the notebook: stored outputs must not (they read on any machine)."""


def machine_paths(notebook: nbformat.NotebookNode, extra: tuple[str, ...] = ()) -> list[str]:
    """``cell N: /path...`` for every output text of `notebook` that shows a machine path (or the
    course's own folder, the user's home, or any of `extra`)."""
    here = tuple(p for p in {str(Path.cwd().resolve()), str(Path.home())} if len(p) > 1) + extra
    found = []
    for index, cell in enumerate(notebook.cells):
        for output in cell.get("outputs", []):
            texts = [output.get("text", ""), output.get("evalue", ""), *output.get("traceback", [])]
            texts += [value for key, value in output.get("data", {}).items()
                      if key.startswith("text/") and isinstance(value, str)]
            for text in texts:
                shown = MACHINE_PATH.search(text) or next((p for p in here if p in text), None)
                if shown:
                    found.append(f"cell {index}: {shown[0] if isinstance(shown, re.Match) else shown}")
                    break
    return found


CHECK_MARK = "# NBVAL_CHECK_OUTPUT"


def ran_in_its_language(notebook: nbformat.NotebookNode) -> bool:
    """False for a translation whose stored outputs are still copies of the English run (no Spanish
    run recorded): its checked cells print in Spanish what the stored outputs say in English."""
    meta = notebook.metadata.get("ddp_lessons", {})
    return not meta.get("translated_from") or bool(meta.get("run"))


def load_sanitizers(folder: Path) -> list[tuple[re.Pattern, str]]:
    """The (regex, replacement) pairs of the course's ``tests/nbval_sanitize.cfg``, found from `folder`
    upwards (none when there is no such file: outputs are then compared as they are)."""
    for parent in [Path(folder).resolve(), *Path(folder).resolve().parents]:
        config = parent / "tests" / "nbval_sanitize.cfg"
        if config.exists():
            parser = configparser.ConfigParser(interpolation=None)
            parser.read(config, encoding="utf-8")
            return [(re.compile(parser[name]["regex"]), parser[name]["replace"]) for name in parser.sections()]
    return []


def _checked_text(cell: nbformat.NotebookNode, sanitizers: list[tuple[re.Pattern, str]]) -> str:
    """What nbval compares of a cell, as one text: the streams joined per name, then each output's
    text/plain; sanitized."""
    streams: dict[str, str] = {}
    parts = []
    for output in cell.get("outputs", []):
        if output.output_type == "stream":
            if output.name not in streams:
                parts.append(output.name)
            streams[output.name] = streams.get(output.name, "") + output.text
        elif "text/plain" in output.get("data", {}):
            parts.append("\0" + output["data"]["text/plain"])
    text = "\n".join(streams.get(part, part) for part in parts)
    for pattern, replacement in sanitizers:
        text = pattern.sub(replacement, text)
    return text


def checked_differences(stored: nbformat.NotebookNode, ran: nbformat.NotebookNode,
                        sanitizers: list[tuple[re.Pattern, str]]) -> list[str]:
    """For each ``# NBVAL_CHECK_OUTPUT`` cell whose text differs from the stored one: which, and how."""
    found = []
    fresh = {cell.get("id"): cell for cell in ran.cells}
    for index, cell in enumerate(stored.cells):
        if cell.cell_type != "code" or CHECK_MARK not in [line.strip() for line in cell.source.split("\n")]:
            continue
        want, got = _checked_text(cell, sanitizers), _checked_text(fresh.get(cell.get("id"), cell), sanitizers)
        if want != got:
            first = next((f"{a!r} stored, {b!r} now" for a, b in zip(want.split("\n"), got.split("\n")) if a != b),
                         "a different number of lines")
            found.append(f"cell {index} ({CHECK_MARK}) differs from its stored output: {first}")
    return found


def execute_in_place(path: str | Path, cell_timeout: int = CELL_TIMEOUT) -> Outcome:
    """Run a notebook in its own folder and store its fresh outputs in it (for authors); nothing is
    stored when a cell fails or an output shows a machine path. A generated translation is stored
    by `translations.store` (its outputs with the record of the code that made them)."""
    from ddp_lessons.tooling import translations

    nb = nbformat.read(path, as_version=4)
    if nb.metadata.get("ddp_lessons", {}).get("translated_from"):
        return translations.store(translations.edition_of(Path(path), nb.metadata["ddp_lessons"]["language"]),
                                  cell_timeout)
    nb, outcome = execute(path, cell_timeout)
    shown = machine_paths(nb) if outcome.ok else []
    if shown:
        outcome.status = f"not stored: outputs show machine paths ({'; '.join(shown[:3])})"
    elif outcome.ok:
        nbformat.write(nb, str(path))
    return outcome


def format_table(outcomes: list[Outcome]) -> str:
    """The course run as a table with a total line."""
    lines = [f"{tr('lesson'):<40} {tr('seconds'):>9}  {tr('status')}", "-" * 60]
    lines += [f"{o.notebook:<40} {number(o.seconds, '9.1f')}  {o.status}" for o in outcomes]
    failed = sum(not o.ok for o in outcomes)
    lines += ["-" * 60, f"{tr('total'):<40} {number(sum(o.seconds for o in outcomes), '9.1f')}  "
              + tr("{ok} ok, {failed} failed", ok=len(outcomes) - failed, failed=failed)]
    return "\n".join(lines)


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("folder", nargs="?", default="notebooks", help="folder of NN_*.ipynb lessons")
    parser.add_argument("--cell-timeout", type=int, default=CELL_TIMEOUT, help="seconds per cell")
    parser.add_argument("--store", nargs="+", metavar="NOTEBOOK",
                        help="(authors) execute these notebooks in place and keep their outputs")
    parser.add_argument("--check-outputs", action="store_true",
                        help="also fail a lesson whose # NBVAL_CHECK_OUTPUT cells print what its stored outputs do not")


def run(args: argparse.Namespace) -> int:
    if args.store:
        stored = [execute_in_place(path, args.cell_timeout) for path in args.store]
        print(format_table(stored))
        return 0 if all(o.ok for o in stored) else 1
    outcomes = run_course(args.folder, args.cell_timeout, args.check_outputs)
    print(format_table(outcomes))
    if not outcomes:
        print(tr("no lessons (NN_*.ipynb) found in {folder}", folder=args.folder), file=sys.stderr)
        return 1
    return 0 if all(o.ok for o in outcomes) else 1
