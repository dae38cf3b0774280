"""Quick-check questions at the end of each lesson: click an answer, get feedback at once.

A lesson cell reads ``quiz.ask("07", 1)``: question 1 of lesson 07, stored with its options and
per-option feedback in ``ddp_lessons/data/quizzes/07.json`` (so the cell's source does not show the
answer). In a live Jupyter kernel it shows as ipywidgets radio buttons whose feedback line updates
on each click (no ``Output`` widget, so nbval can run the cell). Everywhere else (a notebook viewed
on the web, a terminal, nbval's text comparison) it shows as readable text with the answer folded
away, and ``quiz.check("b")`` gives the same feedback without widgets. Tests and authors trying a
new question build a `Quiz(...)` directly.

In a Spanish notebook (`ddp_lessons.i18n.language`) ``ask`` shows the question, options and feedback
from ``data/quizzes/es/NN.json`` (same order; each entry holds the hash of the English it translates),
and the words around them in Spanish too.
"""

from __future__ import annotations

import hashlib
import html
import json
import string
from pathlib import Path
from typing import Sequence

from ddp_lessons import i18n
from ddp_lessons.base.frontend import mimebundle
from ddp_lessons.i18n import tr

LETTERS = string.ascii_lowercase


class Quiz:
    """One multiple-choice question with a single right answer and an explanation."""

    def __init__(self, question: str, options: Sequence[str], answer: int | str, explanation: str = "",
                 feedback: Sequence[str] | None = None, lang: str | None = None):
        if len(options) < 2:
            raise ValueError("a quiz needs at least two options")
        self.question = question
        self.options = list(options)
        self.answer = _index(answer, self.options)
        self.explanation = explanation
        self.feedback = list(feedback) if feedback else None
        if self.feedback is not None and len(self.feedback) != len(self.options):
            raise ValueError("give one feedback line per option")
        self.lang = lang or i18n.language()
        self.feedback_widget = None

    def check(self, choice: int | str) -> str:
        """Feedback for `choice` (an index, a letter 'a'..., or the option's text)."""
        picked = _index(choice, self.options)
        if picked == self.answer:
            return tr("✓ Correct. {explanation}", lang=self.lang, explanation=self.explanation).strip()
        if self.feedback is not None:
            return tr("✗ Not quite: ({letter}) is not it. {feedback} Try another option.", lang=self.lang,
                      letter=LETTERS[picked], feedback=self.feedback[picked])
        return tr("✗ Not quite: ({letter}) is not it. Think again, then try another option.", lang=self.lang,
                  letter=LETTERS[picked])

    def text(self) -> str:
        """The question as plain text, options lettered, answer not shown."""
        lines = [self.question] + [f"  ({LETTERS[i]}) {opt}" for i, opt in enumerate(self.options)]
        return "\n".join(lines + [tr("Answer with quiz.check(letter), or click an option in JupyterLab.",
                                      lang=self.lang)])

    def html(self) -> str:
        """The question as HTML for readers without a kernel; the answer is folded in <details>."""
        items = "".join(f"<li>({LETTERS[i]}) {html.escape(o)}</li>" for i, o in enumerate(self.options))
        right = self.options[self.answer]
        answer = f"({LETTERS[self.answer]}) {html.escape(right)}" + ("" if right.endswith((".", "?", "!")) else ".")
        return (f"<p><b>{tr('Quick check.', lang=self.lang)}</b> {html.escape(self.question)}</p><ul>{items}</ul>"
                f"<details><summary>{tr('Answer', lang=self.lang)}</summary>"
                f"<p>{answer} {html.escape(self.explanation)}</p></details>")

    def widget(self):
        """The interactive version: radio buttons and a feedback line (needs ipywidgets)."""
        import ipywidgets as widgets

        prompt = widgets.HTML(f"<b>{tr('Quick check.', lang=self.lang)}</b> {html.escape(self.question)}")
        choices = widgets.RadioButtons(
            options=[(f"({LETTERS[i]}) {o}", i) for i, o in enumerate(self.options)],
            value=None, layout=widgets.Layout(width="max-content"))
        feedback = widgets.HTML("", layout=widgets.Layout(min_height="1.5em"))
        feedback.add_class("ddp-quiz-feedback")

        def on_pick(change):
            if change["new"] is not None:
                feedback.value = html.escape(self.check(change["new"]))

        choices.observe(on_pick, names="value")
        self.feedback_widget = feedback
        box = widgets.VBox([prompt, choices, feedback])
        box.add_class("ddp-quiz")
        return box

    def _repr_mimebundle_(self, include=None, exclude=None):
        return mimebundle(self.text(), self.html(), self.widget)


def _index(choice: int | str, options: Sequence[str]) -> int:
    if isinstance(choice, int) and 0 <= choice < len(options):
        return choice
    if isinstance(choice, str):
        key = choice.strip().strip("()").lower()
        if len(key) == 1 and key in LETTERS[:len(options)]:
            return LETTERS.index(key)
        if choice in options:
            return options.index(choice)
    raise ValueError(f"{choice!r} is not one of the options (use a letter a-{LETTERS[len(options) - 1]})")


_last: Quiz | None = None


def _questions(lang: str = i18n.SOURCE) -> dict:
    """The stored questions: {lesson: [{question, options, feedback, key}, ...]} from data/quizzes/NN.json,
    or for another language its translations {lesson: [{en, question, options, feedback}, ...]}."""
    from importlib.resources import files

    return read_questions(Path(str(files("ddp_lessons").joinpath(QUESTIONS))), lang)


QUESTIONS = "data/quizzes"
"""Where the package keeps the questions: ``NN.json`` per lesson, ``<lang>/NN.json`` its translations."""


def read_questions(folder: Path, lang: str = i18n.SOURCE) -> dict:
    """{lesson: entries} of the question files in `folder` (``NN.json``; another language's in ``<lang>/``)."""
    where = folder if lang == i18n.SOURCE else folder / lang
    return {path.stem: json.loads(path.read_text(encoding="utf-8"))
            for path in sorted(where.glob("[0-9][0-9].json"))}


def write_questions(folder: Path, lesson: str, entries: list[dict], lang: str = i18n.SOURCE) -> Path:
    """Store `lesson`'s question entries in `folder` (as `read_questions` reads them); return the file."""
    path = (folder if lang == i18n.SOURCE else folder / lang) / f"{lesson}.json"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(entries, indent=1, ensure_ascii=False) + "\n", encoding="utf-8")
    return path


def english_hash(entry: dict) -> str:
    """What a translation records of the English entry it translates: a hash of its question,
    options and feedback (the drift test compares it with today's)."""
    text = json.dumps([entry["question"], entry["options"], entry["feedback"]], ensure_ascii=False)
    return hashlib.sha256(text.encode("utf-8")).hexdigest()[:12]


def from_entry(entry: dict, lang: str | None = None) -> Quiz:
    """A stored question ``{question, options, feedback, key}`` as a `Quiz` in `lang`."""
    import base64

    letter = base64.b64decode(entry["key"]).decode().rsplit("-", 1)[1]  # encoded only against peeking
    right = LETTERS.index(letter)
    return Quiz(entry["question"], entry["options"], letter, entry["feedback"][right], entry["feedback"], lang=lang)


def ask(lesson: str, n: int = 1, lang: str | None = None) -> Quiz:
    """Question `n` of `lesson` from data/quizzes/NN.json as a `Quiz` (widget in JupyterLab, text elsewhere),
    in the notebook's language (or `lang`) when a translation exists."""
    global _last
    lang = lang or i18n.language()
    entries = _questions().get(lesson, []) if not lesson.startswith("_") else []
    if not 1 <= n <= len(entries):
        raise ValueError(f"lesson {lesson!r} has no question {n} (it has {len(entries)}) in "
                         f"data/quizzes/{lesson}.json")
    entry = entries[n - 1]
    translated = _questions(lang).get(lesson, []) if lang != i18n.SOURCE else []
    if n <= len(translated) and not translated[n - 1].get("todo"):
        entry = {**translated[n - 1], "key": entry["key"]}
    _last = from_entry(entry, lang)
    return _last


def check(choice: int | str) -> None:
    """Text-mode answer to the last question asked, e.g. ``quiz.check("b")``: prints the feedback."""
    if _last is None:
        raise RuntimeError(tr('no question asked yet: run a quiz.ask("NN", k) cell first'))
    print(_last.check(choice))
