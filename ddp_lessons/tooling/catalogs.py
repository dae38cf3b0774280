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

A code cell that has something to translate (its comments, the strings it shows: the rule is in
`ddp_lessons.tooling.code_strings`) is a section of pairs, each the English token as the cell has it,
then its Spanish, written as Python writes them (quotes, prefix and escapes included) ::

    <!-- code 3812cbf6 -->
    en: f"rank {rank} of {world_size}"
    es: f"rank {rank} de {world_size}"

    en: # the bug: rank 1 drops the last column
    es todo: # the bug: rank 1 drops the last column

A pair is keyed by its English token (every occurrence in the cell takes the same Spanish). ``es
todo:`` still holds the English; ``es stale:`` follows an ``en:`` the English changed to, after a
``was:`` line with the English the Spanish translates. The translator edits the Spanish and deletes
the flag (and the ``was:`` line).

This module is the format only (parse, write, update against today's English); the generator and
the checks are in `ddp_lessons.tooling.translations`.
"""

from __future__ import annotations

import difflib
import hashlib
import re
from dataclasses import dataclass, field

from ddp_lessons.tooling.code_strings import TranslationError, literal_end

MARKER = re.compile(r"^<!-- cell (?P<cell>[A-Za-z0-9_-]+) en (?P<hash>[0-9a-f]{12})(?: (?P<flag>todo|stale))? -->$")
CODE_MARKER = re.compile(r"^<!-- code (?P<cell>[A-Za-z0-9_-]+) -->$")
REFERENCE_OPEN, REFERENCE_CLOSE = "<!-- English now:", "-->"
TODO, STALE = "todo", "stale"
PAIR_LINE = re.compile(r"(?P<key>en|was|es(?: (?P<flag>todo|stale))?): ")


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


@dataclass
class Pair:
    """One token of a code cell and its translation, both as the code writes them (a comment with its
    ``#``, a string literal with its prefix and quotes); `flag` todo/stale/None; `was`, for a stale
    pair, the English token its Spanish translates."""

    english: str
    spanish: str
    flag: str | None = None
    was: str = ""


@dataclass
class CodeEntry:
    """One code cell's translation: its pairs, in the order of their tokens in the cell."""

    cell: str
    pairs: list[Pair] = field(default_factory=list)

    def marker(self) -> str:
        return f"<!-- code {self.cell} -->"

    def table(self) -> dict[str, str]:
        """{English token: Spanish token}, what the generator writes into the cell."""
        return {pair.english: pair.spanish for pair in self.pairs}


def parse(text: str, where: str = "catalog") -> tuple[str, list[Entry | CodeEntry]]:
    """(the comment before the first marker, the entries in file order) of a catalog's text."""
    header: list[str] = []
    sections: list[tuple[Entry | CodeEntry, int, list[str]]] = []
    for number, line in enumerate(text.split("\n"), start=1):
        found, code = MARKER.match(line), CODE_MARKER.match(line)
        if found or code:
            cell = (found or code)["cell"]
            if any(entry.cell == cell for entry, _, _ in sections):
                raise CatalogError(f"{where}, line {number}: cell {cell} is translated twice")
            entry = Entry(cell, found["hash"], "", found["flag"]) if found else CodeEntry(cell)
            sections.append((entry, number + 1, []))
        elif line.startswith(("<!-- cell ", "<!-- code ")):
            raise CatalogError(f"{where}, line {number}: not a marker line (`<!-- cell ID en HASH -->`, "
                               "optionally ending in todo or stale, or `<!-- code ID -->`): " + line)
        elif not sections:
            header.append(line)
        else:
            sections[-1][2].append(line)
    for entry, first, lines in sections:
        if isinstance(entry, CodeEntry):
            entry.pairs = parse_pairs("\n".join(lines), where, first)
        else:
            _markdown_section(entry, lines, where)
    return "\n".join(header).strip("\n"), [entry for entry, _, _ in sections]


def _markdown_section(entry: Entry, lines: list[str], where: str) -> None:
    body: list[str] = []
    reference: list[str] | None = None
    for line in lines:
        if reference is not None:
            if line.strip() == REFERENCE_CLOSE:
                entry.reference, reference = "\n".join(reference).strip("\n"), None
            else:
                reference.append(line)
        elif line.strip() == REFERENCE_OPEN:
            reference = []
        else:
            body.append(line)
    if reference is not None:
        raise CatalogError(f"{where}: a {REFERENCE_OPEN!r} block is never closed by {REFERENCE_CLOSE!r}")
    entry.text = "\n".join(body).strip("\n")


def parse_pairs(text: str, where: str = "catalog", first_line: int = 1) -> list[Pair]:
    """The pairs of a code section's text: ``en: TOKEN``, optionally ``was: TOKEN``, then ``es: TOKEN``
    (or ``es todo:``, ``es stale:``), a token being a comment or a string literal (it may span lines)."""
    pairs: list[Pair] = []
    pos, expected = 0, ("en",)
    current: dict[str, str] = {}

    def line_of(index: int) -> int:
        return first_line + text.count("\n", 0, index)

    while True:
        while pos < len(text) and text[pos] in " \t\n":
            if text[pos] != "\n" and (pos == 0 or text[pos - 1] == "\n") and text[pos:].split("\n", 1)[0].strip():
                raise CatalogError(f"{where}, line {line_of(pos)}: a pair's line starts at the margin with "
                                   "`en: `, `was: ` or `es: `")
            pos += 1
        if pos >= len(text):
            break
        found = PAIR_LINE.match(text, pos)
        key = found["key"].split()[0] if found else None
        if key not in expected:
            got = text[pos:].split("\n", 1)[0]
            raise CatalogError(f"{where}, line {line_of(pos)}: expected {' or '.join(f'`{k}: `' for k in expected)}"
                               f" here, found {got!r}")
        try:
            end = literal_end(text, found.end())
        except TranslationError as error:
            raise CatalogError(f"{where}, line {line_of(pos)}: {error}") from None
        rest = text[end:].split("\n", 1)[0]
        if rest.strip():
            raise CatalogError(f"{where}, line {line_of(end)}: text after the token: {rest.strip()!r} (one token "
                               "per line; a comment is the rest of its line)")
        current[key] = text[found.end():end]
        if key == "es":
            pairs.append(Pair(current["en"], current["es"], found["flag"], current.get("was", "")))
            if pairs[-1].was and pairs[-1].flag != STALE:
                pairs[-1].was = ""  # the translator deleted `stale`: the reference goes with it
            current, expected = {}, ("en",)
        else:
            expected = ("was", "es") if key == "en" else ("es",)
        pos = end
    if current:
        raise CatalogError(f"{where}, line {line_of(len(text))}: the pair for {current['en'][:40]!r} has no `es: ` line")
    duplicates = {pair.english for pair in pairs if sum(p.english == pair.english for p in pairs) > 1}
    if duplicates:
        raise CatalogError(f"{where}: translated twice in one cell: {', '.join(sorted(duplicates))}")
    return pairs


def render(header: str, entries: list[Entry | CodeEntry]) -> str:
    """The catalog file's text: the comment, then one section per entry."""
    parts = [header.strip("\n")] if header.strip() else []
    for entry in entries:
        section = [entry.marker()]
        if isinstance(entry, CodeEntry):
            section.append("\n\n".join(render_pair(pair) for pair in entry.pairs))
        else:
            if entry.flag == STALE and entry.reference:
                section += [REFERENCE_OPEN, entry.reference, REFERENCE_CLOSE]
            section.append(entry.text)
        parts.append("\n".join(section))
    return "\n\n".join(parts) + "\n"


def render_pair(pair: Pair) -> str:
    lines = [f"en: {pair.english}"]
    if pair.flag == STALE and pair.was:
        lines.append(f"was: {pair.was}")
    lines.append(f"es{' ' + pair.flag if pair.flag else ''}: {pair.spanish}")
    return "\n".join(lines)


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


def update_pairs(pairs: list[Pair], tokens: list[str], memory: dict[str, str] | None = None) -> list[Pair]:
    """`pairs` brought up to a code cell's translatable tokens today (`tokens`, in order): a pair whose
    token is still there is kept; a token that replaces one that is gone takes its Spanish, flagged
    stale (``was:`` the English it translated); a new token gets the Spanish `memory` has for it
    (the same English translated elsewhere) or its English, flagged todo; a pair whose token is gone
    is dropped."""
    memory = memory or {}
    old = [pair.english for pair in pairs]
    updated: list[Pair] = []
    for tag, i1, i2, j1, j2 in difflib.SequenceMatcher(None, old, tokens, autojunk=False).get_opcodes():
        if tag == "equal":
            updated += pairs[i1:i2]
            continue
        for k, token in enumerate(tokens[j1:j2]):
            was = pairs[i1 + k] if tag == "replace" and i1 + k < i2 else None
            if was is not None and was.flag != TODO:
                updated.append(Pair(token, was.spanish, STALE, was.was if was.flag == STALE and was.was else was.english))
            elif token in memory:
                updated.append(Pair(token, memory[token]))
            else:
                updated.append(Pair(token, token, TODO))
    return updated
