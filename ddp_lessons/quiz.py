"""Quick checks: the learner predicts, commits to an answer, then the lesson shows the evidence.

A lesson cell reads ``quiz.ask("07", 1)``: question 1 of lesson 07, stored with its options and
per-option feedback in ``ddp_lessons/data/quizzes/07.json`` (so the cell's source does not show the
answer). In a live Jupyter kernel it shows as ipywidgets: options, how sure the learner is (sure, I
think so, guessing) and a Check button. Everywhere else (a notebook viewed on the web, a terminal,
nbval's text comparison) it shows as readable text with the answer folded away, and
``quiz.check("b", confidence="sure")`` answers the last question asked without widgets.

A numeric prediction is asked before a run with ``quiz.predict("06", 3)`` (a number box, or
``quiz.check(4, confidence="guess")``); after the run a cell computes the measured value from the
run's records and calls ``quiz.reveal("06", 3, measured=value)``: "you predicted X, measured Y
(off by Z×)", or the measured value and a line saying no prediction was made in this kernel.

The **first** answer to a question is the one that counts (`first_answer`); later answers still get
their feedback. How a form looks and answers: `ddp_lessons.base.quiz_forms`. Tests and authors trying
a new question build a `Quiz(...)` or `Prediction(...)` directly.

Each stored entry has a ``kind`` (`KINDS`: ``predict``, ``transfer``, ``recall`` or ``numeric``) and a
``revisit``: the heading of the lesson's section that answers it (docs/AUTHORING.md, "Predict, commit,
observe"). In a Spanish notebook (`ddp_lessons.i18n.language`) the questions come from
``data/quizzes/es/NN.json`` (same order; each entry holds the hash of the English it translates).
"""

from __future__ import annotations

import base64
import hashlib
import json
from pathlib import Path

from ddp_lessons import i18n, journal
from ddp_lessons.base.frontend import mimebundle  # noqa: F401  (the display rule every widget here follows)
from ddp_lessons.base.quiz_forms import (CONFIDENCE, LETTERS, Answer, Form, Prediction, Quiz,  # noqa: F401
                                         Reveal)
from ddp_lessons.i18n import tr

KINDS = ("predict", "transfer", "recall", "numeric")
"""What a question asks of the learner (docs/AUTHORING.md, "Predict, commit, observe")."""
QUESTIONS = "data/quizzes"
"""Where the package keeps the questions: ``NN.json`` per lesson, ``<lang>/NN.json`` its translations."""

_last: Form | None = None
_first: dict[tuple[str, int], Answer] = {}
"""This kernel's first answer to each stored question, by (lesson, number)."""
_revealed: set[tuple[str, int]] = set()
"""The numeric questions whose reveal this kernel recorded."""


def _questions(lang: str = i18n.SOURCE) -> dict:
    """The stored questions: {lesson: [entry, ...]} from data/quizzes/NN.json, or for another language
    its translations {lesson: [{en, question, ...}, ...]}."""
    from importlib.resources import files

    return read_questions(Path(str(files("ddp_lessons").joinpath(QUESTIONS))), lang)


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


def translated_fields(entry: dict) -> tuple[str, ...]:
    """The fields of `entry` a translation holds: question, options and feedback of a multiple-choice
    question; question, unit and explanation of a numeric one."""
    return ("question", "unit", "explanation") if is_numeric(entry) else ("question", "options", "feedback")


def english_hash(entry: dict) -> str:
    """What a translation records of the English entry it translates: a hash of its translated fields
    (the drift test compares it with today's)."""
    text = json.dumps([entry.get(field, "") for field in translated_fields(entry)], ensure_ascii=False)
    return hashlib.sha256(text.encode("utf-8")).hexdigest()[:12]


def is_numeric(entry: dict) -> bool:
    """True for a numeric prediction (no options: the learner types a number)."""
    return entry.get("kind") == "numeric"


def from_entry(entry: dict, lang: str | None = None) -> Quiz:
    """A stored multiple-choice question ``{question, options, feedback, key}`` as a `Quiz` in `lang`."""
    letter = base64.b64decode(entry["key"]).decode().rsplit("-", 1)[1]  # encoded only against peeking
    right = LETTERS.index(letter)
    return Quiz(entry["question"], entry["options"], letter, entry["feedback"][right], entry["feedback"], lang=lang)


def entry(lesson: str, n: int, lang: str | None = None) -> dict:
    """Question `n` of `lesson` as stored, its translatable fields in `lang` when a translation exists."""
    entries = _questions().get(lesson, []) if not lesson.startswith("_") else []
    if not 1 <= n <= len(entries):
        raise ValueError(f"lesson {lesson!r} has no question {n} (it has {len(entries)}) in "
                         f"data/quizzes/{lesson}.json")
    lang = lang or i18n.language()
    translated = _questions(lang).get(lesson, []) if lang != i18n.SOURCE else []
    return in_language(entries[n - 1], translated[n - 1] if n <= len(translated) else None)


def in_language(english: dict, translated: dict | None) -> dict:
    """The English entry with the translatable fields of its translation (unless that is still todo)."""
    if not translated or translated.get("todo"):
        return english
    return {**english, **{field: translated[field] for field in translated_fields(english) if field in translated}}


def form(found: dict, lang: str | None = None) -> Quiz | Prediction:
    """A stored entry as the form that asks it: a `Quiz`, or a `Prediction` for a numeric one."""
    if is_numeric(found):
        return Prediction(found["question"], found.get("unit", ""), found.get("explanation", ""), lang)
    return from_entry(found, lang)


def revealed(found: dict, measured: float, predicted: Answer | None, lang: str | None = None) -> Reveal:
    """A numeric entry's `Reveal` of what a run `measured` beside `predicted`."""
    return Reveal(found["question"], measured, predicted, found.get("unit", ""), found.get("explanation", ""), lang)


def _stored(asked: Form, lesson: str, n: int, kind: str | None) -> Form:
    """`asked` as question `n` of `lesson`: it keeps this kernel's earlier first answer, and commits
    through `_committed`."""
    global _last
    asked.lesson, asked.number, asked.kind = lesson, n, kind
    asked.first = first_answer(lesson, n)
    asked.on_commit = _committed
    _last = asked
    return asked


def ask(lesson: str, n: int = 1, lang: str | None = None) -> Quiz:
    """Multiple-choice question `n` of `lesson` as a `Quiz` (widget in JupyterLab, text elsewhere),
    in the notebook's language (or `lang`) when a translation exists."""
    lang = lang or i18n.language()
    found = entry(lesson, n, lang)
    if is_numeric(found):
        raise ValueError(f"question {n} of lesson {lesson!r} is a numeric prediction: "
                         f'quiz.predict("{lesson}", {n}) asks it')
    return _stored(form(found, lang), lesson, n, found.get("kind"))


def predict(lesson: str, n: int, lang: str | None = None) -> Prediction:
    """Numeric question `n` of `lesson`, asked before the run that measures it: a number box in
    JupyterLab, text elsewhere (answer with ``quiz.check(NUMBER, confidence=...)``)."""
    lang = lang or i18n.language()
    found = entry(lesson, n, lang)
    if not is_numeric(found):
        raise ValueError(f"question {n} of lesson {lesson!r} has options: quiz.ask(\"{lesson}\", {n}) asks it")
    return _stored(form(found, lang), lesson, n, "numeric")


def reveal(lesson: str, n: int, *, measured: float, lang: str | None = None) -> Reveal:
    """After the run: numeric question `n` of `lesson` with the value the run `measured` (computed from
    its records, never typed) beside this kernel's first prediction, if any."""
    lang = lang or i18n.language()
    found = entry(lesson, n, lang)
    if not is_numeric(found):
        raise ValueError(f"question {n} of lesson {lesson!r} is not a numeric prediction")
    if isinstance(measured, bool):
        raise TypeError(f"measured={measured!r}: give the number the run measured")
    measured = float(measured)  # a Python, NumPy or 0-d torch number; anything else raises here
    measured = int(measured) if measured.is_integer() else measured
    shown = revealed(found, measured, first_answer(lesson, n), lang)
    shown.lesson, shown.number = lesson, n
    if (lesson, n) not in _revealed:
        _revealed.add((lesson, n))
        journal.current().append("reveal", lesson=lesson, question=n, measured=measured,
                                 predicted=shown.predicted.given if shown.predicted else None)
    return shown


def first_answer(lesson: str, n: int) -> Answer | None:
    """The first answer to question `n` of `lesson`: this kernel's, else the one the learner's record
    kept from an earlier kernel (`journal`), if any."""
    if (lesson, n) not in _first:
        recorded = _from_record(journal.current().first_answer(lesson, n))
        if recorded is not None:
            _first[(lesson, n)] = recorded
    return _first.get((lesson, n))


def _from_record(event: dict | None) -> Answer | None:
    """A recorded ``answer`` event as the `Answer` the forms compare with (None if it holds none: a line
    edited by hand is read past, not trusted)."""
    given = (event or {}).get("answer")
    if isinstance(given, str) and len(given) == 1 and given in LETTERS:
        given = LETTERS.index(given)
    if isinstance(given, bool) or not isinstance(given, (int, float)):
        return None
    return Answer(given, event.get("confidence"), event.get("correct"), event.get("via", "text"))


def _committed(asked: Form, answer: Answer) -> None:
    """A stored question's first answer: kept for this kernel (the reveal compares with it) and appended
    to the learner's record, unless the record already holds one."""
    _first[(asked.lesson, asked.number)] = answer
    record = journal.current()
    if record and _from_record(record.first_answer(asked.lesson, asked.number)) is None:
        record.append("answer", lesson=asked.lesson, question=asked.number, kind=asked.kind,
                      answer=LETTERS[answer.given] if isinstance(asked, Quiz) else answer.given,
                      correct=answer.correct, confidence=answer.confidence, via=answer.via)


def check(answer: int | float | str, confidence: str | None = None) -> None:
    """Text-mode answer to the last question asked, e.g. ``quiz.check("b", confidence="sure")`` or, after
    ``quiz.predict``, ``quiz.check(4, confidence="guess")``: prints the feedback. The first answer counts."""
    if _last is None:
        raise RuntimeError(tr('no question asked yet: run a quiz.ask("NN", k) cell first'))
    print(_last.commit(answer, confidence))
