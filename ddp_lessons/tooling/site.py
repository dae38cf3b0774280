"""`python -m ddp_lessons site` (`make site`): the course as a static web site in ``site/``, English and
Spanish, built from the stored notebooks and the docs; nothing is executed.

Sphinx builds it: myst-nb reads the notebooks with execution off, the Furo theme ships its files in its
wheel (nothing is fetched at build or view time), and math becomes MathML, which browsers draw without
a script. The pip extra ``docs`` installs them (`pip install -e '.[docs]'`; `make site` does); `make lab`
does not.

Per language (English in ``site/``, Spanish in ``site/es/``, every page at the same path in both):

1. Stage a Sphinx source folder, ``build/site/<lang>/src/``: every page of `pages()` from its file in
   that language, or from its file in the other language while it has no translation (the page then
   says so). Links between the course's files (``[exercise](../exercises/05_x.ipynb)``, ``docs/LIVE.md``,
   ``examples/train_ddp.py``) become links between pages; a link to the other language's edition of a
   page (the README's "Español") leads to that page in the other language's site. Widgets show the HTML
   each one stored (a quick check: its answer folded in ``<details>``; a numeric prediction: its
   measured value folded, class ``ddp-reveal``). Exercise pages show the exercise as a student gets it
   (never its solution, no outputs) with the command to open it; lesson pages the command to run them.
2. Give every figure its alt text in the page's language, from ``docs/site/figures/NN.json``
   (docs/AUTHORING.md, "The web edition").
3. Run Sphinx on both staged folders at once, with ``docs/site/conf.py``: one process imports Sphinx,
   then forks one child per language (the import, about 2 s of CPU, is paid once).

`Stage.problems` lists what the staging found wrong (a link to no page, a figure without alt text); the
command prints them, and ``--strict`` fails on them and on Sphinx's warnings (the site test builds strict).
"""

from __future__ import annotations

import argparse
import base64
import copy
import hashlib
import importlib
import importlib.util
import json
import multiprocessing
import os
import posixpath
import re
import shutil
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path

from ddp_lessons import i18n
from ddp_lessons.base.conventions import NOTEBOOK_PATTERN
from ddp_lessons.i18n import tr
from ddp_lessons.runtime import processes

ROOT = Path(__file__).resolve().parents[2]
SITE = Path("site")
STAGE = Path("build/site")
CONF = Path("docs/site")
LOCALE = CONF / "locale"
FIGURES = CONF / "figures"
"""Alt text of the lessons' figures: ``NN.json`` per lesson, {cell id: [{"en": ..., "es": ...}, ...]}."""
HOME = ("docs/site/home.md", "docs/site/es/home.md")
"""The landing page and its Spanish (kept in step like docs/es/: its first line names the English's hash)."""
LESSON_LIST = "<!-- site: lessons -->"
"""Where the landing page lists the lessons (the build writes the list, so a new lesson appears by itself)."""
OUTPUT = {"en": "", "es": "es"}
"""Each language's folder inside the site."""
LANGUAGE_NAMES = {"en": "English", "es": "Español"}
DOCS = ("INSTRUCTORS", "LIVE", "COMM", "ERRORS", "AUTHORING")
"""The guides in docs/ (their Spanish in docs/es/ where it exists), after the README."""
FOLDERS = {".": "index", "docs": "index", "docs/es": "index", "notebooks": "index", "notebooks/es": "index",
           "exercises": "index", "exercises/es": "index"}
"""Links to a folder of the course lead to the landing page."""
SPHINX_MODULES = ("sphinx.cmd.build", "sphinx.builders.html", "myst_nb.sphinx_ext", "furo",
                  "sphinx.search.en", "sphinx.search.es", "latex2mathml.converter")
"""What the build imports once, before it forks a Sphinx per language (the ``docs`` extra installs them)."""
BUILD_TIMEOUT = 600
WIDGET_VIEW = "application/vnd.jupyter.widget-view+json"
LINK = re.compile(r"(?P<code>^```.*?^```[ \t]*$|^~~~.*?^~~~[ \t]*$)"  # code blocks: left alone
                  r"|\[(?P<text>[^\]\n]*)\]\((?P<target>[^)\s]*)\)"  # a markdown link (`code` in its text too)
                  r'|(?:<a href="|<img src=")(?P<html>[^"\s]*)"'  # an HTML link or image
                  r"|``[^`]+``|`[^`\n]+`",  # code spans: left alone
                  re.DOTALL | re.MULTILINE)
HEADING = re.compile(r"^(#{1,6})\s+(.+?)\s*$", re.MULTILINE)
IMAGE_SUFFIXES = (".png", ".svg", ".jpg", ".jpeg", ".gif")
DESCRIPTION = 200
"""At most this many characters of a page's first paragraph go in its meta description."""
EXAMPLE_LANGUAGES = {".py": "python", ".sbatch": "bash", ".sh": "bash"}


@dataclass(frozen=True)
class Page:
    """One page of the site, at the same path in every language: `name` is that path without its suffix
    (``lessons/05_distributed_sampler``); `files` {language: the course file it is built from}."""

    name: str
    kind: str  # home, lesson, exercise, doc, example
    files: dict[str, str]

    def file(self, lang: str) -> str:
        """The file this page is built from in `lang`: its translation, else the English (else any)."""
        return self.files.get(lang) or self.files.get(i18n.SOURCE) or next(iter(self.files.values()))

    def written_in(self, lang: str) -> str:
        """The language of the page's text on the `lang` site."""
        return next(code for code, path in self.files.items() if path == self.file(lang))

    @property
    def staged(self) -> str:
        """The page's file in a staged source folder."""
        return self.name + (".ipynb" if self.kind in ("lesson", "exercise") else ".md")


def pages(root: Path = ROOT) -> list[Page]:
    """Every page, in the sidebar's order: home, lessons, exercises, guides, take-home files. Lessons and
    exercises are every ``NN_*.ipynb`` there is (a new lesson is a new page)."""
    found = [Page("index", "home", _files(root, *HOME))]
    for folder, kind, section in (("notebooks", "lesson", "lessons"), ("exercises", "exercise", "exercises")):
        for path in sorted((root / folder).glob(NOTEBOOK_PATTERN)):
            found.append(Page(f"{section}/{path.stem}", kind,
                              _files(root, f"{folder}/{path.name}", f"{folder}/es/{path.name}")))
    found.append(Page("readme", "doc", _files(root, "README.md", "README.es.md")))
    for name in DOCS:
        files = _files(root, f"docs/{name}.md", f"docs/es/{name}.md")
        if files:
            found.append(Page(f"docs/{name.lower()}", "doc", files))
    if (root / "i18n/es/GLOSSARY.md").exists():
        found.append(Page("docs/glossary", "doc", {"es": "i18n/es/GLOSSARY.md"}))
    for path in sorted((root / "examples").glob("*")):  # a Spanish edition of one is in examples/es/
        if path.is_file() and not path.name.startswith("."):
            found.append(Page(f"examples/{path.name.replace('.', '_')}", "example",
                              _files(root, f"examples/{path.name}", f"examples/es/{path.name}")))
    return found


def _files(root: Path, english: str, spanish: str) -> dict[str, str]:
    return {lang: path for lang, path in (("en", english), ("es", spanish)) if (root / path).exists()}


@dataclass
class Stage:
    """One language's staged source folder, and what staging found: figures' alt text, problems."""

    lang: str
    folder: Path
    alt: dict[str, str] = field(default_factory=dict)
    problems: list[str] = field(default_factory=list)


class Site:
    """The pages of the course, how a link in one of its files leads to one of them, and their staging."""

    def __init__(self, root: Path = ROOT):
        self.root = root
        self.pages = pages(root)
        self.by_name = {page.name: page for page in self.pages}
        self.by_file = {path: (page, lang) for page in self.pages for lang, path in page.files.items()}
        self.figures = {path.stem: json.loads(path.read_text(encoding="utf-8"))
                        for path in sorted((root / FIGURES).glob("[0-9][0-9].json"))}
        self._notebooks: dict[str, dict] = {}

    def notebook(self, path: str) -> dict:
        """A course notebook as stored (read once; callers copy before changing it)."""
        if path not in self._notebooks:
            self._notebooks[path] = json.loads((self.root / path).read_text(encoding="utf-8"))
        return self._notebooks[path]

    def text(self, page: Page, lang: str) -> str:
        """The page's prose in `lang`: a notebook's markdown cells, a document's text."""
        path = page.file(lang)
        if path.endswith(".ipynb"):
            return "\n\n".join("".join(cell["source"]) for cell in self.notebook(path)["cells"]
                                if cell["cell_type"] == "markdown")
        return (self.root / path).read_text(encoding="utf-8")

    def title(self, page: Page, lang: str) -> str:
        """The page's first heading in `lang` (the title Sphinx gives it)."""
        if page.kind == "example":
            return f"`{page.file(lang)}`"
        found = HEADING.search(self.text(page, lang))
        return found.group(2) if found else page.name

    def description(self, page: Page, lang: str) -> str:
        """What a search engine shows under the page's title: its first paragraph of prose, as plain text."""
        if page.kind == "example":
            return ""
        for paragraph in re.split(r"\n\s*\n", self.text(page, lang)):
            if paragraph.lstrip().startswith(("#", "<!--", "|", "```", ">", "-", "*", "!")):
                continue
            plain = re.sub(r"\[([^\]]*)\]\([^)]*\)", r"\1", paragraph)  # a link: its text
            plain = re.sub(r"\s+", " ", re.sub(r"[`*_]|<[^>]+>", "", plain)).strip()
            if len(plain) >= 60:
                return plain if len(plain) <= DESCRIPTION else plain[:DESCRIPTION].rsplit(" ", 1)[0] + " …"
        return ""

    # -- links -------------------------------------------------------------------------------------------
    def link(self, target: str, written_in: str, page: Page, stage: Stage, raw: bool = False) -> str | None:
        """Where a link to `target`, written in the course file `written_in`, leads from `page` of the
        `stage.lang` site: a staged page's path (Sphinx makes it a link and checks it), a page's address
        (``….html``: in the other language's site, or for a `raw` HTML link, which Sphinx does not read), or
        None: left as it is (a web address, an anchor of the page itself). A link to no page is a problem."""
        if not target or target.startswith("#") or re.match(r"^[a-zA-Z][a-zA-Z0-9+.-]*:", target):
            return None
        path, _, anchor = target.partition("#")
        resolved = posixpath.normpath(posixpath.join(posixpath.dirname(written_in), path))
        found = ((self.by_name[FOLDERS[resolved]], stage.lang) if resolved in FOLDERS
                 else self.by_file.get(resolved))
        fragment = "#" + _slug(anchor) if anchor else ""
        if found is None:
            if (self.root / resolved).is_file() and resolved.endswith(IMAGE_SUFFIXES) and not raw:
                (stage.folder / resolved).parent.mkdir(parents=True, exist_ok=True)
                shutil.copyfile(self.root / resolved, stage.folder / resolved)
                return posixpath.relpath(resolved, posixpath.dirname(page.name))
            stage.problems.append(f"{written_in}: the link to {target} leads to no page of the site")
            return None
        to, its_lang = found
        if its_lang != stage.lang and stage.lang in to.files:
            # the other language's edition of a page this language has: that page in the other site
            up = "../" * page.name.count("/")
            return up + (f"{OUTPUT[its_lang]}/" if OUTPUT[its_lang] else "../") + to.name + ".html" + fragment
        if to is page and fragment:
            return fragment
        return posixpath.relpath(to.name + ".html" if raw else to.staged, posixpath.dirname(page.name)) + fragment

    def rewrite(self, text: str, written_in: str, page: Page, stage: Stage) -> str:
        """Markdown `text` with its links rewritten by `link`; code spans and blocks are left alone. A link
        into the other language's site becomes an HTML link (Sphinx checks the links between its own pages)."""
        def move(match: re.Match) -> str:
            markdown = match["text"] is not None
            target = match["target"] if markdown else match["html"]
            new = None if target is None else self.link(target, written_in, page, stage, raw=not markdown)
            if new is None:
                return match[0]
            if markdown and re.search(r"\.html(#|$)", new):
                return f'<a href="{new}">{match["text"]}</a>'
            return f"[{match['text']}]({new})" if markdown else match[0].replace(target, new, 1)

        return LINK.sub(move, text)

    # -- staging -----------------------------------------------------------------------------------------
    def stage(self, lang: str, folder: Path) -> Stage:
        """Write the Sphinx source folder of the `lang` site, and the context conf.py reads."""
        shutil.rmtree(folder, ignore_errors=True)
        folder.mkdir(parents=True)
        stage = Stage(lang, folder)
        for page in self.pages:
            target = folder / page.staged
            target.parent.mkdir(parents=True, exist_ok=True)
            if page.kind in ("lesson", "exercise"):
                target.write_text(json.dumps(self._notebook(page, stage), ensure_ascii=False), encoding="utf-8")
            elif page.kind == "example":
                target.write_text(self._example(page, stage), encoding="utf-8")
            else:
                target.write_text(self._markdown(page, stage), encoding="utf-8")
        (folder / "_site.json").write_text(json.dumps(self.context(stage), ensure_ascii=False, indent=1),
                                           encoding="utf-8")
        if (self.root / LOCALE / lang).is_dir():  # the theme's words Sphinx's catalog lacks (Sphinx compiles it)
            shutil.copytree(self.root / LOCALE / lang, folder / "_locale" / lang)
        return stage

    def _notebook(self, page: Page, stage: Stage) -> dict:
        """A lesson or exercise as its page shows it."""
        path = page.file(stage.lang)
        notebook = copy.deepcopy(self.notebook(path))
        notebook["metadata"].pop("widgets", None)  # widget state: each widget shows the HTML it stored
        lesson = Path(path).name[:2]
        figures = self.figures.get(lesson, {}) if page.kind == "lesson" else {}
        heading = ""
        for cell in notebook["cells"]:
            source = "".join(cell["source"])
            if cell["cell_type"] == "markdown":
                cell["source"] = self.rewrite(source, path, page, stage)
                heading = ([text for _, text in HEADING.findall(source)] or [heading])[-1]
            elif cell["cell_type"] == "code" and page.kind == "exercise":
                cell["outputs"], cell["execution_count"] = [], None  # the student's to write and run
            elif cell["cell_type"] == "code":
                number = 0
                for output in cell["outputs"]:
                    data = output.get("data", {})
                    data.pop(WIDGET_VIEW, None)
                    if "image/png" in data:
                        number += 1
                        self._alt(data["image/png"], figures.get(cell.get("id", ""), []), number, stage,
                                  f"{path}: figure {number} of cell {cell.get('id')} (under “{heading}”, code "
                                  f"{source.strip().splitlines()[-1][:60]!r})", lesson)
        notes = self._untranslated(page, stage.lang) + [self._how_to_run(page, stage.lang)]
        with_ids = all("id" in cell for cell in notebook["cells"])  # nbformat 4.5 and later
        notebook["cells"][1:1] = [{"cell_type": "markdown", "metadata": {}, "source": note}
                                  | ({"id": f"ddp-site-{n}"} if with_ids else {})
                                  for n, note in enumerate(notes) if note]
        return notebook

    def _alt(self, png: str, entries: list[dict], number: int, stage: Stage, where: str, lesson: str) -> None:
        """Record the alt text of a figure (by its PNG's hash), or the problem that it has none."""
        digest = hashlib.sha256(base64.b64decode(png)).hexdigest()
        text = (entries[number - 1].get(stage.lang) or "").strip() if number <= len(entries) else ""
        if text:
            stage.alt[digest] = text
        else:
            stage.problems.append(f"{where} has no alt text in {LANGUAGE_NAMES[stage.lang]}: "
                                  f"add it to {FIGURES.as_posix()}/{lesson}.json")

    def _markdown(self, page: Page, stage: Stage) -> str:
        path = page.file(stage.lang)
        text = re.sub(r"\A<!-- translates .*? -->\n", "", (self.root / path).read_text(encoding="utf-8"))
        text = self.rewrite(text, path, page, stage)
        if page.kind == "home":
            text = text.replace(LESSON_LIST, self._lesson_list(stage.lang)) + self._toctrees(stage.lang)
        notes = self._untranslated(page, stage.lang)
        if notes:
            title, _, rest = text.partition("\n")
            text = f"{title}\n\n{notes[0]}\n{rest}"
        return text

    def _example(self, page: Page, stage: Stage) -> str:
        """A take-home file's page: what it is, the lessons that use it, the file itself."""
        path = page.file(stage.lang)
        used = [f"[{self.title(other, stage.lang)}]({posixpath.relpath(other.staged, 'examples')})"
                for other in self.pages if other.kind == "lesson"
                and re.search(r"\]\((\.\./)+" + re.escape(path) + r"[)#]",
                              json.dumps(self.notebook(other.file(stage.lang)), ensure_ascii=False))]
        copied = stage.folder / "examples" / "files" / Path(path).name
        copied.parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(self.root / path, copied)
        lines = [f"# `{path}`", "", tr("A file of the course to take home: the lessons run it, and so can you, "
                                       "from the course's folder.", lang=stage.lang)]
        if used:
            lines += ["", tr("Used in: {lessons}.", lang=stage.lang, lessons=", ".join(used))]
        language = EXAMPLE_LANGUAGES.get(Path(path).suffix, "text")
        return "\n".join(lines + ["", f"```{{literalinclude}} files/{Path(path).name}", f":language: {language}",
                                  "```", ""])

    def _how_to_run(self, page: Page, lang: str) -> str:
        """What a lesson or exercise page says under its title: how to open it on your own machine."""
        path = page.file(lang)
        command = "make lab-es" if "/es/" in path else "make lab"
        setup = posixpath.relpath("readme.md", posixpath.dirname(page.name))
        if page.kind == "lesson":
            return _admonition(tr("Run it yourself", lang=lang), tr(
                "This page shows the lesson as it ran: its outputs are stored, and nothing runs here. On your "
                "machine: `{command}`, then open `{path}` and run its cells (the [setup]({setup}) is two commands).",
                lang=lang, command=command, path=path, setup=setup))
        return _admonition(tr("You do this exercise on your machine", lang=lang), tr(
            "Run `{command}`, open `{path}`, write your code where a cell says `# YOUR CODE HERE`, then run the "
            "check cell below it: it says what is wrong, and how to fix it if it fails again. The solutions are not "
            "published. First time? The [setup]({setup}) is two commands.",
            lang=lang, command=command, path=path, setup=setup))

    def _untranslated(self, page: Page, lang: str) -> list[str]:
        written = page.written_in(lang)
        if written == lang:
            return []
        if written == i18n.SOURCE:
            return [_admonition(tr("Not translated yet", lang=lang),
                                tr("This page is not translated yet: here it is in English.", lang=lang), "note")]
        return [_admonition(tr("Only in Spanish", lang=lang), tr("This page exists only in Spanish.", lang=lang),
                            "note")]

    def _lesson_list(self, lang: str) -> str:
        """The landing page's list of lessons, in order (from the files: a new lesson is listed)."""
        return "\n".join(f"- [{self.title(page, lang)}]({page.staged})" for page in self.pages if page.kind == "lesson")

    def _toctrees(self, lang: str) -> str:
        """The landing page's hidden tables of contents: the sidebar, and the order of previous / next."""
        sections = ((tr("Lessons", lang=lang), "lesson"), (tr("Exercises", lang=lang), "exercise"),
                    (tr("Guides", lang=lang), "doc"), (tr("Take-home files", lang=lang), "example"))
        text = ""
        titled = {"readme": tr("README: setup, commands, troubleshooting", lang=lang) + " <readme>"}
        for caption, kind in sections:
            names = [titled.get(page.name, page.name) for page in self.pages if page.kind == kind]
            if names:
                text += f"\n```{{toctree}}\n:caption: {caption}\n:hidden:\n\n" + "\n".join(names) + "\n```\n"
        return text

    def context(self, stage: Stage) -> dict:
        """What docs/site/conf.py reads for the `stage.lang` site."""
        other = next(code for code in OUTPUT if code != stage.lang)
        return {"lang": stage.lang, "project": tr("DDP course", lang=stage.lang),
                "other_lang": other, "other_lang_name": LANGUAGE_NAMES[other],
                "other_site": f"{OUTPUT[other]}/" if OUTPUT[other] else "../",
                "switch_label": tr("This page in another language", lang=stage.lang),
                "alt": stage.alt, "written_in": {page.name: page.written_in(stage.lang) for page in self.pages},
                "descriptions": {page.name: self.description(page, stage.lang) for page in self.pages}}


def _admonition(title: str, text: str, kind: str = "tip") -> str:
    """A MyST admonition box titled `title` around markdown `text`, styled as `kind` (Furo's ``tip``, ``note``)."""
    return f"```{{admonition}} {title}\n:class: {kind}\n\n{text}\n```"


def _slug(anchor: str) -> str:
    """A heading's anchor as Sphinx writes it (Jupyter's "The-course-in-one-page" and GitHub's
    "the-course-in-one-page" both become the latter)."""
    return re.sub(r"[^\w\- ]", "", anchor.strip().lower()).replace(" ", "-")


# -- the build -------------------------------------------------------------------------------------------------
class SiteBuildError(RuntimeError):
    """Sphinx is missing or failed, or a strict build found problems."""


def build(root: Path = ROOT, out: Path | None = None, stage_dir: Path | None = None, *,
          strict: bool = False) -> list[str]:
    """Stage both languages and build them with Sphinx into `out` (default ``site/``; Spanish in ``es/``);
    returns the problems staging found and Sphinx's warnings. Raises `SiteBuildError` when Sphinx fails, or
    with `strict` on any problem or Sphinx warning. What it writes besides the site stays in `stage_dir`
    (``build/site/``)."""
    out = out or root / SITE
    stage_dir = stage_dir or root / STAGE
    missing = sorted({name.split(".")[0] for name in SPHINX_MODULES
                      if importlib.util.find_spec(name.split(".")[0]) is None})
    if missing:
        raise SiteBuildError(f"{', '.join(missing)} not installed: the site needs the docs extra "
                             f"(`.venv/bin/pip install -e '.[docs]'`, or `make site`)")
    site = Site(root)
    stages = [site.stage(lang, stage_dir / lang / "src") for lang in OUTPUT]
    problems = [problem for stage in stages for problem in stage.problems]
    if strict and problems:
        raise SiteBuildError("the site has problems:\n" + "\n".join(problems))
    runs = []
    for stage in stages:
        html = stage_dir / stage.lang / "html"  # myst-nb writes figures beside it, in jupyter_execute/
        shutil.rmtree(html, ignore_errors=True)
        arguments = ["-b", "html", "-E", "-q", "-c", str(root / CONF), "-d", str(stage_dir / stage.lang / "doctrees")]
        arguments += (["-W", "--keep-going"] if strict else []) + [str(stage.folder), str(html)]
        runs.append((stage.lang, arguments, stage_dir / stage.lang / "sphinx.log", html))
    codes = _run_sphinx(runs, stage_dir)
    failed = [f"the {lang} site: Sphinx exited with {codes[lang]}:\n"
              + log.read_text(encoding="utf-8", errors="replace")[-4000:]
              for lang, _, log, _ in runs if codes[lang] != 0]
    if failed:
        raise SiteBuildError("\n".join(failed))
    problems += [f"the {lang} site: {line}" for lang, _, log, _ in runs  # Sphinx's warnings (-q keeps only them)
                 for line in log.read_text(encoding="utf-8", errors="replace").splitlines() if "WARNING" in line]
    shutil.rmtree(out, ignore_errors=True)
    for lang, _, _, html in runs:
        shutil.rmtree(html / "_sources", ignore_errors=True)  # empty: the sources are not published
        shutil.move(html, out / OUTPUT[lang] if OUTPUT[lang] else out)
    return problems


def _run_sphinx(runs: list[tuple[str, list[str], Path, Path]], stage_dir: Path) -> dict[str, int | None]:
    """Run Sphinx once per language, {lang: exit code}: forked children of this process, which imports
    Sphinx once, all at once (one after the other in this process where there is no fork)."""
    if "jsonschema" not in sys.modules:
        # nbformat imports jsonschema, which imports rfc3987_syntax where it is installed (Jupyter's
        # dependencies install it) to check IRI formats, which validating a notebook never does; that
        # import builds 38 parser grammars: 2.5 s of CPU, a tenth of the build. Without it, the check is off.
        sys.modules.setdefault("rfc3987_syntax", None)
    for name in SPHINX_MODULES:
        importlib.import_module(name)
    if not hasattr(os, "fork"):
        return {lang: _sphinx_main(arguments, log, stage_dir / lang / "src" / "_site.json")
                for lang, arguments, log, _ in runs}
    fork = multiprocessing.get_context("fork")
    children = {lang: fork.Process(target=_sphinx_child, args=(arguments, log, stage_dir / lang / "src" / "_site.json"))
                for lang, arguments, log, _ in runs}
    for child in children.values():
        child.start()
    deadline = time.monotonic() + BUILD_TIMEOUT
    for child in children.values():
        child.join(max(0.0, deadline - time.monotonic()))
    late = [child.pid for child in children.values() if child.exitcode is None]
    if late:
        processes.Tree().kill(late)
        for child in children.values():
            child.join(5)
    return {lang: child.exitcode for lang, child in children.items()}


def _sphinx_main(arguments: list[str], log: Path, context: Path) -> int:
    """sphinx-build `arguments` in this process, its output in `log`."""
    from sphinx.cmd.build import build_main

    os.environ["DDP_SITE_CONTEXT"] = str(context)
    with log.open("w", encoding="utf-8") as output:
        saved = sys.stdout, sys.stderr
        sys.stdout = sys.stderr = output
        try:
            return build_main(arguments)
        finally:
            sys.stdout, sys.stderr = saved


def _sphinx_child(arguments: list[str], log: Path, context: Path) -> None:
    """A forked child: one language's build, its exit code Sphinx's."""
    sys.exit(_sphinx_main(arguments, log, context))


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """Options of ``site``."""
    parser.add_argument("--out", type=Path, default=SITE, help="where the site goes (default: site/)")
    parser.add_argument("--work", type=Path, default=STAGE,
                        help="where the staged sources, Sphinx's caches and logs go (default: build/site/)")
    parser.add_argument("--strict", action="store_true",
                        help="fail on any problem: a link to no page, a figure without alt text, a Sphinx warning")


def run(args: argparse.Namespace) -> int:
    """Build the site; 0 when it was written."""
    started = time.monotonic()
    try:
        problems = build(ROOT, args.out.resolve(), args.work.resolve(), strict=args.strict)
    except SiteBuildError as error:
        print(f"error: {error}", file=sys.stderr)
        return 1
    for problem in problems:
        print(f"warning: {problem}", file=sys.stderr)
    print(f"The site is in {args.out}/ ({time.monotonic() - started:.0f} s). Preview it: "
          f"python3 -m http.server --directory {args.out} --bind 127.0.0.1 8000, then open http://127.0.0.1:8000/")
    return 0
