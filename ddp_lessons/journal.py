"""The learner's record ("journal"): what they answered, predicted and passed, kept in their course folder.

One JSON object per line, appended, never rewritten: ``my_progress.jsonl`` at the course's root
(git-ignored; never sent anywhere), or the path in ``DDP_LESSONS_JOURNAL``. `quiz` appends a question's
first answer and a numeric prediction's reveal, the checks (`checks.common.recorded`) each check's
result; ``python -m ddp_lessons progress`` and lesson 00 read it (`report_card`), the grader's class
report can read a handed-in copy.

Every line is an event (format version `VERSION`)::

    {"v": 1, "event": "answer", "time": "2026-12-03T10:04:05+00:00", "lang": "en", "lesson": "06",
     "question": 1, "kind": "predict", "answer": "b", "correct": true, "confidence": "sure", "via": "widget"}
    {"v": 1, "event": "answer", ..., "question": 3, "kind": "numeric", "answer": 5, "correct": null, ...}
    {"v": 1, "event": "reveal", ..., "lesson": "06", "question": 3, "measured": 4, "predicted": 5}
    {"v": 1, "event": "check", ..., "exercise": "05", "check": "sampler_shards", "passed": false,
     "hint": "contiguous", "fix_shown": false}

Only a learner's own notebook kernel writes it (`recording_path`): a kernel a Jupyter server started
(JupyterLab, Notebook, VS Code), not under pytest. nbval and nbclient (`make course`) start kernels
without a server; the test suite, the grader and `make course` also set ``DDP_LESSONS_JOURNAL=off``.
A test that needs a record passes an explicit path (`Journal(path)`).

An append is atomic: one ``write`` of the whole line on a file opened for appending, under an exclusive
lock (POSIX), so lines from concurrent kernels never interleave; a line torn by a crash is followed by a
newline before the next, so it never swallows the next one. Reading reports a corrupt line and skips it,
keeping every other; a missing file is an empty record, and the first append creates it.
"""

from __future__ import annotations

import contextlib
import json
import os
from dataclasses import dataclass, field
from datetime import datetime, timezone
from pathlib import Path
from typing import Any, Iterator

from ddp_lessons import i18n
from ddp_lessons.runtime.contract import JOURNAL_ENV, JOURNAL_OFF, SESSION_ENV

try:
    import fcntl
except ImportError:  # Windows: O_APPEND alone
    fcntl = None

FILE = "my_progress.jsonl"
"""The record's name at the course's root."""
VERSION = 1
"""The format's version, in every line (``"v"``)."""
EVENTS = ("answer", "reveal", "check")


@dataclass
class Reading:
    """A record as read: its events in order, and the lines skipped as corrupt ((line number, start of it))."""

    events: list[dict[str, Any]] = field(default_factory=list)
    skipped: list[tuple[int, str]] = field(default_factory=list)


class Journal:
    """The record at `path`; with no path, a record that keeps nothing (tests, nbval, the grader)."""

    def __init__(self, path: str | os.PathLike | None):
        self.path = Path(path) if path is not None else None

    def __bool__(self) -> bool:
        return self.path is not None

    def __repr__(self) -> str:
        return f"Journal({str(self.path) if self.path else None!r})"

    def append(self, event: str, **fields: Any) -> dict[str, Any] | None:
        """Append one event (`EVENTS`) with `fields`, stamped with the version, time and language; return
        it (None when this record keeps nothing)."""
        if event not in EVENTS:
            raise ValueError(i18n.tr("unknown event {event!r} (one of {events})", event=event, events=", ".join(EVENTS)))
        if self.path is None:
            return None
        record = {"v": VERSION, "event": event, "time": datetime.now(timezone.utc).isoformat(timespec="seconds"),
                  "lang": i18n.language(), **fields}
        append_line(self.path, json.dumps(record, ensure_ascii=False, separators=(", ", ": ")))
        return record

    def read(self) -> Reading:
        """Every event of the record; corrupt lines skipped and reported, never the rest with them."""
        return read(self.path) if self.path is not None else Reading()

    def first_answer(self, lesson: str, question: int) -> dict[str, Any] | None:
        """The first answer recorded to question `question` of `lesson`, if any."""
        return next((e for e in self.read().events if e.get("event") == "answer" and e.get("lesson") == lesson
                     and e.get("question") == question), None)


def append_line(path: Path, line: str) -> None:
    """Append `line` and a newline to `path` as one write under an exclusive lock (creating the file)."""
    data = (line.rstrip("\n") + "\n").encode("utf-8")
    path.parent.mkdir(parents=True, exist_ok=True)
    fd = os.open(path, os.O_RDWR | os.O_APPEND | os.O_CREAT, 0o644)
    try:
        with _locked(fd):
            size = os.fstat(fd).st_size
            if size and os.pread(fd, 1, size - 1) != b"\n":  # a line torn by a crash: end it first
                data = b"\n" + data
            view = memoryview(data)
            while view:
                view = view[os.write(fd, view):]
    finally:
        os.close(fd)


@contextlib.contextmanager
def _locked(fd: int) -> Iterator[None]:
    if fcntl is None:
        yield
        return
    fcntl.flock(fd, fcntl.LOCK_EX)
    try:
        yield
    finally:
        fcntl.flock(fd, fcntl.LOCK_UN)


def read(path: str | os.PathLike) -> Reading:
    """The events in the file at `path` (a missing file: none); a line that is not a JSON object with an
    ``event`` is skipped and reported by its number."""
    try:
        data = Path(path).read_bytes()
    except FileNotFoundError:
        return Reading()
    reading = Reading()
    for number, raw in enumerate(data.split(b"\n"), start=1):
        if not raw.strip():
            continue
        try:
            event = json.loads(raw.decode("utf-8"))
        except ValueError:  # not UTF-8, or not JSON (a torn or edited line)
            event = None
        if isinstance(event, dict) and isinstance(event.get("event"), str):
            reading.events.append(event)
        else:
            reading.skipped.append((number, raw[:60].decode("utf-8", errors="replace")))
    return reading


def course_root(start: str | os.PathLike | None = None) -> Path:
    """The course's folder: the nearest folder at or above `start` (default: the working folder, a
    notebook kernel's is the notebook's) holding both notebooks/ and exercises/; else `start` itself."""
    here = Path(start or Path.cwd()).resolve()
    return next((folder for folder in (here, *here.parents)
                 if (folder / "notebooks").is_dir() and (folder / "exercises").is_dir()), here)


def default_path(start: str | os.PathLike | None = None) -> Path | None:
    """Where the learner's record is: ``DDP_LESSONS_JOURNAL``'s path, or `FILE` at the course's root
    (None when the variable turns it off)."""
    chosen = os.environ.get(JOURNAL_ENV)
    if chosen is not None:
        return None if chosen.strip().lower() in JOURNAL_OFF else Path(chosen).expanduser()
    return course_root(start) / FILE


def learner_kernel() -> bool:
    """True in a kernel a notebook frontend started for a learner, not under pytest."""
    return bool(os.environ.get(SESSION_ENV)) and not os.environ.get("PYTEST_CURRENT_TEST")


def recording_path() -> Path | None:
    """Where this process records: an explicit ``DDP_LESSONS_JOURNAL`` path (``off``: nowhere), else the
    default record in a learner's own kernel only (`learner_kernel`), else nowhere."""
    if os.environ.get(JOURNAL_ENV) is None and not learner_kernel():
        return None
    return default_path()


def current() -> Journal:
    """The record this process writes to (one that keeps nothing outside a learner's kernel)."""
    return Journal(recording_path())


def reset(path: str | os.PathLike) -> Path | None:
    """Start a new record: the file at `path` is moved aside (kept, renamed with the time), and the next
    append starts a new one. Returns where the old one went (None if there was none)."""
    path = Path(path)
    if not path.exists():
        return None
    stamp = datetime.now().strftime("%Y%m%d-%H%M%S")
    backup = path.with_name(f"{path.stem}.{stamp}{path.suffix}")
    for n in range(2, 100):
        if not backup.exists():
            break
        backup = path.with_name(f"{path.stem}.{stamp}-{n}{path.suffix}")
    path.rename(backup)
    return backup
