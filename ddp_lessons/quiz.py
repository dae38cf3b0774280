"""Quick-check questions at the end of each lesson: click an answer, get feedback at once.

A lesson cell reads ``quiz.ask("07", 1)``: question 1 of lesson 07, stored with its options and
per-option feedback in ``ddp_lessons/data/quizzes.json`` (so the cell's source does not show the
answer). In a live Jupyter kernel it shows as ipywidgets radio buttons whose feedback line updates
on each click (no ``Output`` widget, so nbval can run the cell). Everywhere else (a notebook viewed
on the web, a terminal, nbval's text comparison) it shows as readable text with the answer folded
away, and ``quiz.check("b")`` gives the same feedback without widgets. Tests and authors trying a
new question build a `Quiz(...)` directly.
"""

from __future__ import annotations

import html
import string
from typing import Sequence

from ddp_lessons.frontend import kernel_with_widgets

LETTERS = string.ascii_lowercase


class Quiz:
    """One multiple-choice question with a single right answer and an explanation."""

    def __init__(self, question: str, options: Sequence[str], answer: int | str, explanation: str = "",
                 feedback: Sequence[str] | None = None):
        if len(options) < 2:
            raise ValueError("a quiz needs at least two options")
        self.question = question
        self.options = list(options)
        self.answer = _index(answer, self.options)
        self.explanation = explanation
        self.feedback = list(feedback) if feedback else None
        if self.feedback is not None and len(self.feedback) != len(self.options):
            raise ValueError("give one feedback line per option")
        self.feedback_widget = None

    def check(self, choice: int | str) -> str:
        """Feedback for `choice` (an index, a letter 'a'..., or the option's text)."""
        picked = _index(choice, self.options)
        if picked == self.answer:
            return f"✓ Correct. {self.explanation}".strip()
        if self.feedback is not None:
            return f"✗ Not quite: ({LETTERS[picked]}) is not it. {self.feedback[picked]} Try another option."
        return f"✗ Not quite: ({LETTERS[picked]}) is not it. Think again, then try another option."

    def text(self) -> str:
        """The question as plain text, options lettered, answer not shown."""
        lines = [self.question] + [f"  ({LETTERS[i]}) {opt}" for i, opt in enumerate(self.options)]
        return "\n".join(lines + ["Answer with quiz.check(letter), or click an option in JupyterLab."])

    def html(self) -> str:
        """The question as HTML for readers without a kernel; the answer is folded in <details>."""
        items = "".join(f"<li>({LETTERS[i]}) {html.escape(o)}</li>" for i, o in enumerate(self.options))
        answer = f"({LETTERS[self.answer]}) {html.escape(self.options[self.answer])}"
        return (f"<p><b>Quick check.</b> {html.escape(self.question)}</p><ul>{items}</ul>"
                f"<details><summary>Answer</summary><p>{answer}. {html.escape(self.explanation)}</p>"
                "</details>")

    def widget(self):
        """The interactive version: radio buttons and a feedback line (needs ipywidgets)."""
        import ipywidgets as widgets

        prompt = widgets.HTML(f"<b>Quick check.</b> {html.escape(self.question)}")
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
        bundle = {"text/plain": self.text(), "text/html": self.html()}
        if kernel_with_widgets():
            view = self.widget()._repr_mimebundle_()
            bundle.update({k: v for k, v in view.items() if k != "text/plain"})
        return bundle


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


def _questions() -> dict:
    """The stored questions: {lesson: [{question, options, feedback, key}, ...]} from data/quizzes.json."""
    import json
    from importlib.resources import files

    return json.loads(files("ddp_lessons").joinpath("data/quizzes.json").read_text(encoding="utf-8"))


def ask(lesson: str, n: int = 1) -> Quiz:
    """Question `n` of `lesson` from data/quizzes.json as a `Quiz` (widget in JupyterLab, text elsewhere)."""
    import base64

    global _last
    entries = _questions().get(lesson, []) if not lesson.startswith("_") else []
    if not 1 <= n <= len(entries):
        raise ValueError(f"lesson {lesson!r} has no question {n} (it has {len(entries)}) in data/quizzes.json")
    entry = entries[n - 1]
    letter = base64.b64decode(entry["key"]).decode().rsplit("-", 1)[1]  # encoded only against peeking
    right = LETTERS.index(letter)
    _last = Quiz(entry["question"], entry["options"], letter, entry["feedback"][right], entry["feedback"])
    return _last


def check(choice: int | str) -> None:
    """Text-mode answer to the last question asked, e.g. ``quiz.check("b")``: prints the feedback."""
    if _last is None:
        raise RuntimeError('no question asked yet: run a quiz.ask("NN", k) cell first')
    print(_last.check(choice))
