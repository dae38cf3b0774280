"""What the learner's record says (`report_card`), its figure (`plots.report_card`) and the `progress`
command (`tooling.learner_progress`): text, JSON, figure, English and Spanish, --reset."""
import io
import json
import sys

import nbformat
import nbformat.v4 as v4
import pytest

from ddp_lessons import journal, quiz, report_card
from ddp_lessons.runtime.contract import JOURNAL_ENV
from ddp_lessons.tooling import cli

QUESTIONS = {"90": [
    {"kind": "transfer", "question": "q1", "options": ["a", "b", "c"], "revisit": "1. Setting `it` up"},
    {"kind": "predict", "question": "q2", "options": ["a", "b", "c"], "revisit": "1. Setting `it` up"},
    {"kind": "numeric", "question": "q3", "unit": "buckets", "explanation": "e", "revisit": "2. Measuring"},
    {"kind": "numeric", "question": "q4", "unit": "ms", "explanation": "e", "revisit": "2. Measuring"}]}
EXERCISES = {"90": ["first_check", "second_check"]}


def answer(n, given, correct, confidence):
    return {"event": "answer", "lesson": "90", "question": n, "answer": given, "correct": correct,
            "confidence": confidence}


EVENTS = [answer(1, "a", False, "sure"), answer(1, "b", True, "sure"),  # a second answer: only the first counts
          answer(2, "c", True, "think"), answer(3, 5, None, "guess"), answer(4, 10, None, "sure"),
          {"event": "reveal", "lesson": "90", "question": 3, "measured": 4},
          {"event": "reveal", "lesson": "90", "question": 4, "measured": 2.5},
          {"event": "check", "exercise": "90", "check": "first_check", "passed": False, "hint": "h"},
          {"event": "check", "exercise": "90", "check": "first_check", "passed": True, "hint": None}]


@pytest.fixture
def course(tmp_path):
    """A course folder with lesson 90 in English and Spanish (same cell ids), and exercises/."""
    (tmp_path / "exercises").mkdir()
    (tmp_path / "notebooks" / "es").mkdir(parents=True)
    for lang, texts in (("en", ("# Lesson 90\n## 1. Setting `it` up", "## 2. Measuring")),
                        ("es", ("# Lección 90\n## 1. Preparar `it`", "## 2. Medir"))):
        cells = [v4.new_markdown_cell(texts[0], id="aaaa"), v4.new_code_cell("x = 1", id="bbbb"),
                 v4.new_markdown_cell(texts[1], id="cccc")]
        folder = tmp_path / "notebooks" / ("es" if lang == "es" else "")
        nbformat.write(v4.new_notebook(cells=cells), folder / "90_test.ipynb")
    return tmp_path


def summary(course, lang="en", events=EVENTS, skipped=()):
    return report_card.summarize(journal.Reading(list(events), list(skipped)), QUESTIONS, EXERCISES, course, lang,
                                 "my_progress.jsonl")


def test_first_answers_give_accuracy_calibration_predictions_and_exercise_checks(course):
    card = summary(course)
    (lesson,) = card.lessons
    assert lesson == {"lesson": "90", "started": True, "questions": 4, "answered": 4, "right_first_time": 1, "graded": 2,
                      "finished": True, "checks_passed": 1, "checks": 2, "checks_tried": 1, "exercise_passed": False}
    assert card.calibration == {"sure": {"right": 0, "answered": 1}, "think": {"right": 1, "answered": 1},
                                "guess": {"right": 0, "answered": 0}}
    assert [(p["question"], p["predicted"], p["measured"], p["off_by"]) for p in card.predictions] == [
        (3, 5, 4, 1.25), (4, 10, 2.5, 4.0)]


def test_each_missed_question_points_to_its_section_in_the_lesson(course):
    missed = [(m["question"], m["revisit"], m["link"]) for m in summary(course).revisit]
    assert missed == [(1, "1. Setting `it` up", "notebooks/90_test.ipynb#1.-Setting-it-up"),
                      (4, "2. Measuring", "notebooks/90_test.ipynb#2.-Measuring")]  # 1.25x off is close enough
    spanish = [m["link"] for m in summary(course, "es").revisit]
    assert spanish == ["notebooks/es/90_test.ipynb#1.-Preparar-it", "notebooks/es/90_test.ipynb#2.-Medir"]


def test_the_card_reads_as_text_in_english_and_spanish(course):
    text = summary(course, skipped=[(7, "garbage")]).text()
    assert text.splitlines()[0] == "Your progress (my_progress.jsonl: 9 records)"
    assert "lesson  quick checks answered  right the first time  exercise checks passed" in text
    assert "90      4 / 4 ✓                1 / 2                 1 / 2" in text and "Not started" not in text
    assert "sure: right 0 of 1; I think so: right 1 of 1." in text
    assert "90-3: you predicted 5 buckets, measured 4 buckets (off by 1.25×)" in text
    assert '90-1 (you were sure): "1. Setting `it` up" — notebooks/90_test.ipynb#1.-Setting-it-up' in text
    assert text.endswith("Skipped 1 unreadable line(s) of the record (line 7); every other line was read, and the "
                         "file was left as it is.")
    spanish = summary(course, "es").text()
    assert spanish.startswith("Su progreso (my_progress.jsonl: 9 registros)")
    assert "90-4 (estaba seguro): \"2. Medir\" — notebooks/es/90_test.ipynb#2.-Medir" in spanish


def test_the_html_links_each_section_and_shows_the_figure(course):
    page = summary(course).html()
    assert page.startswith('<div class="ddp-report-card">')
    assert '<a href="90_test.ipynb#1.-Setting-it-up">notebooks/90_test.ipynb#1.-Setting-it-up</a>' in page
    assert '<img alt="your progress" src="data:image/png;base64,' in page


def test_an_empty_record_and_no_record_say_what_to_do(course):
    empty = report_card.summarize(journal.Reading(), QUESTIONS, EXERCISES, course, "en", "my_progress.jsonl")
    assert empty.text().startswith("No answers recorded yet.\nAnswer the quick checks") and empty.figure() is None
    nothing = report_card.Card(None, 0)
    assert nothing.text().startswith("Nothing is recorded in this kernel")
    assert nothing._repr_mimebundle_()[1] == {"ddp_lessons": {"report_card": "no record"}}


def test_the_figure_has_three_panels_in_the_cards_language(course):
    figure = summary(course, "es").figure()
    titles = [ax.get_title() for ax in figure.axes]
    assert titles == ["Comprobaciones rápidas por lección", "Cuán seguro estaba", "Predicciones numéricas"]
    assert [t.get_text() for t in figure.axes[1].get_xticklabels()] == ["seguro", "creo que sí", "adivinando"]
    from ddp_lessons.plots.figures import png_bytes
    assert png_bytes(figure).startswith(b"\x89PNG")


def test_lesson_zero_shows_an_empty_card_and_writes_nothing_under_a_test(tmp_path, monkeypatch):
    for folder in ("notebooks", "exercises"):
        (tmp_path / folder).mkdir()
    monkeypatch.chdir(tmp_path / "notebooks")
    monkeypatch.delenv(JOURNAL_ENV, raising=False)
    shown = report_card.show()
    assert shown.record is None and shown.events == 0 and list(tmp_path.rglob("*.jsonl")) == []


def test_the_stored_lesson_zero_card_is_the_one_show_gives_outside_a_learners_kernel():
    from helpers import NOTEBOOKS
    cells = nbformat.read(NOTEBOOKS / "00_playground.ipynb", as_version=4).cells
    (cell,) = [c for c in cells if "report_card.show()" in c.source]
    (output,) = cell.outputs
    assert output.data["text/plain"] == report_card.Card(None, 0).text()


# -- python -m ddp_lessons progress -----------------------------------------------------------------------

@pytest.fixture
def record(course, monkeypatch):
    """The course's record holding EVENTS (and a corrupt line); lesson 90's questions stored."""
    path = course / journal.FILE
    for event in EVENTS[:4]:
        journal.append_line(path, json.dumps(event))
    journal.append_line(path, "{not json")
    for event in EVENTS[4:]:
        journal.append_line(path, json.dumps(event))
    monkeypatch.setattr(quiz, "_questions", lambda lang="en": QUESTIONS)
    monkeypatch.setenv(JOURNAL_ENV, str(path))
    return path


def progress(*args, stdin=""):
    old = sys.stdin
    sys.stdin = io.StringIO(stdin)
    try:
        return cli.main(["progress", *args])
    finally:
        sys.stdin = old


def test_the_command_prints_the_card_saves_the_figure_and_speaks_spanish(record, course, capsys, tmp_path):
    assert progress("--root", str(course), "--figure", str(tmp_path / "me.png")) == 0
    said = capsys.readouterr().out
    assert said.startswith("Your progress (my_progress.jsonl: 9 records)") and "line 5" in said
    assert (tmp_path / "me.png").read_bytes().startswith(b"\x89PNG")
    assert progress("--root", str(course), "--lang", "es") == 0
    assert capsys.readouterr().out.startswith("Su progreso (my_progress.jsonl: 9 registros)")


def test_the_command_prints_json_for_machines(record, course, capsys):
    assert progress("--root", str(course), "--json") == 0
    found = json.loads(capsys.readouterr().out)
    assert found["events"] == 9 and found["skipped"] == [{"line": 5, "text": "{not json"}]
    assert found["lessons"][0]["right_first_time"] == 1 and found["predictions"][1]["off_by"] == 4.0
    assert found["revisit"][0]["link"] == "notebooks/90_test.ipynb#1.-Setting-it-up"


def test_reset_asks_first_and_keeps_the_old_record(record, course, capsys):
    before = record.read_bytes()
    assert progress("--reset", stdin="n\n") == 1 and record.read_bytes() == before
    assert "Start a new record? The current one" in capsys.readouterr().out
    assert progress("--reset", stdin="") == 1 and record.exists()  # nobody to answer: nothing happens
    assert "add --yes" in capsys.readouterr().out
    assert progress("--reset", stdin="y\n") == 0 and not record.exists()
    (kept,) = course.glob("my_progress.*.jsonl")
    assert kept.read_bytes() == before and "the old one is kept as" in capsys.readouterr().out
    journal.append_line(record, json.dumps(EVENTS[0]))
    assert progress("--reset", "--yes") == 0 and not record.exists()
    assert "Start a new record?" not in capsys.readouterr().out


def test_a_record_turned_off_is_not_read(monkeypatch, capsys, course):
    monkeypatch.setenv(JOURNAL_ENV, "off")
    assert progress("--root", str(course)) == 1
    assert "turned off" in capsys.readouterr().out


def test_a_lesson_not_started_is_listed_apart(course):
    card = report_card.summarize(journal.Reading(list(EVENTS)), {**QUESTIONS, "91": QUESTIONS["90"][:2]}, EXERCISES,
                                 course, "en", "my_progress.jsonl")
    assert [(row["lesson"], row["started"]) for row in card.lessons] == [("90", True), ("91", False)]
    assert "Not started yet: 91" in card.text() and "\n91 " not in card.text()
