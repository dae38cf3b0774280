"""Translation catalogs: the Spanish of each English markdown cell, in a Markdown file a person edits.

``i18n/es/notebooks/03_devices.md`` translates ``notebooks/03_devices.ipynb`` (``i18n/es/exercises/``
the exercises): one section per markdown cell, in notebook order, each opened by a marker line ::

    <!-- cell 1ee6cfef en 4b5e6f7a8b9c -->
    # Lección 3: ...

``1ee6cfef`` is the cell's id, ``4b5e6f7a8b9c`` the hash of the English source the Spanish translates
(`english_hash`). A marker may end in a flag: ``todo`` (the text is still the English, to translate)
or ``stale`` (the English changed after the Spanish was written; the section then also holds the
English as it reads now, between ``<!-- English now:`` and ``-->``, for reference). A translator
edits the text and deletes the flag (and the reference block). Text before the first marker is a
comment for people; the generator ignores it.

This module is the format only (parse, write, update against today's English); the generator and
the checks are in `ddp_lessons.tooling.translations`.
"""

from __future__ import annotations

import hashlib
import re
from dataclasses import dataclass

MARKER = re.compile(r"^<!-- cell (?P<cell>[A-Za-z0-9_-]+) en (?P<hash>[0-9a-f]{12})(?: (?P<flag>todo|stale))? -->$")
REFERENCE_OPEN, REFERENCE_CLOSE = "<!-- English now:", "-->"
TODO, STALE = "todo", "stale"


class CatalogError(ValueError):
    """A catalog file breaks the format (a malformed marker line, a cell translated twice)."""


def english_hash(source: str) -> str:
    """What a catalog records of the English it translates: 12 hex digits of its SHA-256."""
    return hashlib.sha256(source.encode("utf-8")).hexdigest()[:12]


@dataclass
class Entry:
    """One markdown cell's translation: cell id, hash of its English, text, and flag (todo/stale/None)."""

    cell: str
    english: str
    text: str
    flag: str | None = None
    reference: str = ""
    """For a stale entry: the English as it reads now (written by `update`, for the translator)."""

    def marker(self) -> str:
        flag = f" {self.flag}" if self.flag else ""
        return f"<!-- cell {self.cell} en {self.english}{flag} -->"


def parse(text: str, where: str = "catalog") -> tuple[str, list[Entry]]:
    """(the comment before the first marker, the entries in file order) of a catalog's text."""
    header: list[str] = []
    entries: list[Entry] = []
    body: list[str] = []
    reference: list[str] | None = None

    def close() -> None:
        if entries:
            entries[-1].text = "\n".join(body).strip("\n")

    for number, line in enumerate(text.split("\n"), start=1):
        found = MARKER.match(line)
        if found:
            close()
            if any(entry.cell == found["cell"] for entry in entries):
                raise CatalogError(f"{where}, line {number}: cell {found['cell']} is translated twice")
            entries.append(Entry(found["cell"], found["hash"], "", found["flag"]))
            body = []
        elif line.startswith("<!-- cell "):
            raise CatalogError(f"{where}, line {number}: not a marker line "
                               "(`<!-- cell ID en HASH -->`, optionally ending in todo or stale): " + line)
        elif not entries:
            header.append(line)
        elif reference is not None:
            if line.strip() == REFERENCE_CLOSE:
                entries[-1].reference, reference = "\n".join(reference).strip("\n"), None
            else:
                reference.append(line)
        elif line.strip() == REFERENCE_OPEN:
            reference = []
        else:
            body.append(line)
    if reference is not None:
        raise CatalogError(f"{where}: a {REFERENCE_OPEN!r} block is never closed by {REFERENCE_CLOSE!r}")
    close()
    return "\n".join(header).strip("\n"), entries


def render(header: str, entries: list[Entry]) -> str:
    """The catalog file's text: the comment, then one section per entry."""
    parts = [header.strip("\n")] if header.strip() else []
    for entry in entries:
        section = [entry.marker()]
        if entry.flag == STALE and entry.reference:
            section += [REFERENCE_OPEN, entry.reference, REFERENCE_CLOSE]
        section.append(entry.text)
        parts.append("\n".join(section))
    return "\n\n".join(parts) + "\n"


def update(entries: list[Entry], english: list[tuple[str, str]]) -> tuple[list[Entry], list[str]]:
    """`entries` brought up to today's English cells [(id, source)], in notebook order: a new cell
    gets its English as text, flagged todo; a changed one keeps its Spanish, flagged stale, with the
    new English for reference; a todo one gets the new English. Returns (entries, dropped cell ids)."""
    kept = {entry.cell: entry for entry in entries}
    updated = []
    for cell, source in english:
        now = english_hash(source)
        entry = kept.pop(cell, None)
        if entry is None:
            updated.append(Entry(cell, now, source, TODO))
        elif entry.flag == TODO:
            updated.append(Entry(cell, now, source, TODO))
        elif entry.english != now or entry.flag == STALE:
            updated.append(Entry(cell, now, entry.text, STALE, source))
        else:
            updated.append(entry)
    return updated, list(kept)
