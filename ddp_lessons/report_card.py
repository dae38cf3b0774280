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

        return plot_report_card(self.as_json()) if self.lessons else None

    def _repr_mimebundle_(self, include=None, exclude=None):
        """Text and HTML; a card of no record says so in its metadata (the Spanish edition's generator
        writes the same card in Spanish)."""
        data = {"text/plain": self.text(), "text/html": self.html()}
        return (data, {"ddp_lessons": {"report_card": "no record"}}) if self.record is None else data


def summarize(reading: journal.Reading, questions: dict[str, list[dict]], exercises: dict[str, list[str]],
              root: Path | None = None, lang: str | None = None, record: str | None = None) -> Card:
    """The `Card` of `reading` given the stored `questions` ({lesson: entries}), each exercise's checks
    ({"05": ["sampler_shards", ...]}) and the course's folder `root` (for links; None: no links)."""
    lang = lang or i18n.language()
    answers: dict[tuple[str, int], dict] = {}
    measured: dict[tuple[str, int], float] = {}
    checks: dict[str, dict[str, bool]] = defaultdict(dict)
    touched: set[str] = set()
    for event in reading.events:
        kind = event.get("event")
        if kind == "answer":
            answers.setdefault((event.get("lesson"), event.get("question")), event)  # the first counts
        elif kind == "reveal":
            measured[(event.get("lesson"), event.get("question"))] = event.get("measured")  # the latest run
        elif kind == "check":
            name = str(event.get("check"))
            checks[str(event.get("exercise"))][name] = checks[str(event.get("exercise"))].get(name, False) \
                or bool(event.get("passed"))
        touched.add(str(event.get("lesson") or event.get("exercise")))
    card = Card(record, len(reading.events), lang=lang,
                skipped=[{"line": number, "text": text} for number, text in reading.skipped])
    calibration = {level: {"right": 0, "answered": 0} for level in CONFIDENCE}
    for lesson in sorted(set(questions) | touched):
        if lesson not in touched or lesson.startswith("_"):
            continue
        entries = questions.get(lesson, [])
        mine = {n: answers[(lesson, n)] for n in range(1, len(entries) + 1) if (lesson, n) in answers}
        graded = [a for a in mine.values() if a.get("correct") is not None]
        tried, needed = checks.get(lesson, {}), exercises.get(lesson, [])
        card.lessons.append({
            "lesson": lesson, "questions": len(entries), "answered": len(mine),
            "right_first_time": sum(bool(a["correct"]) for a in graded), "graded": len(graded),
            "finished": bool(entries) and len(mine) == len(entries),
            "checks_passed": sum(tried.get(name, False) for name in needed or tried),
            "checks": len(needed or tried), "checks_tried": len(tried),
            "exercise_passed": bool(tried) and all(tried.get(name, False) for name in needed or tried)})
        for n, answer in sorted(mine.items()):
            entry = entries[n - 1]
            level = answer.get("confidence")
            if answer.get("correct") is not None and level in calibration:
                calibration[level]["answered"] += 1
                calibration[level]["right"] += bool(answer["correct"])
            missed = answer.get("correct") is False
            if quiz.is_numeric(entry) and (lesson, n) in measured and isinstance(answer.get("answer"), (int, float)):
                ratio = off_by(answer["answer"], measured[(lesson, n)])
                card.predictions.append({"lesson": lesson, "question": n, "predicted": answer["answer"],
                                         "measured": measured[(lesson, n)], "unit": entry.get("unit", ""),
                                         "off_by": ratio, "confidence": level})
                missed = ratio is None and answer["answer"] != measured[(lesson, n)] or (ratio or 1) > MISSED_RATIO
            if missed:
                heading = entry.get("revisit", "")
                card.revisit.append({"lesson": lesson, "question": n, "kind": entry.get("kind"),
                                     "answer": answer.get("answer"), "confidence": level, "revisit": heading,
                                     "link": section_link(root, lesson, heading, lang) if root else None})
    card.calibration = calibration
    return card


def section_link(root: Path, lesson: str, heading: str, lang: str) -> str | None:
    """The lesson file (relative to `root`) and the anchor JupyterLab gives `heading`; in Spanish, the same
    section of the Spanish notebook (found by the cell's id). None when the lesson is not there."""
    found = sorted((root / "notebooks").glob(f"{lesson}_*.ipynb"))
    if not found:
        return None
    english, target = found[0], found[0]
    shown = heading
    if lang != i18n.SOURCE and (root / "notebooks" / lang / english.name).exists():
        target = root / "notebooks" / lang / english.name
        shown = _translated_heading(english, target, heading) or heading
    return f"{target.relative_to(root).as_posix()}#{anchor(shown)}" if heading else target.relative_to(root).as_posix()


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
    from ddp_lessons.base.exercise_format import is_check_cell

    found = {}
    for path in sorted((root / "exercises").glob("[0-9][0-9]_*.ipynb")):
        import nbformat

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
    """The per-lesson table: a header row, then one row per lesson the record touches."""
    lang = card.lang
    rows = [[tr("lesson", lang=lang), tr("quick checks answered", lang=lang), tr("right the first time", lang=lang),
             tr("exercise checks passed", lang=lang)]]
    for row in card.lessons:
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
    words = confidence_words(lang)
    said = [tr("{level}: right {right} of {answered}", lang=lang, level=words[level], **counts)
            for level, counts in card.calibration.items() if counts["answered"]]
    if said:
        out += ["", tr("How sure you were, and how often you were right: {said}.", lang=lang, said="; ".join(said))]
    if card.predictions:
        out += ["", tr("Numeric predictions:", lang=lang)]
        out += ["  " + tr("{lesson}-{question}: you predicted {predicted}, measured {measured} ({off})", lang=lang,
                          lesson=p["lesson"], question=p["question"], predicted=amount(p["predicted"], p["unit"]),
                          measured=amount(p["measured"], p["unit"]), off=_off(p, lang)) for p in card.predictions]
    if card.revisit:
        out += ["", tr("To revisit:", lang=lang)]
        for miss in card.revisit:
            sure = " " + tr("(you were sure)", lang=lang) if miss["confidence"] == "sure" else ""
            where = [f"\"{miss['revisit']}\""] * bool(miss["revisit"]) + [miss["link"]] * bool(miss["link"])
            out.append(f"  {miss['lesson']}-{miss['question']}{sure}: {' — '.join(where)}")
    else:
        out += ["", tr("Nothing to revisit: every first answer was right.", lang=lang)]
    return out + _skipped(card)


def _off(row: dict, lang: str) -> str:
    if row["off_by"] is None:
        return tr("off by {difference}", lang=lang, difference=amount(abs(row["predicted"] - row["measured"]),
                                                                      row["unit"]))
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
                escaped = escaped.replace(link, f'<a href="{_relative_link(card, miss["link"])}">{link}</a>')
        parts.append(f"<div>{escaped or '&nbsp;'}</div>")
    figure = card.figure() if card.lessons else None
    if figure is not None:
        import matplotlib.pyplot as plt

        buffer = io.BytesIO()
        figure.savefig(buffer, format="png", dpi=80, bbox_inches="tight")
        plt.close(figure)
        parts.append(f'<img alt="{html.escape(tr("your progress", lang=card.lang))}" '
                     f'src="data:image/png;base64,{base64.b64encode(buffer.getvalue()).decode()}"/>')
    return "\n".join(parts + ["</div>"])


def _relative_link(card: Card, link: str) -> str:
    """A revisit link as seen from a notebook in notebooks/ (or notebooks/es/), where lesson 00 sits."""
    path, _, fragment = link.partition("#")
    name = Path(path).name
    return f"{name}#{fragment}" if fragment else name
