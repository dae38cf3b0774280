"""One notebook cell's run, as the grader's pytest plugin records it and the jobs and scoring read it.

The plugin appends one JSON line per record to the job's report: a start mark when a cell begins
(``running``), then the cell's outcome when it ends. A cell whose start mark is its last record was
still running when the job was stopped. Standard library only: the plugin loads this in every
graded notebook's pytest.
"""

from __future__ import annotations

import json
from dataclasses import asdict, dataclass, fields
from pathlib import Path


@dataclass
class CellRecord:
    """What happened to nbval cell `cell` (code cells counted from 0)."""

    cell: int
    running: bool = False
    """A start mark: the cell began; its outcome, if it ends, is the next record."""
    error: str | None = None
    """The first line of why the cell failed (the gradebook's entry), None when it passed."""
    hint: str = ""
    """Why it failed, as the student would have seen it (the feedback's text), at most `HINT_CHARS`."""
    timed_out: bool = False
    crashed: bool = False
    """The kernel died, or the cell went over a limit: the run stops here."""
    limit: str | None = None
    """The grader's limit the cell went over (``memory``, ``processes``, ``disk``, ``output``), if any."""
    value: int | None = None
    """That limit's value (bytes, or processes and threads)."""
    output: int = 0
    """Bytes of output the notebook had printed when the cell ended (cells and processes together)."""

    @property
    def stops(self) -> bool:
        """Whether the run is void from this cell on: it timed out, crashed or went over a limit."""
        return self.timed_out or self.crashed or self.limit is not None

    def line(self) -> str:
        """The record as one JSON line (without the newline)."""
        return json.dumps(asdict(self))

    @classmethod
    def from_line(cls, line: str) -> "CellRecord":
        """The record a `line` holds (unknown keys, from another version of the plugin, are ignored)."""
        known = {f.name for f in fields(cls)}
        return cls(**{key: value for key, value in json.loads(line).items() if key in known})


def read(report: Path) -> dict[int, CellRecord]:
    """Each cell's last record in the JSON-lines `report`, by cell number (empty when none was written)."""
    if not report.exists():
        return {}
    records = [CellRecord.from_line(line) for line in report.read_text(encoding="utf-8").splitlines() if line]
    return {record.cell: record for record in records}


def append(report: Path, record: CellRecord) -> None:
    """Append `record` to `report`."""
    with open(report, "a", encoding="utf-8") as out:
        out.write(record.line() + "\n")
