"""Per-submission result records: every graded notebook's `Grade`, one JSON file each in the run folder,
written as soon as it is graded, by local ``--jobs`` and by each SLURM task alike; and `merge`, the one
function that turns them into the class's grades (in student, exercise order) for the gradebook, the
feedback, the class report and the export formats.

The run folder (``grades-run/`` beside ``--out grades.csv``)::

    manifest.json                      what was graded and how (`jobs.Settings`): --resume checks it
    results/<student>/<NN_topic>.json  {"submission": sha256 of the notebook graded, "grade": {...}}
    slurm/                             the job script, each round's task lists, the tasks' logs

A result counts for ``--resume`` only while the student's notebook is the one it graded (same hash):
a notebook handed in again after an interrupted run is graded again.
"""

from __future__ import annotations

import hashlib
import json
import os
import shutil
from dataclasses import asdict, dataclass, fields
from pathlib import Path
from typing import Callable, Iterable

from ddp_lessons.grading.scoring import CheckResult, Grade, LimitHit, Status
from ddp_lessons.i18n import SOURCE, tr

RESULTS = "results"
MANIFEST = "manifest.json"


class Reason(str):
    """Why a notebook has no grade: the English text the gradebook stores (``failed_checks``, which other
    programs read: the str itself), and what the instructor's command line says (`said`, in its language).
    Made from a function of the language: ``Reason(lambda lang: tr("was cancelled", lang=lang))``."""

    said: str

    def __new__(cls, say: Callable[[str | None], str]) -> "Reason":
        reason = super().__new__(cls, say(SOURCE))
        reason.said = say(None)
        return reason


@dataclass(frozen=True, order=True)
class Notebook:
    """One submission to grade: a student's notebook for one exercise."""

    student: str
    exercise: str

    @property
    def name(self) -> str:
        """``alice/05_distributed_sampler``, as the grader's lines and reports name it."""
        return f"{self.student}/{self.exercise}"


def run_folder(out: Path) -> Path:
    """The run folder beside gradebook `out`: ``grades.csv`` -> ``grades-run``."""
    return out.with_name(f"{out.stem}-run")


def result_path(run: Path, notebook: Notebook) -> Path:
    return run / RESULTS / notebook.student / f"{notebook.exercise}.json"


def fingerprint(submission: Path) -> str | None:
    """The sha256 of a submitted notebook's bytes (None when it was not handed in)."""
    if not submission.is_file():
        return None
    return hashlib.sha256(submission.read_bytes()).hexdigest()


# --- a Grade as JSON ---------------------------------------------------------------------------------

def grade_to_dict(grade: Grade) -> dict:
    """Everything a `Grade` holds, as JSON-ready values."""
    data = asdict(grade)
    data["status"] = str(grade.status)
    data["usage"] = None if grade.usage is None else asdict(grade.usage)
    return data


def grade_from_dict(data: dict) -> Grade:
    """The `Grade` `grade_to_dict` wrote."""
    from ddp_lessons.grading.watch import Usage  # psutil: only where results are read back

    known = {f.name for f in fields(Grade)}
    data = {key: value for key, value in data.items() if key in known}
    data["status"] = Status(data.get("status", Status.GRADED))
    data["checks"] = [CheckResult(**check) for check in data.get("checks", [])]
    data["limit"] = LimitHit(**data["limit"]) if data.get("limit") else None
    data["usage"] = Usage(**data["usage"]) if data.get("usage") else None
    return Grade(**data)


# --- the run folder ------------------------------------------------------------------------------------

def write_result(run: Path, notebook: Notebook, grade: Grade, submission_hash: str | None) -> Path:
    """Store `grade` as `notebook`'s result, atomically (a reader never sees half a file)."""
    path = result_path(run, notebook)
    path.parent.mkdir(parents=True, exist_ok=True)
    partial = path.with_name(f".{path.name}.{os.getpid()}.partial")
    partial.write_text(json.dumps({"submission": submission_hash, "grade": grade_to_dict(grade)}),
                       encoding="utf-8")
    os.replace(partial, path)
    return path


def read_result(run: Path, notebook: Notebook) -> tuple[Grade, str | None] | None:
    """(grade, hash of the notebook it graded) stored for `notebook`, or None (none, or unreadable)."""
    path = result_path(run, notebook)
    try:
        stored = json.loads(path.read_text(encoding="utf-8"))
        return grade_from_dict(stored["grade"]), stored.get("submission")
    except (OSError, ValueError, KeyError, TypeError):
        return None


def read_results(run: Path, notebooks: Iterable[Notebook], submissions: Path) -> dict[Notebook, Grade]:
    """The stored grades of `notebooks` that still grade the notebook handed in (same hash)."""
    found = {}
    for notebook in notebooks:
        stored = read_result(run, notebook)
        if stored is not None and stored[1] == fingerprint(submissions / notebook.student
                                                           / f"{notebook.exercise}.ipynb"):
            found[notebook] = stored[0]
    return found


def differences(old: dict, new: dict) -> list[str]:
    """The keys (``limits.memory`` for nested ones) whose values differ between `old` and `new`."""
    found = []
    for key in sorted(set(old) | set(new)):
        a, b = old.get(key), new.get(key)
        if isinstance(a, dict) and isinstance(b, dict):
            found += [f"{key}.{inner}" if key != "settings" else inner for inner in differences(a, b)]
        elif a != b:
            found.append(key)
    return found


def start_run(run: Path, manifest: dict, resume: bool) -> None:
    """Prepare the run folder: with `resume`, keep its results when `manifest` matches the stored one
    (else raise ValueError saying what differs); without, start empty."""
    stored_path = run / MANIFEST
    if resume and stored_path.exists():
        stored = json.loads(stored_path.read_text(encoding="utf-8"))
        differs = differences(stored, manifest)
        if differs:
            raise ValueError(tr("--resume: {run} holds a run graded with other settings ({differs}); grade again "
                                "without --resume, or with the same options", run=str(run), differs=", ".join(differs)))
    elif stored_path.exists() or (run / RESULTS).exists():
        for name in (RESULTS, "slurm"):  # only what the grader writes there
            shutil.rmtree(run / name, ignore_errors=True)
    run.mkdir(parents=True, exist_ok=True)
    stored_path.write_text(json.dumps(manifest, indent=1, sort_keys=True), encoding="utf-8")


# --- the one merge ---------------------------------------------------------------------------------------

def merge(notebooks: Iterable[Notebook], found: dict[Notebook, Grade], checks_of,
          missing: dict[Notebook, str] | None = None) -> list[Grade]:
    """The class's grades in (student, exercise) order: each notebook's result from `found`, else a
    NOT_GRADED grade saying why (`missing`, or 'no result') with no points, never a silent zero.
    `checks_of(exercise)` gives an exercise's check cells (its points and titles)."""
    from ddp_lessons.grading import scoring

    grades = []
    for notebook in sorted(notebooks):
        if notebook in found:
            grades.append(found[notebook])
            continue
        why = (missing or {}).get(notebook, "no result")
        grades.append(scoring.unscored(notebook.student, notebook.exercise, checks_of(notebook.exercise),
                                       Status.NOT_GRADED, f"not graded: {why}"))
    return grades
