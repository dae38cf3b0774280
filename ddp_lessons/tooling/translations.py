"""`python -m ddp_lessons make-translations`: write notebooks/es/ and exercises/es/ from the English ones.

The English notebooks are the source. ``i18n/es/notebooks/NN_topic.md`` (and ``i18n/es/exercises/``)
holds the Spanish of each markdown cell and, once its code is translated, of each code cell's comments
and shown strings (format: `ddp_lessons.tooling.catalogs`; which tokens: `ddp_lessons.tooling.code_strings`).
The generator copies the English notebook, puts the Spanish in its markdown cells and into the tokens of
its code cells (the code otherwise stays the English, line for line), and differs in three more ways:
links are re-rooted (a link to a notebook that has a Spanish edition goes to it, any other relative
link to the English file), a quick-check cell (``quiz.ask("NN", k)``, ``quiz.predict("NN", k)``) and
a stored ``quiz.reveal`` output show their question from
``ddp_lessons/data/quizzes/es/NN.json``, and the notebook's metadata says
``{"ddp_lessons": {"language": "es"}}`` (what the grader reads).

Outputs: a Spanish lesson's stored outputs come from a Spanish run (``--run``: the notebook executed
in its own folder, in Spanish, stored with the hygiene of the English: every cell runs, no machine
path shows). The run records the hash of the code it ran (``"run": {"source": HASH}`` in the
``ddp_lessons`` metadata); from then on the generator keeps the stored outputs (by cell id) instead of
copying the English ones, and the check fails once the code changed since that run. A lesson without
a Spanish run yet shows the English outputs (its code not translated yet: see `REQUIRE_CODE_TRANSLATED`).

``--check`` writes nothing and lists, per notebook, what is out of date: a generated notebook that
differs from what the generator writes, untranslated (todo) and stale cells and code tokens, English
cells and tokens the catalog lacks, Spanish tokens the code cannot take, stored outputs not from a
run of the current Spanish code, quiz questions untranslated or stale, and the notebooks not
translated yet; and a translated doc (``docs/es/INSTRUCTORS.md``) whose English changed since: its
first line, ``<!-- translates docs/INSTRUCTORS.md en HASH -->``, holds the hash of the English it
translates. ``--update [ENGLISH_NOTEBOOK ...]`` writes the catalog skeleton of a new notebook (English
text in place, flagged todo, with its hashes) or brings existing catalogs up to today's English (new
cells todo, changed cells flagged stale), with the lesson's quiz entries likewise; a notebook named on
the command line also gets its code sections (every catalog that has code sections keeps them current).
``--run [NOTEBOOK ...]`` generates, then runs and stores the Spanish lessons named (default: those whose
code is translated and whose outputs are not from a run of their current code).
"""

from __future__ import annotations

import argparse
import copy
import json
import os
import re
import sys
from dataclasses import dataclass, field
from pathlib import Path

import nbformat
from nbformat import NotebookNode

from ddp_lessons import i18n, quiz
from ddp_lessons.base.conventions import CELL_TIMEOUT, NOTEBOOK_PATTERN
from ddp_lessons.base.exercise_format import is_check_cell
from ddp_lessons.tooling import catalogs, code_strings
from ddp_lessons.tooling.catalogs import STALE, TODO, CodeEntry
from ddp_lessons.tooling.course import machine_paths
from ddp_lessons.tooling.exercises import render

REQUIRE_EVERY_NOTEBOOK = True
"""True: every English lesson and exercise has a catalog, so one added without its Spanish fails
`--check` and tests/test_translations.py. (False only while a course is being translated: an English
notebook without a catalog is then just listed as not yet translated.)"""
REQUIRE_CODE_TRANSLATED = True
"""False while the lessons' code strings are being translated: a catalog without code sections (its
code still English, its outputs the English run's) is listed by `--check` as pending, not as a problem.
True once every notebook's code is translated: then it fails like any missing translation."""

SOURCES = ("notebooks", "exercises")
"""The folders whose notebooks are translated; each gets a language folder: notebooks/es/, exercises/es/."""
LANG = "es"
DOCS = ("docs/INSTRUCTORS.md", "docs/LIVE.md", "docs/COMM.md", "docs/ERRORS.md", "docs/site/home.md")
"""The English docs the edition translates, each into ``docs/<lang>/`` under the same name. The
translation is written by hand (a doc is not generated); its first line names the English and its hash."""
DOC_MARKER = re.compile(r"^<!-- translates (?P<source>\S+) en (?P<hash>[0-9a-f]{12}) -->$")
QUIZ_CELL = re.compile(r'^quiz\.(?:ask|predict)\("(?P<lesson>\d\d)", (?P<n>\d+)\)$')
PATH_LINK = re.compile(r"\[(?P<text>`?[\w./-]+`?)\]\((?P<target>[^)\"\s#]+)")
"""A markdown link whose text may be a path: ``[exercises/05_x.ipynb](../exercises/05_x.ipynb)``."""
LINK = re.compile(r'(?P<open>\]\(|<img src="|<a href=")(?P<target>[^)"\s#]*)(?P<rest>[^)"\s]*)')
WIDGET_VIEW, WIDGET_STATE = "application/vnd.jupyter.widget-view+json", "application/vnd.jupyter.widget-state+json"


@dataclass(frozen=True)
class Edition:
    """One English notebook and its translation: source, catalog and generated notebook paths."""

    root: Path
    source: Path
    lang: str = LANG

    @property
    def folder(self) -> str:
        return self.source.parent.name

    @property
    def catalog(self) -> Path:
        return self.root / "i18n" / self.lang / self.folder / f"{self.source.stem}.md"

    @property
    def target(self) -> Path:
        return self.source.parent / self.lang / self.source.name

    @property
    def lesson(self) -> str | None:
        """The lesson number whose quiz this notebook asks (lessons only)."""
        return self.source.name[:2] if self.folder == "notebooks" else None

    def name(self, path: Path) -> str:
        return path.relative_to(self.root).as_posix()


def editions(root: Path, lang: str = LANG) -> list[Edition]:
    """Every English notebook of the translated folders, translated or not."""
    return [Edition(root, path, lang) for folder in SOURCES
            for path in sorted((root / folder).glob(NOTEBOOK_PATTERN))]


def translated(root: Path, lang: str = LANG) -> list[Edition]:
    """The notebooks that have a catalog (the ones generated and checked)."""
    return [edition for edition in editions(root, lang) if edition.catalog.exists()]


def markdown_sources(notebook: NotebookNode) -> list[tuple[str, str]]:
    """[(cell id, source)] of the notebook's markdown cells, in order."""
    return [(cell.id, cell.source) for cell in notebook.cells if cell.cell_type == "markdown"]


def code_sources(notebook: NotebookNode) -> list[tuple[str, str]]:
    """[(cell id, source)] of the notebook's code cells, in order."""
    return [(cell.id, cell.source) for cell in notebook.cells if cell.cell_type == "code"]


def translatable(cell: NotebookNode) -> bool:
    """A code cell whose tokens a catalog may translate: not a check cell (the grader restores those
    from solutions/, and they stay the English) and not a quick-check cell."""
    return cell.cell_type == "code" and not is_check_cell(cell) and not QUIZ_CELL.match(cell.source.strip())


def code_tokens(notebook: NotebookNode) -> dict[str, list[str]]:
    """{cell id: the automatic tokens of each translatable code cell} (cells with none left out)."""
    context = code_strings.Context.of(code_sources(notebook))
    found = {cell.id: code_strings.units(cell.source, context) for cell in notebook.cells if translatable(cell)}
    return {cell: tokens for cell, tokens in found.items() if tokens}


def read_catalog(edition: Edition) -> tuple[str, dict[str, catalogs.Entry | CodeEntry]]:
    """(header, {cell id: entry}) of an edition's catalog (markdown and code sections)."""
    header, entries = catalogs.parse(edition.catalog.read_text(encoding="utf-8"), edition.name(edition.catalog))
    return header, {entry.cell: entry for entry in entries}


def translates_code(entries: dict) -> bool:
    """True when a catalog has code sections: its notebook's code is translated (or being translated)."""
    return any(isinstance(entry, CodeEntry) for entry in entries.values())


def code_hash(notebook: NotebookNode) -> str:
    """The hash of a notebook's code (every code cell's id and source, in order): what a run records."""
    return catalogs.english_hash("\n".join(f"{cell.id}\n{cell.source}" for cell in notebook.cells
                                            if cell.cell_type == "code"))


def run_record(notebook: NotebookNode | None) -> dict | None:
    """The record of the Spanish run whose outputs `notebook` stores (``{"source": HASH}``), None if none."""
    return None if notebook is None else notebook.metadata.get("ddp_lessons", {}).get("run")


def relink(text: str, edition: Edition, spanish: set[Path]) -> str:
    """`text` with each relative link re-rooted from the English notebook's folder to the generated
    one's: to the Spanish edition of the target when there is one, else to the English file. A link
    whose text is the path of the file it opens (``[exercises/05_x.ipynb](...)``) names the file it
    now opens (``exercises/es/05_x.ipynb``)."""
    def linked(target: str) -> Path | None:
        """The file `target` (relative to the English notebook) opens in the generated one; None if not a file."""
        if not target or "://" in target or target.startswith(("/", "mailto:")):
            return None
        path = Path(os.path.normpath(edition.source.parent / target))
        if path.suffix == ".ipynb" and path.parent.name in SOURCES and path in spanish:
            path = path.parent / edition.lang / path.name
        return path

    def rename(found: re.Match) -> str:
        english = Path(os.path.normpath(edition.source.parent / found["target"]))
        path = linked(found["target"])
        if path is None or path == english or found["text"].strip("`") != edition.name(english):
            return found[0]
        return found[0].replace(found["text"], found["text"].replace(edition.name(english), edition.name(path)), 1)

    def move(found: re.Match) -> str:
        path = linked(found["target"])
        if path is None:
            return found[0]
        return found["open"] + Path(os.path.relpath(path, edition.target.parent)).as_posix() + found["rest"]

    return LINK.sub(move, PATH_LINK.sub(rename, text))


def quizzes(root: Path, lang: str | None = None) -> dict:
    """The course's quick-check questions (``ddp_lessons/data/quizzes/NN.json``) or their `lang` translations."""
    return quiz.read_questions(root / "ddp_lessons" / quiz.QUESTIONS, lang or i18n.SOURCE)


def quiz_entry(root: Path, lesson: str, n: int, lang: str) -> dict | None:
    """Question `n` of `lesson` with its `lang` translation, None when it is not translated."""
    english, translations = quizzes(root).get(lesson, []), quizzes(root, lang).get(lesson, [])
    if n > min(len(english), len(translations)) or translations[n - 1].get("todo"):
        return None
    return quiz.in_language(english[n - 1], translations[n - 1])


def revealed(output: NotebookNode) -> dict | None:
    """What a stored `quiz.reveal` output revealed ({lesson, question, measured}), None for other outputs."""
    return output.get("metadata", {}).get("ddp_lessons", {}).get("reveal")


def carded(output: NotebookNode) -> bool:
    """True for a stored report card of no record (lesson 00, `report_card.show` outside a learner's kernel)."""
    return output.get("metadata", {}).get("ddp_lessons", {}).get("report_card") == "no record"


def quiz_outputs(cell: NotebookNode, root: Path, lang: str) -> list[NotebookNode] | None:
    """The outputs a quick-check cell (``quiz.ask``, ``quiz.predict``), a cell that reveals a numeric
    prediction (``quiz.reveal``) or lesson 00's report card (stored with no record) shows in `lang`
    (text and HTML), None when it is none of them or not translated."""
    from ddp_lessons import report_card

    found = QUIZ_CELL.match(cell.source.strip())
    if found and cell.outputs:
        translated = quiz_entry(root, found["lesson"], int(found["n"]), lang)
        if translated is None:
            return None
        shown = quiz.form(translated, lang)
        return [nbformat.v4.new_output("execute_result", data={"text/plain": shown.text(), "text/html": shown.html()},
                                       execution_count=cell.execution_count)]
    if not any(revealed(output) or carded(output) for output in cell.get("outputs", [])):
        return None
    outputs = []
    for output in cell.outputs:
        what = revealed(output)
        if carded(output):
            card = report_card.Card(None, 0, lang=lang)
            output = nbformat.v4.new_output("execute_result",
                                            data={"text/plain": card.text(), "text/html": card.html()},
                                            metadata=output.metadata, execution_count=output.execution_count)
        translated = what and quiz_entry(root, what["lesson"], what["question"], lang)
        if what and translated is None:
            return None
        if what:
            shown = quiz.revealed(translated, what["measured"], None, lang)
            output = nbformat.v4.new_output("execute_result", data={"text/plain": shown.text(),
                                                                     "text/html": shown.html()},
                                            metadata=output.metadata, execution_count=output.execution_count)
        outputs.append(output)
    return outputs


def drop_widgets(notebook: NotebookNode, outputs: list[NotebookNode]) -> None:
    """Remove from the notebook's saved widget state the widgets that `outputs` displayed."""
    state = notebook.metadata.get("widgets", {}).get(WIDGET_STATE, {}).get("state")
    if not state:
        return
    todo = [o.get("data", {}).get(WIDGET_VIEW, {}).get("model_id") for o in outputs]
    while todo:
        model = state.pop(todo.pop() or "", None)
        if model is not None:
            todo += re.findall(r"IPY_MODEL_([0-9a-f]+)", json.dumps(model.get("state", {})))
    if not state:
        del notebook.metadata["widgets"]


def translate(english: NotebookNode, entries: dict[str, catalogs.Entry | CodeEntry], edition: Edition,
              spanish: set[Path], stored: NotebookNode | None = None) -> tuple[NotebookNode, list[str]]:
    """(the generated notebook, the catalog's problems that kept a token English): translated markdown,
    code tokens and quiz cells; outputs from `stored` (the generated notebook as it is now) when it
    holds a Spanish run, else the English ones."""
    notebook = copy.deepcopy(english)
    context = code_strings.Context.of(code_sources(english))
    run = run_record(stored)
    ran = {cell.id: cell for cell in stored.cells if cell.cell_type == "code"} if run else {}
    if run:
        notebook.metadata.pop("widgets", None)
        if "widgets" in stored.metadata:
            notebook.metadata["widgets"] = copy.deepcopy(stored.metadata["widgets"])
    problems = []
    for cell in notebook.cells:
        entry = entries.get(cell.id)
        if cell.cell_type == "markdown" and isinstance(entry, catalogs.Entry):
            cell.source = relink(entry.text, edition, spanish)
        elif cell.cell_type == "code":
            if isinstance(entry, CodeEntry) and translatable(cell):
                try:
                    cell.source = code_strings.translate(cell.source, entry.table(), context)
                except code_strings.TranslationError as error:
                    problems += [f"{edition.name(edition.catalog)}, cell {cell.id}: {line}"
                                 for line in str(error).splitlines()]
            if run:
                before = ran.get(cell.id)
                cell.outputs = copy.deepcopy(before.outputs) if before is not None else []
                cell.execution_count = before.execution_count if before is not None else None
                cell.metadata.pop("execution", None)
                if before is not None and "execution" in before.metadata:
                    cell.metadata["execution"] = copy.deepcopy(before.metadata["execution"])
            outputs = quiz_outputs(cell, edition.root, edition.lang)
            if outputs is not None:
                drop_widgets(notebook, cell.outputs)
                cell.outputs = outputs
    notebook.metadata["ddp_lessons"] = {**english.metadata.get("ddp_lessons", {}), "language": edition.lang,
                                        "translated_from": edition.name(edition.source)}
    if run:
        notebook.metadata["ddp_lessons"]["run"] = dict(run)
    return notebook, problems


def generate(edition: Edition, spanish: set[Path]) -> tuple[str, list[str]]:
    """(the text the generator writes for one edition, the problems that kept tokens English)."""
    english = nbformat.read(edition.source, as_version=4)
    stored = nbformat.read(edition.target, as_version=4) if edition.target.exists() else None
    notebook, problems = translate(english, read_catalog(edition)[1], edition, spanish, stored)
    return render(notebook), problems


def generated(root: Path, lang: str = LANG) -> tuple[dict[Path, str], list[str]]:
    """Each generated notebook's path mapped to the text the generator writes for it, and the
    catalogs' problems on the way (a Spanish token the code cannot take stays English)."""
    done = translated(root, lang)
    spanish = {edition.source for edition in done}
    texts, problems = {}, []
    for edition in done:
        texts[edition.target], found = generate(edition, spanish)
        problems += found
    return texts, problems


def expected(root: Path, lang: str = LANG) -> dict[Path, str]:
    """Each generated notebook's path mapped to the text the generator writes for it; raises
    CatalogError when a catalog holds a Spanish token its cell cannot take."""
    texts, problems = generated(root, lang)
    if problems:
        raise catalogs.CatalogError("\n".join(problems))
    return texts


def write(root: Path, lang: str = LANG) -> list[Path]:
    """Generate every translated notebook; return the paths whose text changed."""
    changed = []
    for path, text in expected(root, lang).items():
        if not path.exists() or path.read_text(encoding="utf-8") != text:
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_text(text, encoding="utf-8")
            changed.append(path)
    return changed


@dataclass
class Report:
    """What `--check` finds: problems (each fails the check), the notebooks not translated yet, and
    the work pending that does not fail the check yet (code not translated: `REQUIRE_CODE_TRANSLATED`)."""

    problems: list[str] = field(default_factory=list)
    untranslated: list[str] = field(default_factory=list)
    pending: list[str] = field(default_factory=list)


def grouped(where: str, found: dict[str, list[str]]) -> list[str]:
    """One line per kind of problem: ``where: 3 cells untranslated (todo): a1, b2, c3``."""
    return [f"{where}: {len(items)} {kind}: {', '.join(items)}" for kind, items in found.items() if items]


def counted(items: list[str]) -> list[str]:
    """``["a1", "a1", "b2"]`` -> ``["a1 (2)", "b2"]``: cells, each with how many of its tokens."""
    order = list(dict.fromkeys(items))
    return [f"{item} ({items.count(item)})" if items.count(item) > 1 else item for item in order]


def catalog_problems(edition: Edition) -> list[str]:
    """Untranslated, stale, missing and orphaned cells (and code tokens) of one catalog against today's English."""
    notebook = nbformat.read(edition.source, as_version=4)
    english = markdown_sources(notebook)
    _, entries = read_catalog(edition)
    code = {cell: entry for cell, entry in entries.items() if isinstance(entry, CodeEntry)}
    entries = {cell: entry for cell, entry in entries.items() if not isinstance(entry, CodeEntry)}
    found: dict[str, list[str]] = {"untranslated cell(s) (flagged todo)": [],
                                   "stale cell(s) (the English changed since)": [],
                                   "English cell(s) missing from the catalog (run --update)": []}
    kinds = list(found)
    for cell, source in english:
        entry = entries.pop(cell, None)
        if entry is None:
            found[kinds[2]].append(cell)
        elif entry.flag == TODO:
            found[kinds[0]].append(cell)
        elif entry.flag == STALE or entry.english != catalogs.english_hash(source):
            found[kinds[1]].append(cell)
    found[f"cell(s) that are no markdown cell of {edition.name(edition.source)}"] = list(entries)
    problems = grouped(edition.name(edition.catalog), found)
    if code:
        problems += code_problems(edition, notebook, code)
    return problems


def code_problems(edition: Edition, notebook: NotebookNode, code: dict[str, CodeEntry]) -> list[str]:
    """What a catalog that translates its notebook's code still lacks: per kind, the cells (and how
    many tokens in each)."""
    tokens = code_tokens(notebook)
    strings = {cell.id: {literal.token.text for literal in code_strings.literals(cell.source)}
               for cell in notebook.cells if translatable(cell)}
    update = f"run --update {edition.name(edition.source)}"
    found: dict[str, list[str]] = {
        "code string(s)/comment(s) untranslated (es todo), in cells": [],
        "code string(s)/comment(s) stale (the English changed; see was:), in cells": [],
        f"code string(s)/comment(s) missing from the catalog ({update}), in cells": [],
        f"pair(s) whose English is no longer in its cell ({update}), in cells": [],
        f"code section(s) for no translatable code cell of {edition.name(edition.source)}": []}
    kinds = list(found)
    for cell, wanted in tokens.items():
        entry = code.get(cell, CodeEntry(cell))
        have = {pair.english for pair in entry.pairs}
        found[kinds[2]] += [cell for token in wanted if token not in have]
    for cell, entry in code.items():
        if cell not in strings:
            found[kinds[4]].append(cell)
            continue
        for pair in entry.pairs:
            if pair.english not in strings[cell]:
                found[kinds[3]].append(cell)
            elif pair.flag == TODO:
                found[kinds[0]].append(cell)
            elif pair.flag == STALE:
                found[kinds[1]].append(cell)
    where = edition.name(edition.catalog)
    return [f"{where}: {len(cells)} {kind}: {', '.join(counted(cells))}" for kind, cells in found.items() if cells]


def quiz_problems(root: Path, lesson: str, lang: str = LANG) -> list[str]:
    """Untranslated, stale or missing translations of one lesson's quick-check questions."""
    english, translations = quizzes(root).get(lesson, []), quizzes(root, lang).get(lesson, [])
    found: dict[str, list[str]] = {"question(s) untranslated (todo)": [], "question(s) stale (the English changed)": [],
                                   "question(s) missing (run --update)": [], "question(s) more than the English": []}
    kinds = list(found)
    for n, entry in enumerate(english, start=1):
        done = translations[n - 1] if n <= len(translations) else None
        if done is None:
            found[kinds[2]].append(str(n))
        elif done.get("todo"):
            found[kinds[0]].append(str(n))
        elif done.get("stale") or done.get("en") != quiz.english_hash(entry):
            found[kinds[1]].append(str(n))
    found[kinds[3]] = [str(n) for n in range(len(english) + 1, len(translations) + 1)]
    return grouped(f"ddp_lessons/data/quizzes/{lang}/{lesson}.json", found)


def doc_marker(root: Path, english: str) -> str:
    """The first line of the translation of `english` (a path such as docs/LIVE.md) as it reads today."""
    text = (root / english).read_text(encoding="utf-8")
    return f"<!-- translates {english} en {catalogs.english_hash(text)} -->"


def doc_problems(root: Path, lang: str = LANG, docs: tuple[str, ...] = DOCS) -> list[str]:
    """Translated docs missing, without their first-line marker, or older than the English they translate."""
    problems = []
    for english in docs:
        spanish = Path(english).parent / lang / Path(english).name
        if not (root / english).exists():
            if (root / spanish).exists():
                problems.append(f"{spanish.as_posix()}: {english}, the English it translates, is gone")
            continue
        if not (root / spanish).exists():
            problems.append(f"{spanish.as_posix()}: missing (translate {english})")
            continue
        first = (root / spanish).read_text(encoding="utf-8").split("\n", 1)[0]
        found = DOC_MARKER.match(first)
        if found is None or found["source"] != english:
            problems.append(f"{spanish.as_posix()}: its first line must be `{doc_marker(root, english)}`")
        elif first != doc_marker(root, english):
            problems.append(f"{english} changed since {spanish.as_posix()} was translated: bring the Spanish up to "
                            f"date (`git log -p {english}` shows the changes), then make its first line "
                            f"`{doc_marker(root, english)}`")
    translated_docs = {(Path(english).parent / lang / Path(english).name).as_posix() for english in docs}
    problems += [f"{path.relative_to(root).as_posix()}: not a translation of one of {', '.join(docs)}"
                 for path in sorted((root / "docs" / lang).glob("*.md"))
                 if path.relative_to(root).as_posix() not in translated_docs]
    return problems


def run_command(edition: Edition) -> str:
    """The command that runs a Spanish lesson and stores its outputs."""
    return f"make translations-run NOTEBOOKS={edition.name(edition.target)}"


def output_problems(edition: Edition, entries: dict, notebook: NotebookNode | None) -> tuple[list[str], list[str]]:
    """(problems, pending) of a generated lesson's stored outputs: they must come from a Spanish run
    of its current code once its code is translated; until then English copies are pending work."""
    if not edition.lesson or notebook is None:
        return [], []
    name, run = edition.name(edition.target), run_record(notebook)
    shown = machine_paths(notebook)
    problems = [f"{name}: stored outputs show machine paths ({'; '.join(shown[:3])}): run it again from a "
                f"clean checkout ({run_command(edition)})"] if shown else []
    if run is not None:
        if run.get("source") != code_hash(notebook):
            problems.append(f"{name}: its stored outputs come from an older version of its code: {run_command(edition)}")
        return problems, []
    copied = f"{name}: stored outputs are the English run's, not a Spanish run ({run_command(edition)})"
    if translates_code(entries) or REQUIRE_CODE_TRANSLATED:
        return problems + [copied], []
    return problems, [copied]


def code_pending(edition: Edition, entries: dict) -> str | None:
    """What is left to translate in a notebook whose catalog has no code sections yet, or None."""
    if translates_code(entries):
        return None
    tokens = code_tokens(nbformat.read(edition.source, as_version=4))
    if not tokens:
        return None
    count = sum(map(len, tokens.values()))
    return (f"{edition.name(edition.catalog)}: code not translated yet: {count} comment(s) and shown string(s) in "
            f"{len(tokens)} code cell(s) (run --update {edition.name(edition.source)}, translate the pairs "
            f"flagged `es todo`, make translations" + (f", {run_command(edition)})" if edition.lesson else ")"))


def check(root: Path, lang: str = LANG) -> Report:
    """Everything out of date in the `lang` edition (nothing is written)."""
    report = Report()
    for edition in editions(root, lang):
        if not edition.catalog.exists():
            report.untranslated.append(edition.name(edition.source))
            continue
        report.problems += catalog_problems(edition)
        entries = read_catalog(edition)[1]
        pending = code_pending(edition, entries)
        if pending:
            (report.problems if REQUIRE_CODE_TRANSLATED else report.pending).append(pending)
        stored = nbformat.read(edition.target, as_version=4) if edition.target.exists() else None
        problems, pending_outputs = output_problems(edition, entries, stored)
        report.problems += problems
        report.pending += [] if pending else pending_outputs  # the code's line names the run already
        if edition.lesson:
            report.problems += quiz_problems(root, edition.lesson, lang)
    texts, problems = generated(root, lang)
    report.problems += problems
    for path, text in texts.items():
        if not path.exists() or path.read_text(encoding="utf-8") != text:
            state = "missing" if not path.exists() else "differs from what make-translations writes"
            report.problems.append(f"{path.relative_to(root).as_posix()}: {state}")
    sources = {edition.catalog for edition in editions(root, lang)}
    report.problems += [f"{path.relative_to(root).as_posix()}: no English notebook to translate"
                        for path in sorted((root / "i18n" / lang).glob("*/*.md")) if path not in sources]
    report.problems += [f"{path.relative_to(root).as_posix()}: generated, but has no catalog"
                        for folder in SOURCES for path in sorted((root / folder / lang).glob(NOTEBOOK_PATTERN))
                        if not Edition(root, path.parent.parent / path.name, lang).catalog.exists()]
    report.problems += doc_problems(root, lang)
    if REQUIRE_EVERY_NOTEBOOK:
        report.problems += [f"{name}: not translated (no catalog; run --update {name})"
                            for name in report.untranslated]
    return report


CATALOG_HEADER = """<!--
Spanish of {source}, written into {target} by `python -m ddp_lessons make-translations`.
One section per markdown cell, and one per code cell that has comments or strings it shows: pairs
`en:` / `es:`, each token written as the code writes it (the code stays the English but for them).
A marker or an `es` ending in `todo` still holds the English: translate it and delete `todo`.
`stale`: the English changed (under "English now", or the new `en:` above a `was:` with the old
one): update the Spanish, then delete `stale` and the reference. To translate a string a code cell
only shows (a figure's panel title), add a pair for it. Terms: i18n/es/GLOSSARY.md. Details:
docs/AUTHORING.md, "Translations".
-->"""
MARKDOWN_ONLY_HEADER = """<!--
Spanish of the markdown cells of {source}, one section per cell.
`python -m ddp_lessons make-translations` writes {target} from it (code cells and outputs are
copied from the English). A marker ending in `todo` still holds the English: translate it and delete
`todo`. `stale`: the English changed (it follows under "English now"): update the Spanish, then
delete `stale` and that block. Terms: i18n/es/GLOSSARY.md. Details: docs/AUTHORING.md, "Translations".
-->"""
"""The header catalogs had before code cells were translated; `--update` replaces it when it adds code."""


def translation_memory(root: Path, lang: str = LANG) -> dict[str, str]:
    """{English token: Spanish} of every finished pair in the `lang` catalogs: what `--update` fills a
    new token with when the same English is translated elsewhere (the course says it one way)."""
    memory: dict[str, str] = {}
    for edition in translated(root, lang):
        for entry in read_catalog(edition)[1].values():
            if isinstance(entry, CodeEntry):
                for pair in entry.pairs:
                    if pair.flag is None:
                        memory.setdefault(pair.english, pair.spanish)
    return memory


def update_catalog(edition: Edition, code: bool = False, memory: dict[str, str] | None = None) -> list[str]:
    """Create or bring up to date the catalog of `edition` (and its lesson's quiz entries); with `code`,
    or when the catalog already has code sections, its code sections too. Say what changed."""
    notebook = nbformat.read(edition.source, as_version=4)
    header, entries = (catalogs.parse(edition.catalog.read_text(encoding="utf-8"), edition.name(edition.catalog))
                       if edition.catalog.exists() else ("", []))
    names = {"source": edition.name(edition.source), "target": edition.name(edition.target)}
    code = code or any(isinstance(entry, CodeEntry) for entry in entries)
    if not header or (code and header == MARKDOWN_ONLY_HEADER.format(**names)):
        header = CATALOG_HEADER.format(**names)
    markdown, dropped = catalogs.update([e for e in entries if not isinstance(e, CodeEntry)],
                                        markdown_sources(notebook))
    by_cell = {entry.cell: entry for entry in markdown}
    old_code = {entry.cell: entry for entry in entries if isinstance(entry, CodeEntry)}
    tokens = code_tokens(notebook) if code else {}
    filled = 0
    for cell in notebook.cells:
        if cell.id not in tokens and cell.id not in old_code:
            continue
        old = old_code.pop(cell.id, CodeEntry(cell.id))
        strings = [literal.token.text for literal in code_strings.literals(cell.source)] if translatable(cell) else []
        added = [pair.english for pair in old.pairs if pair.english not in tokens.get(cell.id, [])
                 and pair.english in strings]  # pairs written by hand for strings the cell shows (rule 4)
        wanted = sorted(set(tokens.get(cell.id, [])) | set(added), key=strings.index)
        pairs = catalogs.update_pairs(old.pairs, wanted, memory)
        filled += sum(1 for pair in pairs if pair.flag is None and pair.english not in {p.english for p in old.pairs})
        if pairs:
            by_cell[cell.id] = CodeEntry(cell.id, pairs)
        elif old.pairs:
            dropped.append(cell.id)
    dropped += list(old_code)
    updated = [by_cell[cell.id] for cell in notebook.cells if cell.id in by_cell]
    text = catalogs.render(header, updated)
    said = []
    if not edition.catalog.exists() or edition.catalog.read_text(encoding="utf-8") != text:
        edition.catalog.parent.mkdir(parents=True, exist_ok=True)
        edition.catalog.write_text(text, encoding="utf-8")
        flagged = sum(entry.flag is not None for entry in updated if isinstance(entry, catalogs.Entry))
        cells = sum(isinstance(entry, catalogs.Entry) for entry in updated)
        pairs = [pair for entry in updated if isinstance(entry, CodeEntry) for pair in entry.pairs]
        said.append(f"wrote {edition.name(edition.catalog)}: {flagged} of {cells} cells to translate"
                    + (f"; {sum(p.flag is not None for p in pairs)} of {len(pairs)} code strings and comments"
                       + (f" ({filled} filled in from the same English elsewhere)" if filled else "") if code else "")
                    + (f", dropped {', '.join(dropped)}" if dropped else ""))
    if edition.lesson:
        said += update_quiz(edition.root, edition.lesson, edition.lang)
    return said


def update_quiz(root: Path, lesson: str, lang: str = LANG) -> list[str]:
    """Bring one lesson's entries in ``quizzes/<lang>/NN.json`` up to today's English questions."""
    old = quizzes(root, lang).get(lesson, [])
    new = []
    for n, entry in enumerate(quizzes(root).get(lesson, []), start=1):
        now = {"en": quiz.english_hash(entry)}
        done = old[n - 1] if n <= len(old) else None
        if done is None or done.get("todo"):
            new.append({**now, "todo": True, **{key: entry[key] for key in quiz.translated_fields(entry)
                                                 if key in entry}})
        elif done.get("en") != now["en"] or done.get("stale"):
            new.append({**now, "stale": True, **{k: v for k, v in done.items() if k not in ("en", "stale")}})
        else:
            new.append(done)
    if new == old:
        return []
    path = quiz.write_questions(root / "ddp_lessons" / quiz.QUESTIONS, lesson, new, lang)
    return [f"wrote {path.relative_to(root).as_posix()}: "
            f"{sum(bool(e.get('todo') or e.get('stale')) for e in new)} of {len(new)} questions to translate"]


def edition_of(path: Path, lang: str = LANG) -> Edition:
    """The edition a path names: an English notebook (``notebooks/NN.ipynb``) or its translation
    (``notebooks/es/NN.ipynb``); the course's root is the folder above ``notebooks/``."""
    path = Path(path).resolve()
    source = path.parent.parent / path.name if path.parent.name == lang else path
    return Edition(source.parent.parent, source, lang)


def needs_run(edition: Edition) -> bool:
    """True for a lesson whose code is translated and whose stored outputs are not from a Spanish run
    of its current code (what `--run` runs by default)."""
    if not edition.lesson or not edition.catalog.exists():
        return False
    stored = nbformat.read(edition.target, as_version=4) if edition.target.exists() else None
    run = run_record(stored)
    if run is None:
        return translates_code(read_catalog(edition)[1])
    return run.get("source") != code_hash(stored)


def store(edition: Edition, cell_timeout: int = CELL_TIMEOUT):
    """Run a generated lesson in its own folder, in its language, and store its outputs (with the
    record of the code it ran) as the generator writes them; returns the run's `course.Outcome`.
    Nothing is stored when a cell fails or an output shows a machine path."""
    from ddp_lessons.tooling import course

    if not edition.lesson or not edition.catalog.exists():
        raise catalogs.CatalogError(f"{edition.name(edition.target)}: only a translated lesson is run and stored")
    spanish = {done.source for done in translated(edition.root, edition.lang)}
    text, problems = generate(edition, spanish)  # run the code the catalog makes today, not an older file
    if problems:
        raise catalogs.CatalogError("\n".join(problems))
    if not edition.target.exists() or edition.target.read_text(encoding="utf-8") != text:
        edition.target.write_text(text, encoding="utf-8")
    previous = os.environ.get(i18n.LANGUAGE_ENV)
    os.environ[i18n.LANGUAGE_ENV] = edition.lang  # whatever the shell says, the run speaks the edition's language
    try:
        notebook, outcome = course.execute(edition.target, cell_timeout)
    finally:
        if previous is None:
            os.environ.pop(i18n.LANGUAGE_ENV, None)
        else:
            os.environ[i18n.LANGUAGE_ENV] = previous
    outcome.notebook = edition.name(edition.target)
    if not outcome.ok:
        return outcome
    shown = machine_paths(notebook)
    if shown:
        outcome.status = f"not stored: outputs show machine paths ({'; '.join(shown[:3])})"
        return outcome
    notebook.metadata.setdefault("ddp_lessons", {})["run"] = {"source": code_hash(notebook)}
    english = nbformat.read(edition.source, as_version=4)
    result, problems = translate(english, read_catalog(edition)[1], edition, spanish, notebook)
    if problems:
        raise catalogs.CatalogError("\n".join(problems))
    edition.target.write_text(render(result), encoding="utf-8")
    return outcome


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """Options of ``make-translations``."""
    parser.add_argument("--root", type=Path, default=Path("."), help="the course's folder (default: here)")
    parser.add_argument("--lang", default=LANG, choices=[LANG], help="the language to generate")
    what = parser.add_mutually_exclusive_group()
    what.add_argument("--check", action="store_true",
                      help="write nothing; exit 1 and list what is out of date, per notebook")
    what.add_argument("--update", nargs="*", type=Path, metavar="ENGLISH_NOTEBOOK",
                      help="write or update the catalogs of these English notebooks, code sections included "
                           "(default: every catalog)")
    what.add_argument("--run", nargs="*", type=Path, metavar="NOTEBOOK",
                      help="generate, then run these lessons in Spanish and store their outputs (default: every "
                           "lesson whose code is translated and whose outputs are not from a run of its code)")
    parser.add_argument("--cell-timeout", type=int, default=CELL_TIMEOUT, help="seconds per cell (--run)")


def run(args: argparse.Namespace) -> int:
    """Generate, check (--check), update catalogs (--update) or run and store (--run); 0 when all is well."""
    root = args.root.resolve()
    try:
        if args.update is not None:
            chosen = [Edition(root, (Path.cwd() / path).resolve(), args.lang) for path in args.update]
            for edition in chosen:
                if edition.folder not in SOURCES or not edition.source.exists():
                    print(f"error: {edition.source} is not an English notebook in {' or '.join(SOURCES)}/",
                          file=sys.stderr)
                    return 1
            memory = translation_memory(root, args.lang)
            for edition in chosen or translated(root, args.lang):
                for line in update_catalog(edition, code=bool(chosen), memory=memory):
                    print(line)
            return 0
        if args.check:
            report = check(root, args.lang)
            for problem in report.problems:
                print(problem, file=sys.stderr)
            if report.untranslated and not REQUIRE_EVERY_NOTEBOOK:
                print(f"not yet translated ({len(report.untranslated)}): {', '.join(report.untranslated)}",
                      file=sys.stderr)
            if report.pending:
                print(f"pending (not failing the check yet: REQUIRE_CODE_TRANSLATED is off), "
                      f"{len(report.pending)}:", file=sys.stderr)
                for line in report.pending:
                    print(f"  {line}", file=sys.stderr)
            if report.problems:
                print("translate the flagged cells, then run `python -m ddp_lessons make-translations` "
                      "(docs/AUTHORING.md, Translations)", file=sys.stderr)
            return 1 if report.problems else 0
        changed = write(root, args.lang)
        for path in changed:
            print(f"wrote {path.relative_to(root).as_posix()}")
        print(f"{len(changed)} translated notebook(s) updated")
        if args.run is None:
            return 0
        from ddp_lessons.tooling import course

        chosen = [edition_of((Path.cwd() / path), args.lang) for path in args.run] or \
            [edition for edition in translated(root, args.lang) if needs_run(edition)]
        for edition in chosen:
            if not edition.lesson or not edition.catalog.exists():
                print(f"error: {edition.name(edition.target)} is not a translated lesson", file=sys.stderr)
                return 1
        if not chosen:
            print("every translated lesson's stored outputs come from a run of its current code")
            return 0
        outcomes = []
        for edition in chosen:
            outcomes.append(store(edition, args.cell_timeout))
            print(f"{outcomes[-1].notebook:<40} {outcomes[-1].seconds:7.1f} s  {outcomes[-1].status}", flush=True)
        print(course.format_table(outcomes))
        return 0 if all(outcome.ok for outcome in outcomes) else 1
    except catalogs.CatalogError as error:
        print(f"error: {error}", file=sys.stderr)
        return 1
