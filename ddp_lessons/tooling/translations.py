"""`python -m ddp_lessons make-translations`: write notebooks/es/ and exercises/es/ from the English ones.

The English notebooks are the source. ``i18n/es/notebooks/NN_topic.md`` (and ``i18n/es/exercises/``)
holds the Spanish of each markdown cell (format: `ddp_lessons.tooling.catalogs`); the generator copies the
English notebook, puts the Spanish in its markdown cells, and keeps every code cell and stored output
byte for byte, so the Spanish lesson runs and passes nbval exactly like the English one. Three things
differ, all generated: links are re-rooted (a link to a notebook that has a Spanish edition goes to it,
any other relative link to the English file), a quick-check cell (``quiz.ask("NN", k)``,
``quiz.predict("NN", k)``) and a stored ``quiz.reveal`` output show their question from
``ddp_lessons/data/quizzes/es/NN.json``, and the notebook's metadata says
``{"ddp_lessons": {"language": "es"}}`` (what the grader reads).

``--check`` writes nothing and lists, per notebook, what is out of date: a generated notebook that
differs from what the generator writes, untranslated (todo) and stale cells, English cells the
catalog lacks, quiz questions untranslated or stale, and the notebooks not translated yet; and a
translated doc (``docs/es/INSTRUCTORS.md``) whose English changed since: its first line,
``<!-- translates docs/INSTRUCTORS.md en HASH -->``, holds the hash of the English it translates.
``--update [ENGLISH_NOTEBOOK ...]`` writes the catalog skeleton of a new notebook (English text in
place, flagged todo, with its hashes) or brings existing catalogs up to today's English (new cells
todo, changed cells flagged stale), with the lesson's quiz entries likewise.
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
from ddp_lessons.tooling import catalogs
from ddp_lessons.tooling.catalogs import STALE, TODO
from ddp_lessons.base.conventions import NOTEBOOK_PATTERN
from ddp_lessons.tooling.exercises import render

REQUIRE_EVERY_NOTEBOOK = True
"""True: every English lesson and exercise has a catalog, so one added without its Spanish fails
`--check` and tests/test_translations.py. (False only while a course is being translated: an English
notebook without a catalog is then just listed as not yet translated.)"""

SOURCES = ("notebooks", "exercises")
"""The folders whose notebooks are translated; each gets a language folder: notebooks/es/, exercises/es/."""
LANG = "es"
DOCS = ("docs/INSTRUCTORS.md", "docs/LIVE.md", "docs/COMM.md", "docs/ERRORS.md", "docs/site/home.md")
"""The English docs the edition translates, each into ``docs/<lang>/`` under the same name. The
translation is written by hand (a doc is not generated); its first line names the English and its hash."""
DOC_MARKER = re.compile(r"^<!-- translates (?P<source>\S+) en (?P<hash>[0-9a-f]{12}) -->$")
QUIZ_CELL = re.compile(r'^quiz\.(?:ask|predict)\("(?P<lesson>\d\d)", (?P<n>\d+)\)$')
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


def read_catalog(edition: Edition) -> tuple[str, dict[str, catalogs.Entry]]:
    """(header, {cell id: entry}) of an edition's catalog."""
    header, entries = catalogs.parse(edition.catalog.read_text(encoding="utf-8"), edition.name(edition.catalog))
    return header, {entry.cell: entry for entry in entries}


def relink(text: str, edition: Edition, spanish: set[Path]) -> str:
    """`text` with each relative link re-rooted from the English notebook's folder to the generated
    one's: to the Spanish edition of the target when there is one, else to the English file."""
    def move(found: re.Match) -> str:
        target = found["target"]
        if not target or "://" in target or target.startswith(("/", "mailto:")):
            return found[0]
        path = Path(os.path.normpath(edition.source.parent / target))
        if path.suffix == ".ipynb" and path.parent.name in SOURCES and path in spanish:
            path = path.parent / edition.lang / path.name
        return found["open"] + Path(os.path.relpath(path, edition.target.parent)).as_posix() + found["rest"]

    return LINK.sub(move, text)


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


def translate(english: NotebookNode, entries: dict[str, catalogs.Entry], edition: Edition,
              spanish: set[Path]) -> NotebookNode:
    """The generated notebook: English code and outputs, translated markdown and quiz cells."""
    notebook = copy.deepcopy(english)
    for cell in notebook.cells:
        if cell.cell_type == "markdown" and cell.id in entries:
            cell.source = relink(entries[cell.id].text, edition, spanish)
        elif cell.cell_type == "code":
            outputs = quiz_outputs(cell, edition.root, edition.lang)
            if outputs is not None:
                drop_widgets(notebook, cell.outputs)
                cell.outputs = outputs
    notebook.metadata["ddp_lessons"] = {**english.metadata.get("ddp_lessons", {}), "language": edition.lang,
                                        "translated_from": edition.name(edition.source)}
    return notebook


def expected(root: Path, lang: str = LANG) -> dict[Path, str]:
    """Each generated notebook's path mapped to the text the generator writes for it."""
    done = translated(root, lang)
    spanish = {edition.source for edition in done}
    texts = {}
    for edition in done:
        english = nbformat.read(edition.source, as_version=4)
        texts[edition.target] = render(translate(english, read_catalog(edition)[1], edition, spanish))
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
    """What `--check` finds: problems (each fails the check) and the notebooks not translated yet."""

    problems: list[str] = field(default_factory=list)
    untranslated: list[str] = field(default_factory=list)


def grouped(where: str, found: dict[str, list[str]]) -> list[str]:
    """One line per kind of problem: ``where: 3 cells untranslated (todo): a1, b2, c3``."""
    return [f"{where}: {len(items)} {kind}: {', '.join(items)}" for kind, items in found.items() if items]


def catalog_problems(edition: Edition) -> list[str]:
    """Untranslated, stale, missing and orphaned cells of one catalog against today's English."""
    english = markdown_sources(nbformat.read(edition.source, as_version=4))
    _, entries = read_catalog(edition)
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
    return grouped(edition.name(edition.catalog), found)


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


def check(root: Path, lang: str = LANG) -> Report:
    """Everything out of date in the `lang` edition (nothing is written)."""
    report = Report()
    for edition in editions(root, lang):
        if not edition.catalog.exists():
            report.untranslated.append(edition.name(edition.source))
            continue
        report.problems += catalog_problems(edition)
        if edition.lesson:
            report.problems += quiz_problems(root, edition.lesson, lang)
    for path, text in expected(root, lang).items():
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
Spanish of the markdown cells of {source}, one section per cell.
`python -m ddp_lessons make-translations` writes {target} from it (code cells and outputs are
copied from the English). A marker ending in `todo` still holds the English: translate it and delete
`todo`. `stale`: the English changed (it follows under "English now"): update the Spanish, then
delete `stale` and that block. Terms: i18n/es/GLOSSARY.md. Details: docs/AUTHORING.md, "Translations".
-->"""


def update_catalog(edition: Edition) -> list[str]:
    """Create or bring up to date the catalog of `edition` (and its lesson's quiz entries); say what changed."""
    english = markdown_sources(nbformat.read(edition.source, as_version=4))
    header, entries = (catalogs.parse(edition.catalog.read_text(encoding="utf-8"))
                       if edition.catalog.exists() else ("", []))
    header = header or CATALOG_HEADER.format(source=edition.name(edition.source), target=edition.name(edition.target))
    updated, dropped = catalogs.update(entries, english)
    text = catalogs.render(header, updated)
    said = []
    if not edition.catalog.exists() or edition.catalog.read_text(encoding="utf-8") != text:
        edition.catalog.parent.mkdir(parents=True, exist_ok=True)
        edition.catalog.write_text(text, encoding="utf-8")
        flagged = sum(entry.flag is not None for entry in updated)
        said.append(f"wrote {edition.name(edition.catalog)}: {flagged} of {len(updated)} cells to translate"
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


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """Options of ``make-translations``."""
    parser.add_argument("--root", type=Path, default=Path("."), help="the course's folder (default: here)")
    parser.add_argument("--lang", default=LANG, choices=[LANG], help="the language to generate")
    what = parser.add_mutually_exclusive_group()
    what.add_argument("--check", action="store_true",
                      help="write nothing; exit 1 and list what is out of date, per notebook")
    what.add_argument("--update", nargs="*", type=Path, metavar="ENGLISH_NOTEBOOK",
                      help="write or update the catalogs of these English notebooks (default: every catalog)")


def run(args: argparse.Namespace) -> int:
    """Generate, check (--check) or update catalogs (--update); 0 when all is well."""
    root = args.root.resolve()
    try:
        if args.update is not None:
            chosen = [Edition(root, (Path.cwd() / path).resolve(), args.lang) for path in args.update]
            for edition in chosen:
                if edition.folder not in SOURCES or not edition.source.exists():
                    print(f"error: {edition.source} is not an English notebook in {' or '.join(SOURCES)}/",
                          file=sys.stderr)
                    return 1
            for edition in chosen or translated(root, args.lang):
                for line in update_catalog(edition):
                    print(line)
            return 0
        if args.check:
            report = check(root, args.lang)
            for problem in report.problems:
                print(problem, file=sys.stderr)
            if report.untranslated and not REQUIRE_EVERY_NOTEBOOK:
                print(f"not yet translated ({len(report.untranslated)}): {', '.join(report.untranslated)}",
                      file=sys.stderr)
            if report.problems:
                print("translate the flagged cells, then run `python -m ddp_lessons make-translations` "
                      "(docs/AUTHORING.md, Translations)", file=sys.stderr)
            return 1 if report.problems else 0
        changed = write(root, args.lang)
    except catalogs.CatalogError as error:
        print(f"error: {error}", file=sys.stderr)
        return 1
    for path in changed:
        print(f"wrote {path.relative_to(root).as_posix()}")
    print(f"{len(changed)} translated notebook(s) updated")
    return 0
