"""Ask before you show (issue 30, docs/AUTHORING.md "Predict, commit, observe"): in a lesson that has
the order markers (every lesson 01 on), each prediction is asked before the cell that reveals its answer.

The author marks both cells: the question cell ``{"ddp_lessons": {"question": "06-1"}}``, the cell whose
output (or prose) answers it ``{"ddp_lessons": {"reveals": ["06-1", ...]}}``. Checked on the stored
notebooks, no kernel. Every lesson but the playground (00) must pass every rule, a new lesson included.
"""
from __future__ import annotations

import re
from collections import Counter

import nbformat
import nbformat.v4 as v4
import pytest

from ddp_lessons import quiz
from helpers import NOTEBOOKS

LESSONS = {path.name[:2]: path for path in sorted(NOTEBOOKS.glob("[0-9][0-9]_*.ipynb")) if path.name[:2] != "00"}
NO_NUMBER: dict[str, str] = {}
"""Adopted lessons that measure no number, each with why: they need no numeric prediction."""
FIRST_WITH_TRANSFER = 3
"""From this lesson on, one question brings back an earlier lesson in a new situation, asked at the start."""

ASKED = re.compile(r'^quiz\.(ask|predict)\("(\d\d)", (\d+)\)$')


def markers(cell) -> dict:
    return cell.get("metadata", {}).get("ddp_lessons", {})


def headings(notebook) -> set[str]:
    """Every markdown heading of the notebook, as written after its #s."""
    return {line.lstrip("#").strip() for cell in notebook.cells if cell.cell_type == "markdown"
            for line in cell.source.splitlines() if line.startswith("#")}


def prediction_problems(notebook, lesson: str, entries: list[dict]) -> list[str]:
    """Every way `notebook` (lesson `lesson`, questions `entries`) breaks the rules of ask before you show."""
    problems, asked, revealed = [], {}, {}
    for i, cell in enumerate(notebook.cells):
        found, question = ASKED.match(cell.source.strip()) if cell.cell_type == "code" else None, \
            markers(cell).get("question")
        if question is not None:
            if question in asked:
                problems.append(f"cells {asked[question]} and {i} both carry the marker question {question!r}")
            asked[question] = i
            if not found or f"{found[2]}-{found[3]}" != question:
                problems.append(f"cell {i} carries question {question!r} but is not the cell that asks it")
        elif found:
            problems.append(f"cell {i} asks {found[2]}-{found[3]} without the marker "
                            f'{{"ddp_lessons": {{"question": "{found[2]}-{found[3]}"}}}}')
        for shown in markers(cell).get("reveals", []):
            revealed.setdefault(shown, []).append(i)
    ids = [f"{lesson}-{n}" for n in range(1, len(entries) + 1)]
    problems += [f"cells {where} reveal {name!r}, which is no question of lesson {lesson}"
                 for name, where in revealed.items() if name not in ids]
    sections, clean = headings(notebook), []
    for name, entry in zip(ids, entries):
        kind = entry.get("kind")
        if kind not in quiz.KINDS:
            problems.append(f"{name}: kind {kind!r} is none of {', '.join(quiz.KINDS)}")
        if entry.get("revisit") not in sections:
            problems.append(f"{name}: revisit {entry.get('revisit')!r} is no heading of the lesson")
        if name not in asked:
            problems.append(f"{name}: no cell carries the marker question {name!r}")
        elif kind in ("predict", "numeric"):
            if name not in revealed:
                problems.append(f'{name}: no cell carries {{"reveals": ["{name}"]}} (the cell that answers it)')
            elif min(revealed[name]) < asked[name]:
                problems.append(f"{name}: revealed in cell {min(revealed[name])}, before it is asked in cell "
                                f"{asked[name]}")
            else:
                clean.append(name)
    kinds = Counter(entry.get("kind") for entry in entries)
    if len(clean) < 2:
        problems.append(f"{len(clean)} predictions asked before their reveal ({', '.join(clean) or 'none'}); "
                        f"the contract asks at least 2")
    if kinds["recall"] > 1:
        problems.append(f"{kinds['recall']} recall questions; at most 1")
    if not kinds["numeric"] and lesson not in NO_NUMBER:
        problems.append("no numeric prediction (a lesson that measures no number says why in NO_NUMBER)")
    if int(lesson) >= FIRST_WITH_TRANSFER:
        transfers = [name for name, entry in zip(ids, entries) if entry.get("kind") == "transfer"]
        first_reveal = min((i for where in revealed.values() for i in where), default=len(notebook.cells))
        if not transfers:
            problems.append(f"no transfer question (from lesson {FIRST_WITH_TRANSFER:02d} on, one per lesson)")
        elif all(asked.get(name, first_reveal) >= first_reveal for name in transfers):
            problems.append(f"the transfer question ({', '.join(transfers)}) comes after cell {first_reveal}, "
                            "the first that reveals an answer: ask it at the start")
    return problems


@pytest.mark.parametrize("lesson", LESSONS)
def test_every_lesson_asks_before_it_shows(lesson):
    notebook = nbformat.read(LESSONS[lesson], as_version=4)
    problems = prediction_problems(notebook, lesson, quiz._questions()[lesson])
    assert not problems, f"{LESSONS[lesson].name}:\n" + "\n".join(problems)


def test_every_lesson_is_checked_and_no_number_names_lessons_that_exist():
    assert len(LESSONS) >= 17 and set(NO_NUMBER) <= set(LESSONS)


def test_a_lesson_without_its_markers_fails():
    """Lesson 05 with its order markers taken out fails its test."""
    notebook = nbformat.read(LESSONS["05"], as_version=4)
    for cell in notebook.cells:
        cell.get("metadata", {}).pop("ddp_lessons", None)
    problems = prediction_problems(notebook, "05", quiz._questions()["05"])
    assert any("no cell carries the marker question '05-1'" in p for p in problems)
    assert any("cell" in p and "asks 05-1 without the marker" in p for p in problems)


# -- the rules, on a synthetic lesson 90 ----------------------------------------------------------------

ENTRIES = [{"kind": "transfer", "revisit": "1. Setting"}, {"kind": "predict", "revisit": "1. Setting"},
           {"kind": "numeric", "revisit": "2. Measuring"}, {"kind": "recall", "revisit": "2. Measuring"}]


def code(source: str, **marks):
    return v4.new_code_cell(source, metadata={"ddp_lessons": marks} if marks else {})


def lesson(order: list[str] | None = None, number: str = "90", **changes):
    """A good lesson 90 (or `number`): transfer and predict questions, the launch that reveals them, then
    a numeric prediction, its reveal, and a recall question. `order` re-orders the named cells; `changes`
    replaces some."""
    cells = {"title": v4.new_markdown_cell(f"# Lesson {number}\n## 1. Setting"),
             "q1": code(f'quiz.ask("{number}", 1)', question=f"{number}-1"),
             "q2": code(f'quiz.ask("{number}", 2)', question=f"{number}-2"),
             "q3": code(f'quiz.predict("{number}", 3)', question=f"{number}-3"),
             "launch": code("result = launch.run_torchrun(...)", reveals=[f"{number}-1", f"{number}-2"]),
             "section": v4.new_markdown_cell("## 2. Measuring"),
             "reveal": code(f'quiz.reveal("{number}", 3, measured=4)', reveals=[f"{number}-3"]),
             "q4": code(f'quiz.ask("{number}", 4)', question=f"{number}-4")}
    cells.update(changes)
    return v4.new_notebook(cells=[cells[name] for name in (order or list(cells))])


def test_a_lesson_that_keeps_every_rule_passes():
    assert prediction_problems(lesson(), "90", ENTRIES) == []


def test_a_prediction_asked_after_the_cell_that_reveals_it_fails():
    late = lesson(["title", "q1", "launch", "q2", "q3", "section", "reveal", "q4"])
    assert prediction_problems(late, "90", ENTRIES) == [
        "90-2: revealed in cell 2, before it is asked in cell 3",
        "1 predictions asked before their reveal (90-3); the contract asks at least 2"]


def test_a_question_cell_without_its_marker_or_with_the_wrong_one_fails():
    problems = prediction_problems(lesson(q2=code('quiz.ask("90", 2)'), q4=code('quiz.ask("90", 4)', question="90-3")),
                                   "90", ENTRIES)
    assert 'cell 2 asks 90-2 without the marker {"ddp_lessons": {"question": "90-2"}}' in problems
    assert "cell 7 carries question '90-3' but is not the cell that asks it" in problems
    assert "cells 3 and 7 both carry the marker question '90-3'" in problems


def test_kinds_are_counted():
    two_recalls = [ENTRIES[0], {**ENTRIES[1], "kind": "recall"}, ENTRIES[2], ENTRIES[3]]
    assert "2 recall questions; at most 1" in prediction_problems(lesson(), "90", two_recalls)
    no_number = [ENTRIES[0], ENTRIES[1], {**ENTRIES[2], "kind": "predict"}, ENTRIES[3]]
    assert any(p.startswith("no numeric prediction") for p in prediction_problems(lesson(), "90", no_number))
    no_transfer = [{**ENTRIES[0], "kind": "predict"}, *ENTRIES[1:]]
    assert any(p.startswith("no transfer question") for p in prediction_problems(lesson(), "90", no_transfer))
    assert not prediction_problems(lesson(number="02"), "02", no_transfer)  # before lesson 03 none is needed
    unknown = [{**ENTRIES[0], "kind": "trivia"}, *ENTRIES[1:]]
    assert "90-1: kind 'trivia' is none of predict, transfer, recall, numeric" in prediction_problems(
        lesson(), "90", unknown)


def test_a_transfer_question_comes_first_and_revisit_names_a_heading():
    late = lesson(["title", "q2", "launch", "q1", "q3", "section", "reveal", "q4"])
    assert prediction_problems(late, "90", ENTRIES)[-1].startswith("the transfer question (90-1) comes after cell 2")
    renamed = [{**ENTRIES[0], "revisit": "Setting"}, *ENTRIES[1:]]
    assert prediction_problems(lesson(), "90", renamed) == ["90-1: revisit 'Setting' is no heading of the lesson"]


def test_a_prediction_nothing_reveals_and_a_reveal_of_nothing_fail():
    problems = prediction_problems(lesson(reveal=code('quiz.reveal("90", 3, measured=4)', reveals=["90-9"])),
                                   "90", ENTRIES)
    assert "cells [6] reveal '90-9', which is no question of lesson 90" in problems
    assert '90-3: no cell carries {"reveals": ["90-3"]} (the cell that answers it)' in problems
