"""How a quick check looks and answers: a multiple-choice `Quiz`, a numeric `Prediction`, and the
`Reveal` that sets a prediction beside what a run measured.

Each form shows as text and HTML everywhere (a page without a kernel, nbval, a terminal) and, in a
live kernel, as ipywidgets (`base.frontend.mimebundle`; no ``Output`` widget, so nbval runs the cells).
The learner's **first** answer to a form is the one that counts: `commit` keeps it, with how sure they
were (`CONFIDENCE`), and hands it to the form's `on_commit` (`ddp_lessons.quiz` records it for the
kernel and in the learner's journal); a later answer still gets its feedback and is not recorded.
Every word a learner reads is a `tr` template (the Spanish in `i18n/messages_es.py`).
"""

from __future__ import annotations

import html
import math
import re
import string
from dataclasses import dataclass
from typing import Callable, Sequence

from ddp_lessons import i18n
from ddp_lessons.base.frontend import mimebundle
from ddp_lessons.i18n import tr

LETTERS = string.ascii_lowercase
_CODE_SPAN = re.compile(r"`([^`\n]+)`")


def markup(text: str) -> str:
    """`text` as HTML: escaped, with its `code spans` shown as code (as the lessons' markdown shows them)."""
    return _CODE_SPAN.sub(r"<code>\1</code>", html.escape(text))


def plain(text: str) -> str:
    """`text` for a widget label, which shows no markup: its code spans without the backticks."""
    return _CODE_SPAN.sub(r"\1", text)
CONFIDENCE = ("sure", "think", "guess")
"""How sure a learner is of an answer: sure, "I think so", guessing (the values the record keeps)."""


def confidence_words(lang: str) -> dict[str, str]:
    """{level: what the learner reads} for each of `CONFIDENCE`, in `lang`."""
    return {"sure": tr("sure", lang=lang), "think": tr("I think so", lang=lang), "guess": tr("guessing", lang=lang)}


def confidence_level(value: str | None, lang: str) -> str | None:
    """`value` checked against `CONFIDENCE` (None stays None: confidence is optional in text mode)."""
    if value is None or value in CONFIDENCE:
        return value
    raise ValueError(tr('confidence={value!r}: say "sure", "think" (I think so) or "guess"', lang=lang, value=value))


@dataclass(frozen=True)
class Answer:
    """A learner's committed answer: the option's index or the number, how sure, right or not (None for a
    number: the run decides), and how it was given ("widget" or "text")."""

    given: int | float
    confidence: str | None
    correct: bool | None
    via: str = "text"


class Form:
    """What the forms share: which stored question they are (if any), the language, the commitment."""

    def __init__(self, lang: str | None, lesson: str | None, number: int | None, kind: str | None):
        self.lang = lang or i18n.language()
        self.lesson, self.number, self.kind = lesson, number, kind
        self.first: Answer | None = None
        self.on_commit: Callable[[Form, Answer], None] | None = None

    def _keep(self, answer: Answer) -> bool:
        """Keep `answer` if it is the first; True when it was."""
        if self.first is not None:
            return False
        self.first = answer
        if self.on_commit is not None:
            self.on_commit(self, answer)
        return True

    def _repr_mimebundle_(self, include=None, exclude=None):
        return mimebundle(self.text(), self.html(), self.widget)


def _confidence_buttons(lang: str):
    import ipywidgets as widgets

    buttons = widgets.ToggleButtons(options=[(word, level) for level, word in confidence_words(lang).items()],
                                    value=None, description=tr("How sure?", lang=lang),
                                    style={"button_width": "auto", "description_width": "initial"})
    buttons.add_class("ddp-confidence")
    return buttons


class Quiz(Form):
    """One multiple-choice question with a single right answer and an explanation."""

    def __init__(self, question: str, options: Sequence[str], answer: int | str, explanation: str = "",
                 feedback: Sequence[str] | None = None, lang: str | None = None, *, lesson: str | None = None,
                 number: int | None = None, kind: str | None = None):
        super().__init__(lang, lesson, number, kind)
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
        """Feedback for `choice` (an index, a letter 'a'..., or the option's text); records nothing."""
        picked = _index(choice, self.options)
        if picked == self.answer:
            return tr("✓ Correct. {explanation}", lang=self.lang, explanation=self.explanation).strip()
        if self.feedback is not None:
            return tr("✗ Not quite: ({letter}) is not it. {feedback} Try another option.", lang=self.lang,
                      letter=LETTERS[picked], feedback=self.feedback[picked])
        return tr("✗ Not quite: ({letter}) is not it. Think again, then try another option.", lang=self.lang,
                  letter=LETTERS[picked])

    def commit(self, choice: int | str, confidence: str | None = None, via: str = "text") -> str:
        """Answer with `choice` (and how sure): the first answer is kept; every answer gets its feedback."""
        picked, level = _index(choice, self.options), confidence_level(confidence, self.lang)
        first = self._keep(Answer(picked, level, picked == self.answer, via))
        said = self.check(picked)
        if not first and picked != self.first.given:
            said += " " + tr("(Your first answer, ({letter}), is the one recorded.)", lang=self.lang,
                             letter=LETTERS[self.first.given])
        elif first and level is None and via == "text":
            said += " " + tr('(Next time add how sure you are: confidence="sure", "think" or "guess".)',
                             lang=self.lang)
        return said

    def text(self) -> str:
        """The question as plain text, options lettered, answer not shown."""
        lines = [self.question] + [f"  ({LETTERS[i]}) {opt}" for i, opt in enumerate(self.options)]
        return "\n".join(lines + [tr("Answer with quiz.check(letter), or click an option in JupyterLab.",
                                      lang=self.lang)])

    def html(self) -> str:
        """The question as HTML for readers without a kernel; the answer is folded in <details>."""
        items = "".join(f"<li>({LETTERS[i]}) {markup(o)}</li>" for i, o in enumerate(self.options))
        right = self.options[self.answer]
        answer = f"({LETTERS[self.answer]}) {markup(right)}" + ("" if right.endswith((".", "?", "!")) else ".")
        return (f"<p><b>{tr('Quick check.', lang=self.lang)}</b> {markup(self.question)}</p><ul>{items}</ul>"
                f"<details><summary>{tr('Answer', lang=self.lang)}</summary>"
                f"<p>{answer} {markup(self.explanation)}</p></details>")

    def widget(self):
        """Radio buttons, how sure, a Check button and a feedback line (needs ipywidgets): the first
        Check commits; after it, each click on an option shows its feedback at once."""
        import ipywidgets as widgets

        prompt = widgets.HTML(f"<b>{tr('Quick check.', lang=self.lang)}</b> {markup(self.question)}")
        choices = widgets.RadioButtons(
            options=[(f"({LETTERS[i]}) {plain(o)}", i) for i, o in enumerate(self.options)],
            value=None, layout=widgets.Layout(width="max-content"))
        sure = _confidence_buttons(self.lang)
        button = widgets.Button(description=tr("Check", lang=self.lang), button_style="primary")
        button.add_class("ddp-commit")
        feedback = widgets.HTML("", layout=widgets.Layout(min_height="1.5em"))
        feedback.add_class("ddp-quiz-feedback")

        def on_check(_):
            if choices.value is None or sure.value is None:
                feedback.value = html.escape(tr("Pick an answer and how sure you are, then press Check.",
                                                lang=self.lang))
            else:
                feedback.value = markup(self.commit(choices.value, sure.value, via="widget"))

        def on_pick(change):
            if self.first is not None and change["new"] is not None:
                feedback.value = markup(self.commit(change["new"], sure.value, via="widget"))

        button.on_click(on_check)
        choices.observe(on_pick, names="value")
        self.feedback_widget = feedback
        box = widgets.VBox([prompt, choices, sure, button, feedback])
        box.add_class("ddp-quiz")
        return box


class Prediction(Form):
    """A number the learner predicts before a run (``quiz.predict``); `Reveal` compares it afterwards."""

    def __init__(self, question: str, unit: str = "", explanation: str = "", lang: str | None = None, *,
                 lesson: str | None = None, number: int | None = None):
        super().__init__(lang, lesson, number, "numeric")
        self.question, self.unit, self.explanation = question, unit, explanation
        self.feedback_widget = None

    def commit(self, value: int | float | str, confidence: str | None = None, via: str = "text") -> str:
        """Predict `value` (and how sure): the first prediction is the one the run is compared with."""
        number, level = parse_number(value, self.lang), confidence_level(confidence, self.lang)
        if self._keep(Answer(number, level, None, via)):
            return tr("Prediction recorded: {value}{how}. Run the next cells: the run measures it.", lang=self.lang,
                      value=amount(number, self.unit, self.lang),
                      how=f" ({confidence_words(self.lang)[level]})" if level else "")
        if number == self.first.given:
            return tr("Already recorded: {value}.", lang=self.lang, value=amount(number, self.unit, self.lang))
        return tr("Your first prediction, {value}, is the one compared with the measurement.", lang=self.lang,
                  value=amount(self.first.given, self.unit, self.lang))

    def text(self) -> str:
        """The question as plain text, with how to answer without widgets."""
        return "\n".join([f"{tr('Predict.', lang=self.lang)} {self.question}",
                          tr('Answer with quiz.check(NUMBER, confidence="sure", "think" or "guess") before you '
                             'run on, or type it in the box in JupyterLab.', lang=self.lang)])

    def html(self) -> str:
        """The question as HTML for readers without a kernel."""
        return (f'<div class="ddp-predict"><p><b>{tr("Predict.", lang=self.lang)}</b> {markup(self.question)}'
                f"</p><p><i>{html.escape(tr('Write your number down before you read on: the run below measures it.', lang=self.lang))}"
                "</i></p></div>")

    def widget(self):
        """A number box, how sure, a Commit button and a feedback line (needs ipywidgets)."""
        import ipywidgets as widgets

        prompt = widgets.HTML(f"<b>{tr('Predict.', lang=self.lang)}</b> {markup(self.question)}")
        box = widgets.Text(placeholder=tr("a number", lang=self.lang), layout=widgets.Layout(width="10em"))
        box.add_class("ddp-number")
        sure = _confidence_buttons(self.lang)
        button = widgets.Button(description=tr("Commit", lang=self.lang), button_style="primary")
        button.add_class("ddp-commit")
        feedback = widgets.HTML("", layout=widgets.Layout(min_height="1.5em"))
        feedback.add_class("ddp-quiz-feedback")

        def on_commit(_):
            try:
                said = self.commit(box.value, sure.value, via="widget") if sure.value or self.first else \
                    tr("Type a number and say how sure you are, then press Commit.", lang=self.lang)
            except ValueError as error:
                said = str(error)
            feedback.value = html.escape(said)

        button.on_click(on_commit)
        self.feedback_widget = feedback
        row = widgets.HBox([box, widgets.Label(self.unit)]) if self.unit else box
        form = widgets.VBox([prompt, row, sure, button, feedback])
        form.add_class("ddp-predict")
        return form


class Reveal:
    """What a run measured beside the learner's prediction: "you predicted X, measured Y (off by Z×)"."""

    def __init__(self, question: str, measured: float, predicted: Answer | None, unit: str = "",
                 explanation: str = "", lang: str | None = None):
        self.question, self.measured, self.predicted = question, measured, predicted
        self.unit, self.explanation, self.lang = unit, explanation, lang or i18n.language()
        self.lesson: str | None = None
        self.number: int | None = None

    def verdict(self) -> str:
        """The line that compares the prediction with the measurement (or says none was made)."""
        measured = amount(self.measured, self.unit, self.lang)
        if self.predicted is None:
            return tr("Measured: {measured}. No prediction was made in this kernel (quiz.predict asks for one "
                      "before the run).", lang=self.lang, measured=measured)
        guess = self.predicted.given
        if guess == self.measured:
            return tr("You predicted {predicted}, measured {measured}: exactly right.", lang=self.lang,
                      predicted=amount(guess, self.unit, self.lang), measured=measured)
        ratio = off_by(guess, self.measured)
        off = (i18n.number(ratio, ".3g", lang=self.lang) + "×" if ratio is not None
               else amount(abs(guess - self.measured), self.unit, self.lang))
        return tr("You predicted {predicted}, measured {measured} (off by {off}).", lang=self.lang,
                  predicted=amount(guess, self.unit, self.lang), measured=measured, off=off)

    def text(self) -> str:
        return "\n".join(line for line in (f"{tr('Prediction check.', lang=self.lang)} {self.question}",
                                           self.verdict(), self.explanation) if line)

    def html(self) -> str:
        """The measured value sits in <details> (open when this kernel holds a prediction), so that a reader
        of the page predicts before unfolding it."""
        opened = " open" if self.predicted is not None else ""
        return (f'<div class="ddp-reveal"><p><b>{tr("Prediction check.", lang=self.lang)}</b> '
                f"{markup(self.question)}</p><details{opened}><summary>{tr('Measured', lang=self.lang)}</summary>"
                f"<p>{html.escape(self.verdict())}</p><p>{markup(self.explanation)}</p></details></div>")

    def _repr_mimebundle_(self, include=None, exclude=None):
        """Text and HTML, and in the output's metadata what was revealed (the Spanish edition's generator
        renders the same reveal in Spanish from it)."""
        data = {"text/plain": self.text(), "text/html": self.html()}
        if self.lesson is None:
            return data
        return data, {"ddp_lessons": {"reveal": {"lesson": self.lesson, "question": self.number,
                                                  "measured": self.measured}}}


def off_by(predicted: float, measured: float) -> float | None:
    """How many times too large or too small the prediction was (>= 1), None when that means nothing
    (a zero, or opposite signs)."""
    if predicted == 0 or measured == 0 or (predicted > 0) != (measured > 0):
        return None
    return max(predicted / measured, measured / predicted)


def amount(value: float, unit: str = "", lang: str | None = None) -> str:
    """A number as a learner reads it (4, not 4.0), with its unit, in the language's notation (`lang`, else
    the notebook's): ``2.5`` in English, ``2,5`` in Spanish."""
    shown = str(int(value)) if float(value).is_integer() and abs(value) < 1e15 else i18n.number(value, ".4g", lang=lang)
    return f"{shown} {unit}".strip()


def parse_number(value: int | float | str, lang: str) -> float:
    """The number a learner typed ("4", "2.5", "1e6", "1,5" in Spanish, "1,000" in English)."""
    if isinstance(value, bool):
        raise ValueError(tr("{value!r} is not a number", lang=lang, value=value))
    if isinstance(value, (int, float)):
        number = float(value)
    else:
        text = str(value).strip().replace(" ", "").replace("_", "")
        if "," in text and "." not in text:
            text = text.replace(",", "." if lang != i18n.SOURCE and text.count(",") == 1 else "")
        try:
            number = float(text)
        except ValueError:
            raise ValueError(tr("{value!r} is not a number", lang=lang, value=value)) from None
    if not math.isfinite(number):
        raise ValueError(tr("{value!r} is not a number", lang=lang, value=value))
    return int(number) if number.is_integer() else number


def _index(choice: int | str, options: Sequence[str]) -> int:
    if isinstance(choice, int) and not isinstance(choice, bool) and 0 <= choice < len(options):
        return choice
    if isinstance(choice, str):
        key = choice.strip().strip("()").lower()
        if len(key) == 1 and key in LETTERS[:len(options)]:
            return LETTERS.index(key)
        if choice in options:
            return options.index(choice)
    raise ValueError(tr("{choice!r} is not one of the options (use a letter a-{last})", choice=choice,
                        last=LETTERS[len(options) - 1]))
