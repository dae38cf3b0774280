"""The course's web site (`make site`, ddp_lessons/tooling/site.py).

Fast tests stage a tiny course (no Sphinx). The rest build the real site once for this module, strict
(a link to no page, a figure without alt text or a Sphinx warning fails the build), serve it on
127.0.0.1, crawl every link of every page from the files, and drive Chromium through it: the landing
page, a lesson and its Spanish twin through the language switch, "Next", a folded quiz answer opened by
a click, the search. Needs the docs extra (`make test` installs it) and Chromium (tests/browser.py).
"""
from __future__ import annotations

import base64
import functools
import hashlib
import html
import http.server
import importlib.util
import json
import os
import re
import subprocess
import sys
import threading
import urllib.error
import urllib.parse
import urllib.request
from html.parser import HTMLParser
from pathlib import Path

import nbformat.v4 as v4
import pytest

from browser import ROOT, SCREENSHOTS
from ddp_lessons.base.conventions import NOTEBOOK_PATTERN
from ddp_lessons.runtime import processes
from ddp_lessons.tooling import site

BUILD_TIMEOUT_S = 600
PNG = base64.b64encode(b"\x89PNG\r\n\x1a\n" + bytes(range(40))).decode()  # enough to hash


# -- a tiny course, staged without Sphinx ------------------------------------------------------------------------
def notebook(path: Path, *cells, language: str | None = None) -> Path:
    """A stored notebook of markdown (str) and code ((source, outputs)) cells at `path`."""
    made = [v4.new_markdown_cell(cell) if isinstance(cell, str) else v4.new_code_cell(cell[0], outputs=cell[1])
            for cell in cells]
    for n, cell in enumerate(made):
        cell["id"] = f"cell{n}"
    metadata = {"ddp_lessons": {"language": language}} if language else {}
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(v4.new_notebook(cells=made, metadata=metadata)), encoding="utf-8")
    return path


def figure(png: str = PNG) -> dict:
    return v4.new_output("display_data", data={"image/png": png, "text/plain": "<Figure size 640x480 with 1 Axes>"})


@pytest.fixture
def course(tmp_path) -> Path:
    """Lesson 01 in both languages, a lesson 17 only in English, exercise 01, a README pair, a guide, a
    take-home script and the landing page."""
    root = tmp_path / "course"
    notebook(root / "notebooks/01_first.ipynb", "# Lesson 1 — First\n\nSee [the guide](../docs/LIVE.md), "
             "[exercise 1](../exercises/01_first.ipynb) and `[not a link](nowhere.ipynb)`.",
             ("plots.draw()", [figure()]), "Next: [lesson 17](17_new.ipynb#The-Last-Part)")
    notebook(root / "notebooks/es/01_first.ipynb",
             "# Lección 1: primera\n\n[Ejercicio](../../exercises/es/01_first.ipynb)",
             ("plots.draw()", [figure()]), "Siguiente: [lección 17](../17_new.ipynb)", language="es")
    notebook(root / "notebooks/17_new.ipynb", "# Lesson 17 — New\n\n## The Last Part\n\n[Back](01_first.ipynb)")
    notebook(root / "exercises/01_first.ipynb", "# Exercise 1 — First\n\nLesson: [1](../notebooks/01_first.ipynb)",
             ("# YOUR CODE HERE\nraise NotImplementedError()", [v4.new_output("stream", text="stale output\n")]))
    notebook(root / "exercises/es/01_first.ipynb", "# Ejercicio 1: primero", ("x = 1", []), language="es")
    (root / "docs/es").mkdir(parents=True)
    (root / "docs/LIVE.md").write_text('# Live ranks\n\n[Home](../README.md#two-commands)\n\n'
                                       '<a href="../notebooks/01_first.ipynb">lesson 1</a>\n')
    (root / "docs/es/LIVE.md").write_text("<!-- translates docs/LIVE.md en 000000000000 -->\n# Ranks en vivo\n")
    (root / "README.md").write_text("# Course\n\n[Español](README.es.md) · [script](examples/train.py) · "
                                    "[tools](tools/helper.py)\n\n## Two commands\n")
    (root / "README.es.md").write_text("# Curso\n\n[English](README.md) · [guía](docs/es/LIVE.md)\n")
    (root / "examples").mkdir()
    (root / "examples/train.py").write_text("print('train')\n")
    (root / "examples/es").mkdir()
    (root / "examples/es/train.py").write_text("print('entrenar')\n")
    (root / "docs/site/es").mkdir(parents=True)
    (root / "docs/site/home.md").write_text(f"# Home\n\n{site.LESSON_LIST}\n\n[README](../../README.md)\n")
    (root / "docs/site/es/home.md").write_text(f"# Inicio\n\n{site.LESSON_LIST}\n")
    return root


def staged(course: Path, lang: str) -> tuple[site.Stage, Path]:
    stage = site.Site(course).stage(lang, course / "build" / lang)
    return stage, stage.folder


def cells(path: Path) -> list[dict]:
    return json.loads(path.read_text(encoding="utf-8"))["cells"]


def test_every_numbered_notebook_is_a_page_of_both_sites_in_the_files_order(course):
    names = [page.name for page in site.pages(course)]
    assert names == ["index", "lessons/01_first", "lessons/17_new", "exercises/01_first", "readme", "docs/live",
                     "examples/train_py"]
    new = site.Site(course).by_name["lessons/17_new"]
    assert new.file("es") == "notebooks/17_new.ipynb" and new.written_in("es") == "en"
    _, folder = staged(course, "es")
    first = cells(folder / "lessons/17_new.ipynb")
    assert "Esta página aún no está traducida" in "".join(first[1]["source"])  # and says so, in Spanish


def test_the_real_course_has_a_page_per_lesson_and_exercise_whatever_their_number():
    pages = {page.name for page in site.pages(ROOT)}
    for folder, section in (("notebooks", "lessons"), ("exercises", "exercises")):
        for path in (ROOT / folder).glob(NOTEBOOK_PATTERN):
            assert f"{section}/{path.stem}" in pages


def test_links_between_course_files_become_links_between_pages(course):
    stage, folder = staged(course, "en")
    lesson = "".join(cells(folder / "lessons/01_first.ipynb")[0]["source"])
    assert "[the guide](../docs/live.md)" in lesson and "[exercise 1](../exercises/01_first.ipynb)" in lesson
    assert "`[not a link](nowhere.ipynb)`" in lesson  # code is left alone
    last = "".join(cells(folder / "lessons/01_first.ipynb")[-1]["source"])
    assert "[lesson 17](17_new.ipynb#the-last-part)" in last  # Jupyter's anchor, as Sphinx writes it
    readme = (folder / "readme.md").read_text()
    assert '<a href="es/readme.html">Español</a>' in readme  # the other edition: the other site's page
    assert "[script](examples/train_py.md)" in readme
    assert "README.md: the link to tools/helper.py leads to no page of the site" in stage.problems
    assert "[README](readme.md)" in (folder / "index.md").read_text()
    guide = (folder / "docs/live.md").read_text()
    assert "[Home](../readme.md#two-commands)" in guide
    assert '<a href="../lessons/01_first.html">lesson 1</a>' in guide  # raw HTML: the page's address


def test_a_spanish_page_links_to_spanish_pages_and_its_twin_in_the_english_site(course):
    stage, folder = staged(course, "es")
    readme = (folder / "readme.md").read_text()
    assert '<a href="../readme.html">English</a>' in readme and "[guía](docs/live.md)" in readme
    lesson = cells(folder / "lessons/01_first.ipynb")
    assert "[Ejercicio](../exercises/01_first.ipynb)" in "".join(lesson[0]["source"])
    assert "[lección 17](17_new.ipynb)" in "".join(lesson[-1]["source"])  # untranslated: its page on this site
    context = json.loads((folder / "_site.json").read_text())
    assert context["other_site"] == "../" and context["written_in"]["lessons/17_new"] == "en"


def test_the_landing_page_lists_every_lesson_and_holds_the_sidebar(course):
    _, folder = staged(course, "es")
    home = (folder / "index.md").read_text()
    assert "- [Lección 1: primera](lessons/01_first.ipynb)\n- [Lesson 17 — New](lessons/17_new.ipynb)" in home
    assert ":caption: Lecciones" in home and "lessons/17_new" in home.split(":caption: Lecciones")[1]


def test_a_figure_gets_its_alt_text_in_the_pages_language_and_one_without_is_a_problem(course):
    stage, _ = staged(course, "en")
    assert len(stage.problems) == 2 and "figure 1 of cell cell1" in stage.problems[0]
    assert "has no alt text in English: add it to docs/site/figures/01.json" in stage.problems[0]
    (course / "docs/site/figures").mkdir()
    (course / "docs/site/figures/01.json").write_text(json.dumps(
        {"cell1": [{"en": "A line going up.", "es": "Una línea que sube."}]}))
    digest = hashlib.sha256(base64.b64decode(PNG)).hexdigest()
    for lang, alt in (("en", "A line going up."), ("es", "Una línea que sube.")):
        stage, folder = staged(course, lang)
        assert stage.alt == {digest: alt}
        assert json.loads((folder / "_site.json").read_text())["alt"] == {digest: alt}


def test_exercise_pages_show_the_exercise_without_outputs_and_how_to_open_it(course):
    for lang, command, path in (("en", "make lab", "exercises/01_first.ipynb"),
                                ("es", "make lab-es", "exercises/es/01_first.ipynb")):
        _, folder = staged(course, lang)
        exercise = cells(folder / "exercises/01_first.ipynb")
        assert all(cell.get("outputs", []) == [] for cell in exercise)
        note = "".join(exercise[1]["source"])
        assert f"`{command}`" in note and f"`{path}`" in note and "](../readme.md)" in note
    lesson = cells(folder / "lessons/01_first.ipynb")
    assert "`make lab-es`" in "".join(lesson[1]["source"]) and "`notebooks/es/01_first.ipynb`" in "".join(
        lesson[1]["source"])


def test_widgets_show_their_stored_html_quizzes_and_predictions_with_their_classes(course):
    predict = '<div class="ddp-predict"><p>How many buckets?</p></div>'
    reveal = '<div class="ddp-reveal"><details><summary>Measured</summary><p>3 buckets</p></details></div>'
    outputs = [v4.new_output("display_data", data={
        "application/vnd.jupyter.widget-view+json": {"model_id": "abc", "version_major": 2, "version_minor": 0},
        "text/html": form, "text/plain": "text"}) for form in (predict, reveal)]
    notebook(course / "notebooks/02_second.ipynb", "# Lesson 2", ("quiz.predict('02', 1)", outputs[:1]),
             ("quiz.reveal('02', 1, measured=3)", outputs[1:]))
    _, folder = staged(course, "en")
    shown = [output["data"] for cell in cells(folder / "lessons/02_second.ipynb") for output in cell.get("outputs", [])]
    assert shown == [{"text/html": predict, "text/plain": "text"}, {"text/html": reveal, "text/plain": "text"}]


def test_every_figure_of_every_lesson_has_alt_text_in_both_languages_and_every_entry_a_figure():
    """What a new figure needs: its alt text in docs/site/figures/NN.json (the strict build fails without)."""
    course = site.Site(ROOT)
    problems = []
    for lang in site.OUTPUT:
        stage = site.Stage(lang, Path("unused"))
        for page in course.pages:
            if page.kind == "lesson":
                course._notebook(page, stage)
        problems += [problem for problem in stage.problems if "alt text" in problem]
    assert not problems, "\n".join(problems)
    for lesson, entries in course.figures.items():
        [path] = [page.file("en") for page in course.pages if page.kind == "lesson"
                  and Path(page.name).name[:2] == lesson]
        figures = {cell["id"]: sum("image/png" in output.get("data", {}) for output in cell.get("outputs", []))
                   for cell in course.notebook(path)["cells"] if cell["cell_type"] == "code"}
        for cell_id, alts in entries.items():
            assert figures.get(cell_id) == len(alts), f"{site.FIGURES}/{lesson}.json: cell {cell_id} of {path} " \
                                                      f"has {figures.get(cell_id, 0)} figure(s), not {len(alts)}"
            assert all(alt.get("en", "").strip() and alt.get("es", "").strip() for alt in alts)


# -- the real site, built once for this module --------------------------------------------------------------------
def require_docs_extra() -> None:
    """Skip (fail under CI) without the docs extra, with how to install it."""
    missing = sorted({name.split(".")[0] for name in site.SPHINX_MODULES
                      if importlib.util.find_spec(name.split(".")[0]) is None})
    if missing:
        message = (f"the site test needs the docs extra ({', '.join(missing)} missing): "
                   f"`.venv/bin/pip install -e '.[docs]'` (make test installs it)")
        if os.environ.get("CI", "").lower() not in ("", "0", "false"):
            pytest.fail(message)
        pytest.skip(message)


@pytest.fixture(scope="module")
def built(tmp_path_factory) -> Path:
    """The real site, built strict by `python -m ddp_lessons site` into a scratch folder."""
    require_docs_extra()
    scratch = tmp_path_factory.mktemp("site")
    log = scratch / "build.log"
    with log.open("wb") as output:
        code = processes.run_with_deadline(
            [sys.executable, "-m", "ddp_lessons", "site", "--strict", "--out", str(scratch / "site"),
             "--work", str(scratch / "work")], BUILD_TIMEOUT_S, cwd=ROOT, stdout=output, stderr=subprocess.STDOUT,
            stdin=subprocess.DEVNULL)
    assert code == 0, f"the site build exited with {code}:\n{log.read_text()[-6000:]}"
    return scratch / "site"


@pytest.fixture(scope="module")
def served(built):
    """The site on 127.0.0.1 (a free port), from a thread of this process; yields its base URL."""
    handler = functools.partial(Quiet, directory=str(built))
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}/"
    finally:
        server.shutdown()
        server.server_close()


class Quiet(http.server.SimpleHTTPRequestHandler):
    def log_message(self, *args) -> None:  # no line per request in the test's output
        pass


class Page(HTMLParser):
    """What the crawl reads in one page: its title, links, ids, images and text."""

    def __init__(self):
        super().__init__()
        self.title, self.links, self.ids, self.images, self.text, self.external = "", [], set(), [], [], []
        self.description = ""
        self._in = []

    def handle_starttag(self, tag, attrs):
        attrs = dict(attrs)
        if "id" in attrs:
            self.ids.add(attrs["id"])
        for name in ("href", "src"):
            if attrs.get(name) and tag in ("a", "link", "img", "script"):
                self.links.append(attrs[name])
                if tag != "a" and re.match(r"(https?:)?//", attrs[name]):
                    self.external.append(attrs[name])
        if tag == "img":
            self.images.append(attrs)
        if tag == "meta" and attrs.get("name") == "description":
            self.description = attrs.get("content", "")
        self._in.append(tag)

    def handle_endtag(self, tag):
        if tag in self._in:
            del self._in[len(self._in) - 1 - self._in[::-1].index(tag):]

    def handle_data(self, data):
        if self._in and self._in[-1] == "title":
            self.title += data
        elif not {"script", "style"} & set(self._in):
            self.text.append(data)


@pytest.fixture(scope="module")
def crawled(built) -> dict[str, Page]:
    """Every page of the site, parsed: {path relative to the site: Page}."""
    pages = {}
    for path in sorted(built.rglob("*.html")):
        page = Page()
        page.feed(path.read_text(encoding="utf-8"))
        pages[path.relative_to(built).as_posix()] = page
    return pages


@pytest.mark.slow
@pytest.mark.browser
def test_every_lesson_exercise_and_guide_is_a_titled_described_page_of_both_sites(built, crawled):
    for lang, prefix in site.OUTPUT.items():
        for page in site.pages(ROOT):
            path = (f"{prefix}/" if prefix else "") + page.name + ".html"
            assert path in crawled, f"no page {path}"
    untitled = [path for path, page in crawled.items() if not page.title.strip()]
    assert not untitled, f"pages without a title: {untitled}"
    undescribed = [path for path, page in crawled.items() if "lessons/" in path and len(page.description) < 60]
    assert not undescribed, f"lessons without a description for search engines: {undescribed}"
    assert crawled["es/lessons/05_distributed_sampler.html"].title.startswith("Lección 5")
    assert "solutions" not in {part for path in built.rglob("*") for part in path.relative_to(built).parts}


@pytest.mark.slow
@pytest.mark.browser
def test_every_link_of_every_page_leads_to_a_page_or_file_of_the_site(built, crawled, served):
    """All links of all pages, from the files: each target the site holds answers 200 from the server, each
    anchor is an id of its page; nothing is loaded from elsewhere (only links to other sites leave it)."""
    targets, anchors = {}, []
    for path, page in crawled.items():
        for link in page.links:
            parts = urllib.parse.urlsplit(link)
            if parts.scheme or parts.netloc:
                assert parts.scheme in ("http", "https", "mailto"), f"{path}: {link}"
                continue  # another site's page
            target = urllib.parse.urljoin(path, parts.path) if parts.path else path
            targets.setdefault(target, path)
            if parts.fragment and target.endswith(".html"):
                anchors.append((path, link, target, urllib.parse.unquote(parts.fragment)))
    missing = []
    for target, source in sorted(targets.items()):
        try:
            with urllib.request.urlopen(served + urllib.parse.quote(target), timeout=30) as answer:
                assert answer.status == 200
        except urllib.error.HTTPError as error:
            missing.append(f"{source} -> {target}: {error.code}")
    assert not missing, "links to nothing:\n" + "\n".join(missing)
    broken = [f"{source}: {link}" for source, link, target, fragment in anchors
              if fragment not in crawled[os.path.normpath(target)].ids]
    assert not broken, "links to an anchor its page does not have:\n" + "\n".join(broken)
    external = [(path, link) for path, page in crawled.items() for link in page.external]
    assert not external, f"pages that load files from other sites: {external[:5]}"


@pytest.mark.slow
@pytest.mark.browser
def test_every_figure_has_alt_text_in_its_pages_language(crawled):
    alts = {lang: {} for lang in site.OUTPUT}
    course = site.Site(ROOT)
    for lesson, entries in course.figures.items():
        for cell_id, figures in entries.items():
            for alt in figures:
                for lang in site.OUTPUT:
                    alts[lang][alt[lang]] = lesson
    for path, page in crawled.items():
        lang = "es" if path.startswith("es/") else "en"
        for image in page.images:
            assert (image.get("alt") or "").strip(), f"{path}: an image without alt text: {image.get('src')}"
            if path.split("/")[-2:-1] == ["lessons"] and "_images/" in image.get("src", ""):
                assert image["alt"] in alts[lang], f"{path}: {image['alt']!r} is not a {lang} alt text"


@pytest.mark.slow
@pytest.mark.browser
def test_no_solution_is_published(crawled):
    """The lines a solution adds to its exercise (its `### BEGIN SOLUTION` regions) are on no exercise page
    (a lesson may well show such a line: it is what the lesson taught)."""
    regions = re.compile(r"### BEGIN SOLUTION\n(.*?)### END SOLUTION|<!-- BEGIN SOLUTION -->(.*?)<!-- END SOLUTION -->",
                         re.DOTALL)
    leaked = []
    for solution in sorted((ROOT / "solutions").glob(NOTEBOOK_PATTERN)):
        exercise = (ROOT / "exercises" / solution.name).read_text(encoding="utf-8")
        pages = [crawled[f"{prefix}exercises/{solution.stem}.html"] for prefix in ("", "es/")]
        text = re.sub(r"\s+", " ", " ".join("".join(page.text) for page in pages))
        for cell in json.loads(solution.read_text(encoding="utf-8"))["cells"]:
            for found in regions.finditer("".join(cell["source"])):
                for line in (found.group(1) or found.group(2)).splitlines():
                    line = line.strip()
                    if len(line) >= 30 and json.dumps(line)[1:-1] not in exercise and \
                            re.sub(r"\s+", " ", html.unescape(line)) in text:
                        leaked.append(f"{solution.name}: {line}")
    assert not leaked, "solution lines on the site:\n" + "\n".join(leaked[:10])


@pytest.mark.slow
@pytest.mark.browser
def test_a_reader_goes_through_the_site_in_chromium(chromium, served):
    """Landing page, a lesson, its Spanish twin and back through the switch, "Next", a folded quiz answer
    and a prediction's folded measured value opened by a click, the search; no image broken and no request
    leaves 127.0.0.1."""
    from playwright.sync_api import expect, sync_playwright

    from browser import CHROMIUM_FLAGS

    left = []

    def local_only(route):
        if urllib.parse.urlsplit(route.request.url).hostname == "127.0.0.1":
            route.continue_()
        else:
            left.append(route.request.url)
            route.abort()

    def no_broken_images(page) -> None:
        page.wait_for_load_state("load")
        broken = page.evaluate("[...document.images].filter(i => !i.complete || i.naturalWidth === 0).map(i => i.src)")
        assert not broken, f"{page.url}: broken images {broken}"

    SCREENSHOTS.mkdir(exist_ok=True)
    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=chromium, args=CHROMIUM_FLAGS, headless=True)
        page = browser.new_page(viewport={"width": 1200, "height": 900})
        page.set_default_timeout(60_000)
        page.route("**/*", local_only)
        try:
            page.goto(served)
            expect(page.locator("h1")).to_contain_text("PyTorch DDP")
            assert "DDP course" in page.title()
            expect(page.get_by_role("link", name=re.compile(r"^Lesson 5 — DistributedSampler")).first).to_be_visible()
            no_broken_images(page)

            page.get_by_role("link", name=re.compile(r"^Lesson 5 — DistributedSampler")).first.click()
            page.wait_for_url("**/lessons/05_distributed_sampler.html")
            no_broken_images(page)
            quiz = page.locator(".cell_output details").first
            answer = quiz.locator("p").first
            expect(answer).to_be_hidden()
            quiz.locator("summary").click()
            expect(answer).to_be_visible()
            assert answer.inner_text().strip()
            page.screenshot(path=SCREENSHOTS / "site_lesson_answer.png")

            page.locator(".ddp-lang-switch a").click()
            page.wait_for_url("**/es/lessons/05_distributed_sampler.html")
            expect(page.locator("h1")).to_contain_text("Lección 5")
            assert page.locator("html").get_attribute("lang") == "es"
            no_broken_images(page)
            expect(page.locator("a.next-page")).to_contain_text("Siguiente")  # the theme's words too
            alts = page.eval_on_selector_all(".cell_output img", "images => images.map(i => i.alt)")
            assert alts and all(alt.strip() for alt in alts)
            page.screenshot(path=SCREENSHOTS / "site_lesson_es.png")
            page.locator(".ddp-lang-switch a").click()
            page.wait_for_url("**/lessons/05_distributed_sampler.html")
            expect(page.locator("h1")).to_contain_text("Lesson 5")

            page.locator("a.next-page").click()
            page.wait_for_url("**/lessons/06_gradient_sync.html")
            expect(page.locator("h1")).to_contain_text("Lesson 6")
            measured = page.locator(".ddp-reveal details").first  # a numeric prediction's measured value
            expect(measured.locator("p").first).to_be_hidden()
            measured.locator("summary").click()
            expect(measured.locator("p").first).to_be_visible()

            page.goto(served + "search.html?q=set_epoch")
            results = page.locator("#search-results li a")
            expect(results.first).to_be_visible()
            assert any("05_distributed_sampler" in (link or "") for link in
                       results.evaluate_all("links => links.map(a => a.getAttribute('href'))"))
        except Exception:
            page.screenshot(path=SCREENSHOTS / "site_failure.png")
            raise
        finally:
            browser.close()
    assert not left, f"the site asked for files from elsewhere: {left[:5]}"
