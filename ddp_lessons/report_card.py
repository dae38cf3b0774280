"""What the learner's record says (``python -m ddp_lessons progress``, and lesson 00's last cell).

Per lesson: started or finished (every quick check answered), how many quick checks were right the
first time, the exercise's checks passed; calibration: how often an answer given as "sure" (or "I think
so", or "guessing") was right, and how far each numeric prediction was from what the run measured; and
what to revisit: each missed question with the section of the lesson that answers it (its entry's
``revisit``), linked to the lesson file (the Spanish one in Spanish). Only first answers count.

`summarize` is pure (a reading of the record, the stored questions, the exercises' checks, the course's
folder); `card` reads the learner's record; `show` is what lesson 00 displays: this kernel's record,
empty wherever nothing is recorded (nbval, `make course`). A `Card` shows as text, HTML (with its figure,
`plots.report_card`) and JSON (`as_json`), in the notebook's language.
"""

from __future__ import annotations

import base64
import html
import io
import json
import re
from collections import defaultdict
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ddp_lessons import i18n, journal, quiz
from ddp_lessons.base.quiz_forms import CONFIDENCE, amount, confidence_words, off_by
from ddp_lessons.i18n import tr

MISSED_RATIO = 1.5
"""A numeric prediction off by more than this factor is one to revisit."""
CHECK_CALL = re.compile(r"\bchecks\.(\w+)\(")


@dataclass
class Card:
    """The summary of one record; every field plain data (`as_json`)."""

    record: str | None
    events: int
    lessons: list[dict[str, Any]] = field(default_factory=list)
    calibration: dict[str, dict[str, int]] = field(default_factory=dict)
    predictions: list[dict[str, Any]] = field(default_factory=list)
    revisit: list[dict[str, Any]] = field(default_factory=list)
    skipped: list[dict[str, Any]] = field(default_factory=list)
    lang: str = i18n.SOURCE

    def as_json(self) -> dict[str, Any]:
        return {name: getattr(self, name) for name in ("record", "events", "lessons", "calibration", "predictions",
                                                        "revisit", "skipped", "lang")}

    def text(self) -> str:
        return render_text(self)

    def html(self) -> str:
        return render_html(self)

    def figure(self):
        """The figure (`plots.report_card`), or None for an empty record."""
        from ddp_lessons.plots.report_card import plot_report_card

        return plot_report_card(self.as_json()) if self.events else None

    def _repr_mimebundle_(self, include=None, exclude=None):
        """Text and HTML; a card of no record says so in its metadata (the Spanish edition's generator
        writes the same card in Spanish)."""
        data = {"text/plain": self.text(), "text/html": self.html()}
        return (data, {"ddp_lessons": {"report_card": "no record"}}) if self.record is None else data


@dataclass
class _Firsts:
    """What a record holds, first answers only: {(lesson, n): answer event}, {(lesson, n): the latest
    measured value}, {exercise: {check: passed at least once}}, and the lessons or exercises it touches."""

    answers: dict[tuple[str, int], dict] = field(default_factory=dict)
    measured: dict[tuple[str, int], float] = field(default_factory=dict)
    checks: dict[str, dict[str, bool]] = field(default_factory=lambda: defaultdict(dict))
    touched: set[str] = field(default_factory=set)

    @classmethod
    def of(cls, reading: journal.Reading) -> _Firsts:
        found = cls()
        for event in reading.events:
            kind, where = event.get("event"), (event.get("lesson"), event.get("question"))
            if kind == "answer":
                found.answers.setdefault(where, event)  # the first answer is the one that counts
            elif kind == "reveal":
                found.measured[where] = event.get("measured")  # the latest run's
            elif kind == "check":
                passed = found.checks[str(event.get("exercise"))]
                passed[str(event.get("check"))] = passed.get(str(event.get("check")), False) or bool(event.get("passed"))
            found.touched.add(str(event.get("lesson") or event.get("exercise")))
        return found


def summarize(reading: journal.Reading, questions: dict[str, list[dict]], exercises: dict[str, list[str]],
              root: Path | None = None, lang: str | None = None, record: str | None = None) -> Card:
    """The `Card` of `reading` given the stored `questions` ({lesson: entries}), each exercise's checks
    ({"05": ["sampler_shards", ...]}) and the course's folder `root` (for links; None: no links)."""
    firsts = _Firsts.of(reading)
    card = Card(record, len(reading.events), lang=lang or i18n.language(),
                skipped=[{"line": number, "text": text} for number, text in reading.skipped],
                calibration={level: {"right": 0, "answered": 0} for level in CONFIDENCE})
    for lesson in sorted(lesson for lesson in set(questions) | firsts.touched if not lesson.startswith("_")):
        entries = questions.get(lesson, [])
        mine = {n: firsts.answers[(lesson, n)] for n in range(1, len(entries) + 1) if (lesson, n) in firsts.answers}
        card.lessons.append(_lesson_row(lesson, entries, mine, firsts.checks.get(lesson, {}),
                                        exercises.get(lesson, []), lesson in firsts.touched))
        for n, answer in sorted(mine.items()):
            _count(card, lesson, n, entries[n - 1], answer, firsts.measured.get((lesson, n)), root)
    return card


def _lesson_row(lesson: str, entries: list[dict], mine: dict[int, dict], tried: dict[str, bool],
                needed: list[str], started: bool) -> dict[str, Any]:
    """One lesson's line: questions answered and right the first time, the exercise's checks."""
    graded = [answer for answer in mine.values() if answer.get("correct") is not None]
    checks = needed or list(tried)
    return {"lesson": lesson, "started": started, "questions": len(entries), "answered": len(mine),
            "finished": bool(entries) and len(mine) == len(entries),
            "right_first_time": sum(bool(answer["correct"]) for answer in graded), "graded": len(graded),
            "checks_passed": sum(tried.get(name, False) for name in checks), "checks": len(checks),
            "checks_tried": len(tried), "exercise_passed": bool(tried) and all(tried.get(n, False) for n in checks)}


def _count(card: Card, lesson: str, n: int, entry: dict, answer: dict, measured: float | None,
           root: Path | None) -> None:
    """Add one first answer to the card's calibration, predictions and what to revisit."""
    level, missed = answer.get("confidence"), answer.get("correct") is False
    if answer.get("correct") is not None and level in card.calibration:
        card.calibration[level]["answered"] += 1
        card.calibration[level]["right"] += bool(answer["correct"])
    guess = answer.get("answer")
    if quiz.is_numeric(entry) and measured is not None and isinstance(guess, (int, float)):
        ratio = off_by(guess, measured)
        card.predictions.append({"lesson": lesson, "question": n, "predicted": guess, "measured": measured,
                                 "unit": entry.get("unit", ""), "off_by": ratio, "confidence": level})
        missed = (ratio is None and guess != measured) or (ratio or 1) > MISSED_RATIO
    if missed:
        heading = entry.get("revisit", "")
        link, section = section_link(root, lesson, heading, card.lang) if root else (None, heading)
        card.revisit.append({"lesson": lesson, "question": n, "kind": entry.get("kind"), "answer": guess,
                             "confidence": level, "revisit": heading, "section": section, "link": link})


def section_link(root: Path, lesson: str, heading: str, lang: str) -> tuple[str | None, str]:
    """(the lesson file relative to `root` with the anchor JupyterLab gives `heading`, the heading as that
    file writes it): in Spanish, the same section of the Spanish notebook (found by the cell's id).
    No link when the lesson is not there."""
    found = sorted((root / "notebooks").glob(f"{lesson}_*.ipynb"))
    if not found:
        return None, heading
    english, target, shown = found[0], found[0], heading
    if lang != i18n.SOURCE and (root / "notebooks" / lang / english.name).exists():
        target = root / "notebooks" / lang / english.name
        shown = _translated_heading(english, target, heading) or heading
    where = target.relative_to(root).as_posix()
    return (f"{where}#{anchor(shown)}" if heading else where), shown


def _headings(source: str) -> list[str]:
    return [line.lstrip("#").strip() for line in source.splitlines() if line.startswith("#")]


def _translated_heading(english: Path, translated: Path, heading: str) -> str | None:
    """The heading of `translated` in the cell (same id) and place where `english` has `heading`."""
    def markdown(path: Path) -> dict[str, str]:
        cells = json.loads(path.read_text(encoding="utf-8"))["cells"]
        return {cell.get("id"): "".join(cell["source"]) for cell in cells if cell["cell_type"] == "markdown"}

    theirs = markdown(translated)
    for cell, source in markdown(english).items():
        if heading in _headings(source) and cell in theirs:
            mine, other = _headings(source), _headings(theirs[cell])
            return other[mine.index(heading)] if len(other) == len(mine) else None
    return None


def anchor(heading: str) -> str:
    """JupyterLab's anchor of a heading: its text as shown (no backticks or emphasis), spaces as dashes."""
    return re.sub(r"[`*]", "", heading).strip().replace(" ", "-")


def exercise_checks(root: Path) -> dict[str, list[str]]:
    """{exercise: the check functions its check cells call}, from the course's exercises/."""
    import nbformat

    from ddp_lessons.base.exercise_format import is_check_cell

    found = {}
    for path in sorted((root / "exercises").glob("[0-9][0-9]_*.ipynb")):
        cells = nbformat.read(path, as_version=4).cells
        found[path.name[:2]] = list(dict.fromkeys(name for cell in cells if is_check_cell(cell)
                                                  for name in CHECK_CALL.findall(cell.source)))
    return found


def card(path: str | Path | None, root: Path | None = None, lang: str | None = None) -> Card:
    """The `Card` of the record at `path` (None: an empty card), with links into the course at `root`
    (default: the course around the working folder)."""
    root = root or journal.course_root()
    reading = journal.read(path) if path is not None else journal.Reading()
    return summarize(reading, quiz._questions(), exercise_checks(root), root, lang,
                     str(path) if path is not None else None)


def show(lang: str | None = None) -> Card:
    """This kernel's record (a learner's JupyterLab kernel: theirs; nbval, `make course`: none, so an empty
    card, and nothing is read or written)."""
    return card(journal.recording_path(), lang=lang)


# -- how a card reads ------------------------------------------------------------------------------------

def table(card: Card) -> list[list[str]]:
    """The per-lesson table: a header row, then one row per lesson started."""
    lang = card.lang
    rows = [[tr("lesson", lang=lang), tr("quick checks answered", lang=lang), tr("right the first time", lang=lang),
             tr("exercise checks passed", lang=lang)]]
    for row in (row for row in card.lessons if row["started"]):
        rows.append([row["lesson"], f"{row['answered']} / {row['questions']}" + (" ✓" if row["finished"] else ""),
                     f"{row['right_first_time']} / {row['graded']}" if row["graded"] else "-",
                     f"{row['checks_passed']} / {row['checks']}" + (" ✓" if row["exercise_passed"] else "")
                     if row["checks_tried"] else "-"])
    return rows


def lines(card: Card) -> list[str]:
    """The card as lines of text, in its language."""
    lang = card.lang
    if not card.events:
        said = [tr("No answers recorded yet.", lang=lang) if card.record else
                tr("Nothing is recorded in this kernel (nbval, make course, a test): nothing was read or written.",
                   lang=lang)]
        return said + [tr("Answer the quick checks of the lessons in JupyterLab: this then shows which you got right "
                          "the first time, how sure you were, and what to revisit.", lang=lang)] + _skipped(card)
    out = [tr("Your progress ({record}: {events} records)", lang=lang, record=Path(card.record or "").name,
              events=card.events), ""]
    rows = table(card)
    widths = [max(len(row[i]) for row in rows) for i in range(len(rows[0]))]
    out += ["  ".join(cell.ljust(width) for cell, width in zip(row, widths)).rstrip() for row in rows]
    waiting = [row["lesson"] for row in card.lessons if not row["started"]]
    if waiting:
        out.append(tr("Not started yet: {lessons}", lang=lang, lessons=", ".join(waiting)))
    words = confidence_words(lang)
    said = [tr("{level}: right {right} of {answered}", lang=lang, level=words[level], **counts)
            for level, counts in card.calibration.items() if counts["answered"]]
    if said:
        out += ["", tr("How sure you were, and how often you were right: {said}.", lang=lang, said="; ".join(said))]
    if card.predictions:
        out += ["", tr("Numeric predictions:", lang=lang)]
        out += ["  " + tr("{lesson}-{question}: you predicted {predicted}, measured {measured} ({off})", lang=lang,
                          lesson=p["lesson"], question=p["question"], predicted=amount(p["predicted"], p["unit"], lang),
                          measured=amount(p["measured"], p["unit"], lang), off=_off(p, lang)) for p in card.predictions]
    if card.revisit:
        out += ["", tr("To revisit:", lang=lang)]
        for miss in card.revisit:
            sure = " " + tr("(you were sure)", lang=lang) if miss["confidence"] == "sure" else ""
            where = [f"\"{miss['section']}\""] * bool(miss["section"]) + [miss["link"]] * bool(miss["link"])
            out.append(f"  {miss['lesson']}-{miss['question']}{sure}: {' — '.join(where)}")
    else:
        out += ["", tr("Nothing to revisit: every first answer was right.", lang=lang)]
    return out + _skipped(card)


def _off(row: dict, lang: str) -> str:
    if row["off_by"] is None:
        return tr("off by {difference}", lang=lang, difference=amount(abs(row["predicted"] - row["measured"]),
                                                                      row["unit"], lang))
    if row["off_by"] == 1:
        return tr("exactly right", lang=lang)
    return tr("off by {ratio:.3g}×", lang=lang, ratio=row["off_by"])


def _skipped(card: Card) -> list[str]:
    if not card.skipped:
        return []
    numbers = ", ".join(str(s["line"]) for s in card.skipped)
    return ["", tr("Skipped {count} unreadable line(s) of the record (line {numbers}); every other line was read, "
                   "and the file was left as it is.", lang=card.lang, count=len(card.skipped), numbers=numbers)]


def render_text(card: Card) -> str:
    return "\n".join(lines(card))


def render_html(card: Card) -> str:
    """The card as HTML: its lines, the revisit links clickable, and the figure when there is one."""
    parts = ['<div class="ddp-report-card">']
    for line in lines(card):
        escaped = html.escape(line)
        for miss in card.revisit:
            if miss["link"] and html.escape(miss["link"]) in escaped:
                link = html.escape(miss["link"])
                escaped = escaped.replace(link, f'<a href="{_relative_link(miss["link"])}">{link}</a>')
        parts.append(f"<div>{escaped or '&nbsp;'}</div>")
    figure = card.figure()
    if figure is not None:
        import matplotlib.pyplot as plt

        buffer = io.BytesIO()
        figure.savefig(buffer, format="png", dpi=80, bbox_inches="tight")
        plt.close(figure)
        parts.append(f'<img alt="{html.escape(tr("your progress", lang=card.lang))}" '
                     f'src="data:image/png;base64,{base64.b64encode(buffer.getvalue()).decode()}"/>')
    return "\n".join(parts + ["</div>"])


def _relative_link(link: str) -> str:
    """A revisit link as seen from a notebook in notebooks/ (or notebooks/es/), where lesson 00 sits."""
    path, _, fragment = link.partition("#")
    name = Path(path).name
    return f"{name}#{fragment}" if fragment else name
