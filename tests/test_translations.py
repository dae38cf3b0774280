"""The Spanish edition: generated from the English, never drifting from it, complete where it exists.

Every test runs over the notebooks that have a catalog in i18n/es/, and every English lesson and
exercise must have one (`translations.REQUIRE_EVERY_NOTEBOOK`): a notebook added without its Spanish
fails `test_every_english_notebook_has_its_spanish_edition` and `--check`.
"""
import ast
import json
import os
import re
import string
import subprocess
import sys
from pathlib import Path

import nbformat
import nbformat.v4 as v4
import pytest

import ddp_lessons
from ddp_lessons import checks, i18n, quiz
from ddp_lessons.grading import feedback
from ddp_lessons.tooling import catalogs, cli, code_strings, translations
from ddp_lessons.tooling.course import machine_paths
from ddp_lessons.i18n.labels import LABELS
from ddp_lessons.i18n.messages_es import SPANISH
from helpers import ROOT

DONE = translations.translated(ROOT)
LESSONS = [edition for edition in DONE if edition.lesson]
EXERCISES = [edition for edition in DONE if edition.folder == "exercises"]
GLOSSARY = ROOT / "i18n" / "es" / "GLOSSARY.md"


def ids(editions):
    return [edition.name(edition.source) for edition in editions]


@pytest.fixture(scope="module")
def generated():
    """What `make translations` writes for every translated notebook, computed once."""
    return translations.expected(ROOT)


# --- drift: the generated notebooks are what the English and the catalogs make -----------------------

@pytest.mark.parametrize("edition", DONE, ids=ids(DONE))
def test_catalog_translates_every_english_markdown_cell_as_it_reads_today(edition):
    problems = translations.catalog_problems(edition)
    assert not problems, "\n".join(problems + ["(docs/AUTHORING.md, Translations: --update, translate, regenerate)"])


@pytest.mark.parametrize("edition", DONE, ids=ids(DONE))
def test_generated_notebook_is_what_the_generator_writes(edition, generated):
    assert edition.target.exists(), f"{edition.name(edition.target)} is missing: run `make translations`"
    assert edition.target.read_text(encoding="utf-8") == generated[edition.target], \
        f"{edition.name(edition.target)} differs from its English and catalog: run `make translations`"


@pytest.mark.parametrize("edition", DONE, ids=ids(DONE))
def test_code_cells_run_the_english_program_token_for_token(edition):
    """Strings and comments set aside (only those the rule lets a translation change), a Spanish code
    cell is its English cell: same tokens, same lines, same magics; check and quiz cells unchanged."""
    english = nbformat.read(edition.source, as_version=4)
    spanish = nbformat.read(edition.target, as_version=4)
    assert [(c.id, c.cell_type) for c in spanish.cells] == [(c.id, c.cell_type) for c in english.cells]
    context = code_strings.Context.of(translations.code_sources(english))
    for mine, theirs in zip(spanish.cells, english.cells):
        if mine.cell_type != "code":
            continue
        if translations.translatable(theirs):
            assert not code_strings.differences(theirs.source, mine.source, context), \
                (mine.id, code_strings.differences(theirs.source, mine.source, context))
        else:
            assert mine.source == theirs.source, mine.id
        without_timing = [{k: v for k, v in cell.metadata.items() if k != "execution"} for cell in (mine, theirs)]
        assert without_timing[0] == without_timing[1], mine.id
    assert spanish.metadata["ddp_lessons"]["language"] == "es"
    assert i18n.notebook_language(spanish) == "es" and i18n.notebook_language(english) == "en"


@pytest.mark.parametrize("edition", DONE, ids=ids(DONE))
def test_stored_outputs_come_from_a_spanish_run_of_its_current_code_or_are_the_english_ones(edition):
    """A lesson whose code is translated shows what its Spanish run printed, and that run ran the code
    the notebook holds today; until its code is translated, the English outputs (quiz cells apart)."""
    english = nbformat.read(edition.source, as_version=4)
    spanish = nbformat.read(edition.target, as_version=4)
    run = translations.run_record(spanish)
    if run is not None:
        assert run["source"] == translations.code_hash(spanish), \
            f"{edition.name(edition.target)}: its outputs are from older code: {translations.run_command(edition)}"
        return
    assert not (edition.lesson and translations.translates_code(translations.read_catalog(edition)[1])), \
        f"{edition.name(edition.target)}: its code is translated, its outputs are not: {translations.run_command(edition)}"
    for mine, theirs in zip(spanish.cells, english.cells):
        if mine.cell_type == "code" and translations.quiz_outputs(theirs, ROOT, "es") is None:  # quizzes speak Spanish
            assert (mine.outputs, mine.execution_count) == (theirs.outputs, theirs.execution_count), mine.id


def shown_text(notebook) -> str:
    """What a notebook's code cells printed and displayed (streams and text/plain), one string."""
    return "\n".join("".join(output.get("text", "")) + "".join(output.get("data", {}).get("text/plain", ""))
                     for cell in notebook.cells if cell.cell_type == "code" for output in cell.get("outputs", []))


SPOKEN_LABELS = sorted(value for value in LABELS if " " in value and SPANISH[value] != value)
"""The labels of several words that Spanish says differently (one word, "new", "same", also names code)."""


@pytest.mark.parametrize("edition", LESSONS, ids=ids(LESSONS))
def test_a_spanish_run_shows_the_lesson_s_labels_in_spanish(edition):
    """A label the English run printed is not in the Spanish run's outputs (which verdict a run prints
    depends on the run, so the Spanish words are not required)."""
    spanish = nbformat.read(edition.target, as_version=4)
    if translations.run_record(spanish) is None:
        pytest.skip("no Spanish run stored yet: its outputs are the English ones")
    english_shown = shown_text(nbformat.read(edition.source, as_version=4))
    spanish_shown = shown_text(spanish)
    for value in SPOKEN_LABELS:
        if value in english_shown:
            assert value not in spanish_shown, f"{edition.name(edition.target)} shows {value!r} in English"


@pytest.mark.parametrize("folder", ["notebooks", "notebooks/es"])
def test_stored_outputs_show_no_machine_path(folder):
    shown = {path.name: found for path in sorted((ROOT / folder).glob("[0-9][0-9]_*.ipynb"))
             if (found := machine_paths(nbformat.read(path, as_version=4)))}
    assert not shown, f"re-store these from a clean checkout (course --store): {shown}"


@pytest.mark.parametrize("edition", LESSONS, ids=ids(LESSONS))
def test_quick_check_cells_show_their_question_in_spanish(edition):
    cells = [c for c in nbformat.read(edition.target, as_version=4).cells
             if c.cell_type == "code" and translations.QUIZ_CELL.match(c.source.strip())]
    for cell in cells:
        lesson, n = translations.QUIZ_CELL.match(cell.source.strip()).groups()
        shown = quiz.form(quiz.entry(lesson, int(n), lang="es"), lang="es")
        (result,) = cell.outputs
        assert result.data == {"text/plain": shown.text(), "text/html": shown.html()}
        assert ("Comprobación rápida." if isinstance(shown, quiz.Quiz) else "Prediga.") in result.data["text/html"]
    for output in (o for c in nbformat.read(edition.target, as_version=4).cells for o in c.get("outputs", [])):
        what = translations.revealed(output)
        if what:  # a numeric prediction's reveal: the measured value, in Spanish, no prediction in the store
            shown = quiz.revealed(quiz.entry(what["lesson"], what["question"], "es"), what["measured"], None, "es")
            assert output.data == {"text/plain": shown.text(), "text/html": shown.html()}
            assert "Comprobación de la predicción." in output.data["text/html"]
    english = nbformat.read(edition.source, as_version=4)
    if cells and "widgets" in english.metadata:  # the English widgets' saved state went with their outputs
        assert "Quick check." not in json.dumps(nbformat.read(edition.target, as_version=4).metadata)


@pytest.mark.parametrize("edition", LESSONS, ids=ids(LESSONS))
def test_every_quick_check_question_of_a_translated_lesson_is_translated(edition):
    problems = translations.quiz_problems(ROOT, edition.lesson)
    assert not problems, "\n".join(problems)
    english, spanish = quiz._questions().get(edition.lesson, []), quiz._questions("es").get(edition.lesson, [])
    for n, (en, es) in enumerate(zip(english, spanish), start=1):
        if quiz.is_numeric(en):
            assert es["question"] != en["question"] and es["explanation"] != en["explanation"], (edition.lesson, n)
            continue
        assert len(es["options"]) == len(en["options"]) == len(es["feedback"]), (edition.lesson, n)
        assert es["question"] != en["question"] and es["feedback"] != en["feedback"], (edition.lesson, n)
        # options that are only code or numbers (e.g. "[3, 7, 11]") read the same in both languages
        assert es["options"] != en["options"] or not english_words(" ".join(en["options"])), (edition.lesson, n)


def test_the_check_lists_nothing_out_of_date_in_the_translated_part():
    assert translations.check(ROOT).problems == []


def test_every_english_notebook_has_its_spanish_edition():
    assert translations.REQUIRE_EVERY_NOTEBOOK, "the whole course is translated: keep REQUIRE_EVERY_NOTEBOOK True"
    missing = translations.check(ROOT).untranslated
    assert not missing, f"no Spanish edition (run `python -m ddp_lessons make-translations --update PATH`): {missing}"


# --- the docs: translated by hand, each dated by the hash of the English it translates ---------------

def test_the_translated_docs_are_as_new_as_their_english():
    problems = translations.doc_problems(ROOT)
    assert not problems, "\n".join(problems)


def test_a_doc_whose_english_changed_since_its_translation_fails(tmp_path):
    (tmp_path / "docs" / "es").mkdir(parents=True)
    english, spanish = tmp_path / "docs" / "INSTRUCTORS.md", tmp_path / "docs" / "es" / "INSTRUCTORS.md"
    english.write_text("# For instructors\n", encoding="utf-8")
    docs = ("docs/INSTRUCTORS.md",)
    assert translations.doc_problems(tmp_path, docs=docs) == ["docs/es/INSTRUCTORS.md: missing (translate "
                                                              "docs/INSTRUCTORS.md)"]
    spanish.write_text("# Para instructores\n", encoding="utf-8")
    assert translations.doc_problems(tmp_path, docs=docs)[0].startswith(
        "docs/es/INSTRUCTORS.md: its first line must be `<!-- translates docs/INSTRUCTORS.md en ")
    spanish.write_text(translations.doc_marker(tmp_path, "docs/INSTRUCTORS.md") + "\n# Para instructores\n",
                       encoding="utf-8")
    assert translations.doc_problems(tmp_path, docs=docs) == []
    english.write_text("# For instructors and graders\n", encoding="utf-8")
    [problem] = translations.doc_problems(tmp_path, docs=docs)
    assert problem.startswith("docs/INSTRUCTORS.md changed since docs/es/INSTRUCTORS.md was translated")
    assert problem.endswith(f"`{translations.doc_marker(tmp_path, 'docs/INSTRUCTORS.md')}`")
    (tmp_path / "docs" / "es" / "NOTES.md").write_text("# Notas\n", encoding="utf-8")
    assert translations.doc_problems(tmp_path, docs=docs)[-1].startswith("docs/es/NOTES.md: not a translation")


# --- messages: one table, complete ------------------------------------------------------------------

def tr_templates() -> dict[str, str]:
    """Every `tr("...")` template in the package: {template: file:line}."""
    found = {}
    for path in sorted(Path(ddp_lessons.__file__).parent.rglob("*.py")):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Call) and getattr(node.func, "id", getattr(node.func, "attr", None)) == "tr":
                where = f"{path.relative_to(ROOT)}:{node.lineno}"
                assert node.args and isinstance(node.args[0], ast.Constant), f"{where}: tr needs a literal template"
                found[node.args[0].value] = where
    for value in LABELS:  # i18n.label(value): a value the code keeps and compares, shown in the table's words
        found.setdefault(value, f"ddp_lessons/i18n/labels.py: {value!r}")
    for reason in feedback.REASONS:  # a reason the grader stores in English, said in a student's language
        found.setdefault(reason, f"ddp_lessons/grading/feedback.py: {reason!r}")
    return found


def test_a_label_shows_the_value_in_the_notebook_s_language_and_refuses_an_unlisted_one():
    assert i18n.label("without barrier", lang="en") == "without barrier"
    assert i18n.label("without barrier", lang="es") == "sin barrera"
    assert i18n.label("weak scaling ahead", lang="es") == SPANISH["weak scaling ahead"] != "weak scaling ahead"
    with pytest.raises(KeyError, match="labels.py"):
        i18n.label("a case nobody listed", lang="es")


def test_the_table_test_would_catch_a_label_without_its_spanish(monkeypatch):
    monkeypatch.setattr(sys.modules[__name__], "LABELS", LABELS | {"a new case"})
    with pytest.raises(AssertionError, match="a new case"):
        test_every_message_template_has_its_spanish_with_the_same_fields()


def fields(template: str) -> set[str]:
    return {f"{name}!{conv}:{spec}" for _, name, spec, conv in string.Formatter().parse(template) if name}


def test_every_message_template_has_its_spanish_with_the_same_fields():
    templates = tr_templates()
    missing = [f"{where}: {template!r}" for template, where in templates.items() if not SPANISH.get(template)]
    assert not missing, "add to ddp_lessons/i18n/messages_es.py:\n" + "\n".join(missing)
    unused = [template for template in SPANISH if template not in templates]
    assert not unused, f"entries whose English template is gone from the code: {unused}"
    for english, spanish in SPANISH.items():
        assert fields(spanish) == fields(english), (english, spanish)


def test_the_spanish_table_lists_each_english_template_once():
    """A dict literal keeps the last of two equal keys: a second entry would silently replace the first's Spanish."""
    source = Path(ddp_lessons.__file__).parent / "i18n" / "messages_es.py"
    table = next(node for node in ast.walk(ast.parse(source.read_text(encoding="utf-8"))) if isinstance(node, ast.Dict))
    lines = {}
    for key in table.keys:
        lines.setdefault(ast.literal_eval(key), []).append(key.lineno)
    twice = {english: where for english, where in lines.items() if len(where) > 1}
    assert not twice, f"templates listed more than once in messages_es.py (lines): {twice}"


def english_text_outside_tr(expression: ast.AST) -> list[int]:
    """Lines where `expression` holds words (a string literal or f-string) outside a `tr(...)` call."""
    if isinstance(expression, ast.Call) and getattr(expression.func, "id", None) == "tr":
        return []
    if isinstance(expression, ast.Constant) and isinstance(expression.value, str):
        return [expression.lineno] if re.search("[A-Za-z]{2}", expression.value) else []
    if isinstance(expression, ast.JoinedStr):
        return [expression.lineno]
    return [line for child in ast.iter_child_nodes(expression) for line in english_text_outside_tr(child)]


def untranslated_hints(tree: ast.AST) -> list[int]:
    """Lines of assert messages, AssertionErrors and ✓ lines (passed) written without `tr`."""
    lines = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Assert) and node.msg is not None:
            lines += english_text_outside_tr(node.msg)
        elif isinstance(node, ast.Call) and getattr(node.func, "id", None) in ("AssertionError", "passed"):
            lines += [line for arg in node.args for line in english_text_outside_tr(arg)]
    return lines


@pytest.mark.parametrize("edition", EXERCISES, ids=ids(EXERCISES))
def test_the_checks_of_a_translated_exercise_give_their_hints_through_tr(edition):
    problems = []
    for cell in nbformat.read(edition.source, as_version=4).cells:
        if not cell.metadata.get("ddp_lessons", {}).get("check"):
            continue
        problems += [f"check cell {cell.id}, line {line}" for line in untranslated_hints(ast.parse(cell.source))]
        for name in re.findall(r"checks\.(\w+)\(", cell.source):
            module = sys.modules[getattr(checks, name).__module__]
            problems += [f"{Path(module.__file__).relative_to(ROOT)}:{line}" for line in
                         untranslated_hints(ast.parse(Path(module.__file__).read_text(encoding="utf-8")))]
    assert not problems, "write as i18n.tr templates (with their Spanish): " + ", ".join(sorted(set(problems)))


def test_a_failing_check_hints_in_spanish_in_a_spanish_notebook(monkeypatch, fails_with):
    def wrong_env(node_rank, local_rank, nnodes, nproc_per_node):
        return {"RANK": local_rank, "LOCAL_RANK": local_rank, "WORLD_SIZE": nnodes * nproc_per_node,
                "LOCAL_WORLD_SIZE": nproc_per_node}

    monkeypatch.setenv(i18n.LANGUAGE_ENV, "es")
    with fails_with("RANK debería ser 4, pero vale 0. RANK numera los procesos de todo el trabajo"):
        checks.torchrun_env(wrong_env)
    monkeypatch.setenv(i18n.LANGUAGE_ENV, "en")
    with fails_with("RANK should be 4, got 0. RANK numbers the workers of the whole job"):
        checks.torchrun_env(wrong_env)


# --- which language a kernel speaks ------------------------------------------------------------------

def test_language_comes_from_the_env_then_the_opened_notebook_then_the_folder(monkeypatch, tmp_path):
    monkeypatch.delenv(i18n.LANGUAGE_ENV, raising=False)
    monkeypatch.delenv("JPY_SESSION_NAME", raising=False)
    (tmp_path / "es").mkdir()
    monkeypatch.chdir(tmp_path / "es")
    assert i18n.language() == "es"  # JupyterLab, nbval and nbclient start the kernel in notebooks/es/
    monkeypatch.chdir(tmp_path)
    assert i18n.language() == "en"
    copied = tmp_path / "my_copy.ipynb"
    nbformat.write(v4.new_notebook(metadata={"ddp_lessons": {"language": "es"}}), copied)
    monkeypatch.setenv("JPY_SESSION_NAME", str(copied))  # a Spanish notebook copied out of notebooks/es/
    assert i18n.language() == "es"
    monkeypatch.setenv(i18n.LANGUAGE_ENV, "en")  # the grader (or the learner) says so
    assert i18n.language() == "en"


def test_quiz_asks_in_spanish_inside_a_spanish_folder(monkeypatch, tmp_path):
    monkeypatch.delenv(i18n.LANGUAGE_ENV, raising=False)
    monkeypatch.delenv("JPY_SESSION_NAME", raising=False)
    (tmp_path / "es").mkdir()
    monkeypatch.chdir(tmp_path / "es")
    asked = quiz.ask("03", 1)
    assert asked.question == quiz._questions("es")["03"][0]["question"]
    wrong = (asked.answer + 1) % len(asked.options)
    assert asked.check(wrong).startswith("✗ No exactamente") and asked.check(asked.answer).startswith("✓ Correcto.")
    assert "Responda con quiz.check(letra)" in asked.text()
    assert quiz.ask("03", 1, lang="en").question == quiz._questions()["03"][0]["question"]


# --- the Spanish reads as Spanish ---------------------------------------------------------------------

ENGLISH_WORDS = set("""the and of with that this these those is are was were which when where what why how
your you from into each every their they its be been by for on at an or to than then there would should will
can does do has have not but all only also after before here it we our if so same other because while
without through between about just see shows learn lesson exercise next summary quick check step whole again
gradient gradients weights training machine machines process processes device devices data shard shards
""".split())
"""Common English words no Spanish sentence needs (none is a Spanish word: `use` or `no` would be), and
course words the glossary translates."""
KEPT = {"all-reduce", "all-gather", "ring all-reduce"}
"""Terms kept in English that contain one of those words (glossary)."""
CODE = re.compile(r"```.*?```|`[^`]*`|<!--.*?-->|<[^>]+>|\{[^}]*\}|\$[^$]+\$|\]\([^)]*\)|https?://\S+", re.S)
CODE_LIKE = re.compile(r"\S*[_()\[\]=/\\]\S*|\w+\.\w+\S*")
"""Code written without backticks (quiz options, hints): identifiers, calls, paths, dotted names."""
WORD = re.compile(r"[A-Za-zÁÉÍÓÚÜÑáéíóúüñ]+(?:[-'][A-Za-zÁÉÍÓÚÜÑáéíóúüñ]+)*")


def prose(text: str) -> str:
    """`text` without code, links, URLs, HTML and maths."""
    return CODE_LIKE.sub(" ", CODE.sub(" ", text))


def english_words(text: str) -> list[str]:
    """The common English words in `text` outside code, links, URLs, HTML and maths."""
    text = prose(text)
    for term in KEPT:
        text = re.sub(re.escape(term), " ", text, flags=re.I)
    return [word for word in WORD.findall(text) if word.lower() in ENGLISH_WORDS]


def spanish_texts() -> dict[str, str]:
    """Everything the Spanish edition says in prose: {where: text}."""
    texts = {}
    for edition in DONE:
        _, entries = translations.read_catalog(edition)
        texts.update({f"{edition.name(edition.catalog)} cell {cell}": entry.text for cell, entry in entries.items()
                      if isinstance(entry, catalogs.Entry)})
        texts.update({f"{edition.name(edition.catalog)} code cell {cell}, {pair.english[:30]}": pair.spanish
                      for cell, entry in entries.items() if isinstance(entry, catalogs.CodeEntry)
                      for pair in entry.pairs if pair.spanish != pair.english})  # what the code says in Spanish
    for lesson, entries in quiz._questions("es").items():
        for n, entry in enumerate(entries if not lesson.startswith("_") else [], start=1):
            texts[f"quizzes/es/{lesson}.json, question {n}"] = " ".join(
                [entry["question"], *entry.get("options", []), *entry.get("feedback", []), entry.get("unit", ""),
                 entry.get("explanation", "")])
    texts.update({f"messages_es {english[:40]!r}": spanish for english, spanish in SPANISH.items()})
    texts["README.es.md"] = (ROOT / "README.es.md").read_text(encoding="utf-8")
    texts.update({path.relative_to(ROOT).as_posix(): path.read_text(encoding="utf-8")
                  for path in sorted([*(ROOT / "docs" / "es").glob("*.md"), *(ROOT / "docs/site/es").glob("*.md")])})
    for path in sorted((ROOT / "docs/site/figures").glob("*.json")):  # the web edition's alt text
        for cell, figures in json.loads(path.read_text(encoding="utf-8")).items():
            texts.update({f"{path.relative_to(ROOT).as_posix()} {cell} figure {n}": figure["es"]
                          for n, figure in enumerate(figures, start=1)})
    return texts


def test_no_english_prose_is_left_in_the_spanish_edition():
    left = {where: words for where, text in spanish_texts().items() if (words := english_words(text))}
    assert not left, "English words outside code: " + json.dumps(left, ensure_ascii=False, indent=1)


def test_the_english_detector_finds_english_and_spares_code_and_kept_terms():
    assert english_words("Each rank runs the same step.") == ["Each", "the", "same", "step"]
    assert english_words("Cada rank ejecuta `for x in the_batch:` con all-reduce, ver [the docs](a/b.md)") == []
    assert english_words("Llame a sampler.set_epoch(epoch) en cada época") == []


def glossary() -> list[dict[str, str]]:
    """The rows of the glossary's table: English, Spanish, avoid (comma-separated), note."""
    rows = []
    for line in GLOSSARY.read_text(encoding="utf-8").splitlines():
        cells = [cell.strip() for cell in line.strip().strip("|").split("|")]
        if line.startswith("|") and len(cells) == 4 and not set(cells[0]) <= set("-: ") and cells[0] != "English":
            rows.append(dict(zip(("english", "spanish", "avoid", "note"), cells)))
    return rows


def test_the_glossary_fixes_the_course_terms():
    terms = {row["english"].strip("`*") for row in glossary()}
    assert {"rank", "world size", "backend", "all-reduce", "checkpoint", "process group", "shard"} <= terms
    spanish = {row["english"].strip("`*"): row["spanish"] for row in glossary()}
    assert "grupo de procesos" in spanish["process group"] and "fragmento" in spanish["shard"]


def test_the_spanish_avoids_the_words_the_glossary_rules_out():
    avoided = {word.strip().strip("*").lower(): row["english"] for row in glossary()
               for word in row["avoid"].split(",") if word.strip() and word.strip() != "—"}
    found = [f"{where}: {word!r} (glossary: {term})" for where, text in spanish_texts().items()
             for word, term in avoided.items()
             if re.search(rf"(?<![\w-]){re.escape(word)}(?![\w-])", prose(text).lower())]
    assert not found, "\n".join(found)


def test_the_lesson_1_glossary_box_uses_the_glossary_terms():
    edition = next(e for e in LESSONS if e.lesson == "01")
    box = next(entry.text for entry in translations.read_catalog(edition)[1].values() if entry.text.startswith("> "))
    for row in glossary():
        if "lección 1" in row["note"]:
            assert row["spanish"].strip("`*").split(" (")[0].lower() in box.lower(), row


# --- the Spanish notebooks run from their own folder ----------------------------------------------------

LINK_TARGET = re.compile(r'(?:\]\(|<img src="|<a href=")([^)"\s#]+)')


@pytest.mark.parametrize("edition", DONE, ids=ids(DONE))
def test_links_of_a_generated_notebook_open_from_its_folder(edition):
    notebook = nbformat.read(edition.target, as_version=4)
    for cell in (c for c in notebook.cells if c.cell_type == "markdown"):
        for target in LINK_TARGET.findall(cell.source):
            if "://" not in target and not target.startswith("mailto:"):
                assert (edition.target.parent / target).exists(), f"{edition.name(edition.target)}: {target}"


def test_the_spanish_readme_is_linked_from_the_english_one_and_its_links_open():
    assert "[Español](README.es.md)" in (ROOT / "README.md").read_text(encoding="utf-8").split("\n## ")[0]
    for target in LINK_TARGET.findall((ROOT / "README.es.md").read_text(encoding="utf-8")):
        assert "://" in target or (ROOT / target).exists(), target


PATH_LITERAL = re.compile(r"""["']([\w.-]+(?:/[\w.{}-]+)+/?|[\w.-]+\.ipynb)["']""")
COURSE_FOLDERS = {path.name for path in ROOT.iterdir() if path.is_dir()} - {"scripts", "runs"}


def folder_dependent_paths(source: str, spanish_notebooks: set[str]) -> list[str]:
    """Relative paths in a code cell that name something outside the notebook's own scripts/ and runs/:
    a parent folder, a folder of the course (examples/, solutions/...), a sibling notebook without a
    Spanish edition, or a %%writefile outside scripts/."""
    found = [path for path in PATH_LITERAL.findall(source)
             if path.startswith("../") or "/../" in path or path.split("/")[0] in COURSE_FOLDERS
             or (path.endswith(".ipynb") and path not in spanish_notebooks)]
    return found + [path for path in re.findall(r"^%%writefile (\S+)", source, re.M) if not path.startswith("scripts/")]


@pytest.mark.parametrize("edition", DONE, ids=ids(DONE))
def test_code_names_only_paths_that_exist_from_the_spanish_folder(edition):
    """The kernel of notebooks/es/NN.ipynb runs in notebooks/es/: the scripts/ and runs/ it writes are
    its own, and a sibling notebook it reads must have a Spanish edition next to it."""
    spanish = {e.target.name for e in DONE if e.folder == edition.folder}
    for cell in (c for c in nbformat.read(edition.source, as_version=4).cells if c.cell_type == "code"):
        assert not folder_dependent_paths(cell.source, spanish), (cell.id, folder_dependent_paths(cell.source, spanish))


def test_the_path_finder_spots_what_breaks_in_a_language_folder():
    cell = ('Path("scripts/a.py"); open("../examples/train.py"); "examples/x.sbatch"; "runs/x"; "cnn/weak"\n'
            'written_script("07_torchrun.ipynb", "scripts/07.py"); "03_devices.ipynb"')
    assert folder_dependent_paths(cell, {"03_devices.ipynb"}) == ["../examples/train.py", "examples/x.sbatch",
                                                                  "07_torchrun.ipynb"]
    assert folder_dependent_paths("%%writefile ../x.py\nprint(1)", set()) == ["../x.py"]


def test_relink_takes_a_link_to_the_spanish_edition_when_there_is_one(tmp_path):
    edition = translations.Edition(tmp_path, tmp_path / "notebooks" / "01_a.ipynb")
    spanish = {tmp_path / "notebooks" / "02_b.ipynb", tmp_path / "exercises" / "01_a.ipynb"}
    text = ("[next](02_b.ipynb) [later](03_c.ipynb#top) [ex](../exercises/01_a.ipynb) "
            "[take home](../examples/train.py) [web](https://pytorch.org/x) [here](#section)")
    assert translations.relink(text, edition, spanish) == (
        "[next](02_b.ipynb) [later](../03_c.ipynb#top) [ex](../../exercises/es/01_a.ipynb) "
        "[take home](../../examples/train.py) [web](https://pytorch.org/x) [here](#section)")
    # a link that shows its path names the Spanish file it opens; one to a file with no Spanish keeps its text
    named = "[exercises/01_a.ipynb](../exercises/01_a.ipynb) [`notebooks/03_c.ipynb`](03_c.ipynb) [01_a](../exercises/01_a.ipynb)"
    assert translations.relink(named, edition, spanish) == (
        "[exercises/es/01_a.ipynb](../../exercises/es/01_a.ipynb) [`notebooks/03_c.ipynb`](../03_c.ipynb) "
        "[01_a](../../exercises/es/01_a.ipynb)")


# --- the catalog format and the commands ---------------------------------------------------------------

def test_catalog_round_trips_and_updates_flag_new_and_changed_cells():
    english = [("a1", "# Title"), ("b2", "Some text.")]
    text = catalogs.render("<!-- header -->", [catalogs.Entry("a1", catalogs.english_hash("# Title"), "# Título"),
                                               catalogs.Entry("b2", catalogs.english_hash("Old text."), "Texto.")])
    header, entries = catalogs.parse(text)
    assert header == "<!-- header -->" and [e.text for e in entries] == ["# Título", "Texto."]
    english.append(("c3", "New cell."))
    updated, dropped = catalogs.update(entries, english)
    assert [(e.cell, e.flag) for e in updated] == [("a1", None), ("b2", "stale"), ("c3", "todo")] and dropped == []
    assert updated[1].text == "Texto." and updated[1].reference == "Some text." and updated[2].text == "New cell."
    again = catalogs.parse(catalogs.render(header, updated))[1]
    assert [(e.cell, e.flag, e.text, e.reference) for e in again] == \
        [(e.cell, e.flag, e.text, e.reference) for e in updated]
    assert catalogs.update(again, english[:1])[1] == ["b2", "c3"]


def test_a_malformed_marker_or_a_cell_translated_twice_is_an_error():
    with pytest.raises(catalogs.CatalogError, match="line 1: not a marker line"):
        catalogs.parse("<!-- cell a1 en 123 -->\nx")
    twice = "<!-- cell a1 en 0123456789ab -->\nx\n<!-- cell a1 en 0123456789ab -->\ny"
    with pytest.raises(catalogs.CatalogError, match="cell a1 is translated twice"):
        catalogs.parse(twice)


def test_code_sections_round_trip_and_update_flags_new_changed_and_gone_tokens():
    text = ('<!-- code c1 -->\nen: "weight gradient:"\nes: "gradiente del peso:"\n\n'
            'en: """Doc,\n    two lines."""\nes todo: """Doc,\n    two lines."""\n\n'
            'en: # the bug\nwas: # a bug\nes stale: # un error\n')
    header, [entry] = catalogs.parse(text)
    assert isinstance(entry, catalogs.CodeEntry) and catalogs.render(header, [entry]) == text
    assert [(p.english, p.spanish, p.flag, p.was) for p in entry.pairs] == [
        ('"weight gradient:"', '"gradiente del peso:"', None, ""),
        ('"""Doc,\n    two lines."""', '"""Doc,\n    two lines."""', "todo", ""),
        ("# the bug", "# un error", "stale", "# a bug")]
    # today: the first string changed, the docstring is gone, the comment stays, two tokens are new
    updated = catalogs.update_pairs(entry.pairs, ['"weight gradients:"', "# the bug", '"loss:"', '"rank"'],
                                    memory={'"loss:"': '"pérdida:"'})
    assert [(p.english, p.spanish, p.flag, p.was) for p in updated] == [
        ('"weight gradients:"', '"gradiente del peso:"', "stale", '"weight gradient:"'),
        ("# the bug", "# un error", "stale", "# a bug"),
        ('"loss:"', '"pérdida:"', None, ""),   # the same English translated elsewhere
        ('"rank"', '"rank"', "todo", "")]


@pytest.mark.parametrize("section, error", [
    ('en: "a"\n', "has no `es: ` line"),
    ('es: "a"\n', "expected `en: `"),
    ('en: "a" # note\nes: "b"\n', "text after the token"),
    ('en: "a\nes: "b"\n', "never closed"),
    ('en: "a"\nes: "b"\n\nen: "a"\nes: "c"\n', "translated twice in one cell"),
    ('en: "a"\n  es: "b"\n', "starts at the margin"),
])
def test_a_malformed_code_section_is_an_error_with_its_line(section, error):
    with pytest.raises(catalogs.CatalogError, match=error):
        catalogs.parse("<!-- code c1 -->\n" + section, "cat.md")


def test_the_catalog_header_is_replaced_only_where_code_is_added():
    """A catalog with code sections says so in its header; one without keeps the markdown-only header."""
    headers = {}
    for catalog in sorted((ROOT / "i18n/es").glob("*/*.md")):
        kind = catalog.parent.name  # notebooks or exercises
        names = {"source": f"{kind}/{catalog.stem}.ipynb", "target": f"{kind}/es/{catalog.stem}.ipynb"}
        text = catalog.read_text(encoding="utf-8")
        header = translations.CATALOG_HEADER if "\n<!-- code " in text else translations.MARKDOWN_ONLY_HEADER
        headers[catalog.name] = header.format(**names) in text
    assert headers and all(headers.values()), [name for name, ok in headers.items() if not ok]


def tiny_course(root: Path) -> Path:
    """A course with one English lesson: two markdown cells around a code cell with an output."""
    (root / "notebooks").mkdir(parents=True)
    code = v4.new_code_cell("print(1)", execution_count=1, outputs=[v4.new_output("stream", text="1\n")])
    notebook = v4.new_notebook(cells=[v4.new_markdown_cell("# Lesson 9\nRead [more](10_next.ipynb)."), code,
                                      v4.new_markdown_cell("**Summary.** Done.")])
    path = root / "notebooks" / "09_tiny.ipynb"
    nbformat.write(notebook, path)
    return path


def tiny_course_with_catalog(root: Path) -> tuple[Path, list[str], Path]:
    """`tiny_course` with its catalog written by --update and every cell marked done (its text kept):
    (the lesson, the make-translations arguments, the catalog)."""
    source = tiny_course(root)
    base = ["make-translations", "--root", str(root)]
    cli.main(base + ["--update", str(source)])
    catalog = root / "i18n" / "es" / "notebooks" / "09_tiny.md"
    catalog.write_text(catalog.read_text().replace(" todo -->", " -->"))
    return source, base, catalog


@pytest.fixture
def being_translated(monkeypatch):
    """A course whose code is still being translated (`REQUIRE_CODE_TRANSLATED` False): a tiny lesson without
    code sections is pending, not a problem. The course itself is past that stage."""
    monkeypatch.setattr(translations, "REQUIRE_CODE_TRANSLATED", False)


def test_update_writes_a_skeleton_then_check_lists_todo_cells_then_translated_it_generates(tmp_path, capsys,
                                                                                          being_translated):
    source = tiny_course(tmp_path)
    base = ["make-translations", "--root", str(tmp_path)]
    assert cli.main(base + ["--update", str(source)]) == 0
    catalog = tmp_path / "i18n" / "es" / "notebooks" / "09_tiny.md"
    assert catalog.read_text().count(" todo -->") == 2 and "# Lesson 9" in catalog.read_text()
    assert cli.main(base + ["--check"]) == 1
    assert "2 untranslated cell(s) (flagged todo)" in capsys.readouterr().err
    catalog.write_text(catalog.read_text().replace(" todo -->", " -->").replace("# Lesson 9", "# Lección 9")
                       .replace("Read", "Lea").replace("**Summary.** Done.", "**Resumen.** Hecho."))
    assert cli.main(base) == 0 and cli.main(base + ["--check"]) == 0
    spanish = nbformat.read(tmp_path / "notebooks" / "es" / "09_tiny.ipynb", as_version=4)
    assert spanish.cells[0].source == "# Lección 9\nLea [more](../10_next.ipynb)."
    assert spanish.cells[1] == nbformat.read(source, as_version=4).cells[1]


def test_a_new_english_notebook_without_its_spanish_fails_the_check(tmp_path, capsys, being_translated):
    _, base, _ = tiny_course_with_catalog(tmp_path)
    assert cli.main(base) == 0 and cli.main(base + ["--check"]) == 0
    nbformat.write(v4.new_notebook(cells=[v4.new_markdown_cell("# Lesson 10")]), tmp_path / "notebooks" / "10_new.ipynb")
    capsys.readouterr()
    assert cli.main(base + ["--check"]) == 1
    assert "notebooks/10_new.ipynb: not translated (no catalog; run --update notebooks/10_new.ipynb)" in \
        capsys.readouterr().err


def test_an_english_edit_makes_the_cell_stale_until_its_spanish_is_updated(tmp_path, capsys, being_translated):
    source, base, catalog = tiny_course_with_catalog(tmp_path)
    cli.main(base)
    english = nbformat.read(source, as_version=4)
    english.cells[2].source = "**Summary.** Done, and more."
    nbformat.write(english, source)
    assert cli.main(base + ["--check"]) == 1
    assert f"1 stale cell(s) (the English changed since): {english.cells[2].id}" in capsys.readouterr().err
    assert cli.main(base + ["--update"]) == 0  # every catalog: the stale cell gets the new English to compare
    assert "<!-- English now:\n**Summary.** Done, and more.\n-->" in catalog.read_text()
    assert cli.main(base + ["--check"]) == 1
    catalog.write_text(catalog.read_text().replace(" stale -->", " -->"))
    assert cli.main(base) == 0 and cli.main(base + ["--check"]) == 0


TINY_CODE = ('rows = {"rank": 0, "label": "first try"}\n'
        'print(f"rank {rows[\'rank\']}: hello, world")  # greet every rank\n'
        'plot(rows, title="what each rank saw")')


def tiny_lesson_with_code(root: Path) -> tuple[Path, list[str], Path]:
    """A lesson whose code cell prints, comments and titles a figure, its catalog done for the markdown."""
    source, base, catalog = tiny_course_with_catalog(root)
    english = nbformat.read(source, as_version=4)
    english.cells[1] = v4.new_code_cell(TINY_CODE, outputs=[v4.new_output("stream", text="rank 0: hello, world\n")])
    nbformat.write(english, source)
    return source, base, catalog


def test_code_strings_go_from_a_skeleton_to_a_spanish_cell_that_runs_the_same_code(tmp_path, capsys,
                                                                                   being_translated):
    source, base, catalog = tiny_lesson_with_code(tmp_path)
    assert cli.main(base) == 0 and cli.main(base + ["--check"]) == 0  # code not translated yet: pending
    assert "09_tiny.md: code not translated yet: 3 comment(s) and shown string(s) in 1 code cell(s) (run " \
           "--update notebooks/09_tiny.ipynb" in capsys.readouterr().err
    cli.main(base + ["--update"])  # no path: only catalogs that translate code get code sections
    assert "<!-- code " not in catalog.read_text()
    assert cli.main(base + ["--update", str(source)]) == 0
    text = catalog.read_text()
    assert 'en: f"rank {rows[\'rank\']}: hello, world"\nes todo: f"rank {rows[\'rank\']}: hello, world"' in text
    assert "en: # greet every rank" in text and 'en: "what each rank saw"' in text and '"first try"' not in text
    capsys.readouterr()
    assert cli.main(base + ["--check"]) == 1
    err = capsys.readouterr().err
    assert "09_tiny.md: 3 code string(s)/comment(s) untranslated (es todo), in cells: " in err
    assert "notebooks/es/09_tiny.ipynb: stored outputs are the English run's, not a Spanish run (make " \
           "translations-run NOTEBOOKS=notebooks/es/09_tiny.ipynb)" in err
    cell = nbformat.read(source, as_version=4).cells[1].id
    text = (text.replace('es todo: f"rank {rows[\'rank\']}: hello, world"', 'es: f"rank {rows[\'rank\']}: hola, mundo"')
            .replace("es todo: # greet every rank", "es: # saluda desde cada rank")
            .replace('es todo: "what each rank saw"', 'es: "lo que vio cada rank"')
            .replace(f"<!-- code {cell} -->", f'<!-- code {cell} -->\nen: "first try"\nes: "primer intento"\n'))
    catalog.write_text(text)  # the label: a string the cell only shows, translated by a pair added by hand
    assert cli.main(base) == 0
    spanish = nbformat.read(tmp_path / "notebooks" / "es" / "09_tiny.ipynb", as_version=4).cells[1].source
    assert spanish == ('rows = {"rank": 0, "label": "primer intento"}\n'
                       'print(f"rank {rows[\'rank\']}: hola, mundo")  # saluda desde cada rank\n'
                       'plot(rows, title="lo que vio cada rank")')
    assert code_strings.differences(TINY_CODE, spanish) == []
    catalog.write_text(text.replace('en: "first try"\nes: "primer intento"', 'en: "rank"\nes: "rango"'))
    assert cli.main(base) == 1  # a key the code reads: refused, with the reason
    assert "cell " + cell + ': "rank": stays English (data: ' in capsys.readouterr().err


def test_a_changed_english_string_is_stale_with_the_old_english_beside_its_spanish(tmp_path, capsys):
    source, base, catalog = tiny_lesson_with_code(tmp_path)
    cli.main(base + ["--update", str(source)])
    catalog.write_text(catalog.read_text().replace('es todo: "what each rank saw"', 'es: "lo que vio cada rank"'))
    english = nbformat.read(source, as_version=4)
    english.cells[1].source = english.cells[1].source.replace("what each rank saw", "what every rank saw")
    nbformat.write(english, source)
    cli.main(base + ["--update"])
    assert 'en: "what every rank saw"\nwas: "what each rank saw"\nes stale: "lo que vio cada rank"' in catalog.read_text()
    capsys.readouterr()
    assert cli.main(base + ["--check"]) == 1
    assert "1 code string(s)/comment(s) stale (the English changed; see was:)" in capsys.readouterr().err


def test_once_every_notebook_translates_its_code_an_untranslated_one_fails_the_check(tmp_path, capsys, monkeypatch,
                                                                                    being_translated):
    source, base, _ = tiny_lesson_with_code(tmp_path)
    cli.main(base)
    assert cli.main(base + ["--check"]) == 0
    monkeypatch.setattr(translations, "REQUIRE_CODE_TRANSLATED", True)
    capsys.readouterr()
    assert cli.main(base + ["--check"]) == 1
    err = capsys.readouterr().err
    assert "i18n/es/notebooks/09_tiny.md: code not translated yet: 3 comment(s)" in err and "pending" not in err


@pytest.mark.slow
def test_a_spanish_run_stores_spanish_outputs_that_the_generator_keeps_until_the_code_changes(tmp_path, capsys):
    source, base, catalog = tiny_lesson_with_code(tmp_path)
    english = nbformat.read(source, as_version=4)
    english.cells[1].source = 'print("hello, world")  # greet'
    nbformat.write(english, source)
    cli.main(base + ["--update", str(source)])
    catalog.write_text(catalog.read_text().replace('es todo: "hello, world"', 'es: "hola, mundo"')
                       .replace("es todo: # greet", "es: # saludo"))
    assert cli.main(base + ["--run"]) == 0  # default: every lesson whose code is translated and not run
    target = tmp_path / "notebooks" / "es" / "09_tiny.ipynb"
    stored = nbformat.read(target, as_version=4)
    assert stored.cells[1].outputs[0].text == "hola, mundo\n"
    assert translations.run_record(stored) == {"source": translations.code_hash(stored)}
    assert cli.main(base) == 0 and cli.main(base + ["--check"]) == 0  # the generator keeps the run's outputs
    assert nbformat.read(target, as_version=4).cells[1].outputs[0].text == "hola, mundo\n"
    english.cells[1].source = 'print("hello, world", 2)  # greet'
    nbformat.write(english, source)
    cli.main(base)
    capsys.readouterr()
    assert cli.main(base + ["--check"]) == 1
    assert ("notebooks/es/09_tiny.ipynb: its stored outputs come from an older version of its code: make "
            "translations-run NOTEBOOKS=notebooks/es/09_tiny.ipynb") in capsys.readouterr().err
    assert cli.main(["course", "--store", str(target)]) == 0  # `course --store` stores a translation so too
    assert nbformat.read(target, as_version=4).cells[1].outputs[0].text == "hola, mundo 2\n"
    assert cli.main(base + ["--check"]) == 0


# --- the Spanish edition, run ----------------------------------------------------------------------------

def es_test_lessons() -> list[Path]:
    """The Spanish lessons `make test` runs under nbval (the Makefile's ES_TEST_LESSONS)."""
    makefile = (ROOT / "Makefile").read_text(encoding="utf-8")
    found = re.search(r"^ES_TEST_LESSONS := ((?:.*\\\n)*.*)$", makefile, re.M)
    return [ROOT / name for name in found[1].replace("\\\n", " ").split()]


def test_make_test_runs_spanish_lessons_that_cover_launches_a_failure_live_ranks_widgets_and_figures():
    lessons = es_test_lessons()
    assert len(lessons) >= 3 and all(path.parent == ROOT / "notebooks" / "es" for path in lessons)
    covered = set()
    for path in lessons:
        notebook = nbformat.read(path, as_version=4)
        edition = translations.edition_of(path)
        assert translations.translates_code(translations.read_catalog(edition)[1]), f"{path.name}: code not translated"
        assert translations.run_record(notebook), f"{path.name}: its outputs are not from a Spanish run"
        code = "\n".join(cell.source for cell in notebook.cells if cell.cell_type == "code")
        outputs = json.dumps([cell.get("outputs", []) for cell in notebook.cells])
        covered |= {name for name, found in [
            ("torchrun launches", "run_torchrun(" in code), ("a failure message", "RankFailedError" in code),
            ("live ranks", "%ranks start" in code), ("widgets", translations.WIDGET_VIEW in outputs),
            ("figures", "image/png" in outputs)] if found}
    assert covered == {"torchrun launches", "a failure message", "live ranks", "widgets", "figures"}, covered


@pytest.mark.slow
def test_the_grader_gives_a_spanish_exercise_its_hints_in_spanish(tmp_path):
    from ddp_lessons.grading import feedback, grade_folder

    exercise = nbformat.read(ROOT / "exercises" / "es" / "03_devices.ipynb", as_version=4)
    for cell in exercise.cells:  # torchrun_env written with RANK = LOCAL_RANK: the usual mistake
        if cell.source.startswith("def torchrun_env"):
            cell.source = ('def torchrun_env(node_rank, local_rank, nnodes, nproc_per_node):\n'
                           '    return {"RANK": local_rank, "LOCAL_RANK": local_rank,\n'
                           '            "WORLD_SIZE": nnodes * nproc_per_node, "LOCAL_WORLD_SIZE": nproc_per_node}')
    (tmp_path / "submissions" / "ana").mkdir(parents=True)
    nbformat.write(exercise, tmp_path / "submissions" / "ana" / "03_devices.ipynb")
    grades = grade_folder(tmp_path / "submissions", ROOT / "solutions", ["03_devices"], sandbox_mode="none")
    (written,) = feedback.write_feedback(grades, tmp_path / "feedback")
    text = written.read_text(encoding="utf-8")
    assert grades[0].language == "es" and text.startswith("# Evaluación de ana")
    assert "RANK debería ser 4, pero vale 0. RANK numera los procesos de todo el trabajo" in text
    assert "| no superada |" in text
