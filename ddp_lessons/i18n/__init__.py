"""The course's languages: which one a notebook speaks, and what a learner reads in it.

English is the source everywhere; the Spanish edition (``notebooks/es/``, ``exercises/es/``) is
generated from it by `ddp_lessons.tooling.translations`. At run time a notebook's language is, first found:

1. ``DDP_LESSONS_LANG`` (``en`` or ``es``): the grader and `make course` set it from the notebook's
   metadata; set it yourself to override;
2. the notebook JupyterLab opened (``JPY_SESSION_NAME``), when its metadata says
   ``{"ddp_lessons": {"language": "es"}}`` (a Spanish notebook copied anywhere stays Spanish);
3. the kernel's working folder, when it is named like a language (``notebooks/es/``: JupyterLab,
   nbval and nbclient start the kernel in the notebook's folder);
4. English.

What a learner reads from the package (check hints, quiz feedback, grader feedback) is written in
English in the code, as a `tr` template: ``tr("rank {rank} got {got}", rank=r, got=g)``.
`ddp_lessons.i18n.messages_es.SPANISH` maps each English template to its Spanish one, side by side;
`tests/test_translations.py` fails when a template has no Spanish entry (or an entry lost its template).
A value the code keeps and compares but also shows (a lesson's case names: "without barrier") is not
translated in the code: the learner reads `label(value)`, listed in `ddp_lessons.i18n.labels`, its
Spanish in the same table.

Numbers follow the language: in Spanish a number field is written as the Spanish edition's prose writes
numbers (decimal comma, a space between thousands: ``1 147 466``, ``4,59 MB``), in figures too
(`ddp_lessons.plots.figures`). A value the learner reads as code (``lr=0.1``) keeps its dot: pass it
as text, or convert it with ``!r`` / ``!s`` in the template.
"""

from __future__ import annotations

import functools
import json
import numbers
import os
import re
import string
from pathlib import Path

from ddp_lessons.runtime.contract import LANGUAGE_ENV, SESSION_ENV  # the job contract names every variable

SOURCE = "en"
LANGUAGES = ("en", "es")
"""English, the source, then every language the course is translated into."""


def language() -> str:
    """The language of the notebook this kernel runs (see the module docstring): 'en' or 'es'."""
    chosen = os.environ.get(LANGUAGE_ENV, "").strip().lower()
    if chosen in LANGUAGES:
        return chosen
    session = os.environ.get(SESSION_ENV)
    if session:
        found = _file_language(session)
        if found:
            return found
    folder = Path.cwd().name.lower()
    return folder if folder in LANGUAGES else SOURCE


def notebook_language(notebook: dict) -> str:
    """The language a notebook's metadata declares (the generator writes it), else English."""
    found = notebook.get("metadata", {}).get("ddp_lessons", {}).get("language", SOURCE)
    return found if found in LANGUAGES else SOURCE


def _file_language(path: str) -> str | None:
    """The language in the metadata of the notebook at `path`, None if unreadable or undeclared."""
    try:
        stat = os.stat(path)
    except OSError:
        return None
    return _read_language(path, stat.st_mtime_ns, stat.st_size)


@functools.lru_cache(maxsize=8)
def _read_language(path: str, mtime_ns: int, size: int) -> str | None:
    """`_file_language`, read once per version of the file (the cache key holds its time and size)."""
    try:
        notebook = json.loads(Path(path).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    declared = notebook.get("metadata", {}).get("ddp_lessons", {}).get("language") \
        if isinstance(notebook, dict) else None
    return declared if declared in LANGUAGES else None


def table(lang: str) -> dict[str, str]:
    """{English template: template in `lang`} (empty for English)."""
    if lang == "es":
        from ddp_lessons.i18n.messages_es import SPANISH
        return SPANISH
    return {}


NUMBER_MARKS = {"es": (",", " ")}
"""{language: (decimal mark, thousands separator)} where they differ from English's "." and ","."""
_NUMBER_TEXT = re.compile(r"(?<![\w.])[-+]?\d[\d,]*(?:\.\d+)?(?:[eE][-+]?\d+)?(?![\w.])")


def number(value: float, spec: str = "", *, lang: str | None = None) -> str:
    """`value` formatted with `spec` (as ``format(value, spec)``), in the language's notation:
    ``number(4.59, ".2f")`` is ``4.59`` in English, ``4,59`` in Spanish."""
    return localize_numbers(format(value, spec), lang=lang)


def localize_numbers(text: str, *, lang: str | None = None) -> str:
    """`text` with every number written in English notation (``1,147,466``, ``4.59``, ``1.5e-05``)
    rewritten in the language's; words and code around them are left alone."""
    marks = NUMBER_MARKS.get(lang or language())
    if marks is None:
        return text
    decimal, thousands = marks
    swap = str.maketrans({".": decimal, ",": thousands})
    return _NUMBER_TEXT.sub(lambda m: m[0].translate(swap), text)


class _Formatter(string.Formatter):
    """str.format that writes number fields in the language's notation."""

    def __init__(self, lang: str):
        self.lang = lang

    def format_field(self, value, format_spec):
        text = super().format_field(value, format_spec)
        if isinstance(value, numbers.Real) and not isinstance(value, bool):
            return localize_numbers(text, lang=self.lang)
        return text


def tr(english: str, *, lang: str | None = None, **fields) -> str:
    """`english` in the notebook's language (or `lang`), its ``{fields}`` filled in like str.format,
    numbers written the language's way (`number`).

    A template with no translation yet is shown in English (the completeness test forbids it in the
    translated parts of the course)."""
    lang = lang or language()
    template = english if lang == SOURCE else table(lang).get(english, english)
    if lang in NUMBER_MARKS:
        return _Formatter(lang).vformat(template, (), fields)
    return template.format(**fields)


def label(value: str, *, lang: str | None = None) -> str:
    """What a learner reads for `value`, a name the code keeps and compares (a race case, a variant, a
    verdict): `value` in English, its translation in the notebook's language (or `lang`). Only the values
    listed in `ddp_lessons.i18n.labels.LABELS` (the test of the tables checks each has its Spanish)."""
    from ddp_lessons.i18n.labels import LABELS
    if value not in LABELS:
        raise KeyError(f"{value!r} is not a label: list it in ddp_lessons/i18n/labels.py, with its Spanish in "
                       "ddp_lessons/i18n/messages_es.py")
    lang = lang or language()
    return value if lang == SOURCE else table(lang).get(value, value)


def choose(texts: dict[str, str], *, lang: str | None = None, **fields) -> str:
    """The text of `texts` ({language: template}) in the notebook's language (or `lang`), English when it
    has none, its ``{fields}`` filled in. For messages that must not sit in the package's table, which
    ships to students: the hints of an instructor's hidden checks (`grading.hidden`)."""
    lang = lang or language()
    return texts.get(lang, texts[SOURCE]).format(**fields)


def source(obj, *, lang: str | None = None) -> str:
    """``inspect.getsource(obj)`` as a learner reads it in the notebook's language (or `lang`): its comments
    and one-line docstrings in that language's words where they are labels (`label`), the code unchanged.
    For a function of the package that a lesson prints (lesson 9 shows the benchmark's step)."""
    import inspect
    from ddp_lessons.i18n.labels import LABELS
    text = inspect.getsource(obj)
    lang = lang or language()
    for english, token in shown_texts(text):
        if english in LABELS:
            text = text.replace(token, token.replace(english, label(english, lang=lang)))
    return text


def shown_texts(code: str) -> list[tuple[str, str]]:
    """(text, token) of every comment (``# text``) and one-line docstring (``\"\"\"text\"\"\"``) of `code`."""
    import io
    import tokenize
    found, after_def = [], False
    for token in tokenize.generate_tokens(io.StringIO(code).readline):
        if token.type == tokenize.COMMENT and token.string[1:].strip():
            found.append((token.string[1:].strip(), token.string))
        elif (token.type == tokenize.STRING and after_def and token.string[:3] in ('"""', "'''")
              and "\n" not in token.string):
            found.append((token.string[3:-3], token.string))
        if token.type not in (tokenize.NL, tokenize.NEWLINE, tokenize.INDENT, tokenize.COMMENT):
            after_def = token.string == ":" and token.type == tokenize.OP
    return found
