"""A real browser: JupyterLab headless, Chromium answers a quiz (an option, how sure, Check) and sees the feedback.

What it needs (Chromium, playwright) and how it starts JupyterLab: tests/browser.py.
"""
import re
import shutil
from pathlib import Path

import nbformat
import pytest

from browser import ROOT, SCREENSHOTS, UI_TIMEOUT_MS, notebook_page, require_chromium, serve_lab, write_notebook
from ddp_lessons import journal, quiz
from ddp_lessons.runtime.contract import JOURNAL_ENV

pytestmark = pytest.mark.browser

LESSON = ROOT / "notebooks" / "04_wrapping_model.ipynb"


def lesson_quiz_cell(lesson: Path = LESSON) -> str:
    """The source of the lesson's quick-check cell."""
    cells = nbformat.read(lesson, as_version=4).cells
    return next(cell.source for cell in cells if cell.cell_type == "code" and cell.source.startswith("quiz.ask("))


def asked(source: str) -> quiz.Quiz:
    """The Quiz that a quick-check cell asks (its options and right answer), run here without a kernel."""
    exec(source, {"quiz": quiz})
    return quiz._last


def quiz_notebook(folder: Path, source: str) -> Path:
    """A notebook holding the lesson's quick-check cell after the import it needs (not run yet)."""
    return write_notebook(folder / "quiz.ipynb", [f"from ddp_lessons import quiz\n\n{source}"])


@pytest.fixture
def record(tmp_path) -> Path:
    """Where the lab's kernel keeps the learner's record (DDP_LESSONS_JOURNAL; not written yet)."""
    return tmp_path / "my_progress.jsonl"


@pytest.fixture
def lab(tmp_path, record):
    """JupyterLab over a scratch folder with the quiz notebook, its kernels recording to `record`;
    yields the notebook URL."""
    notebooks = tmp_path / "lab"
    notebooks.mkdir()
    quiz_notebook(notebooks, lesson_quiz_cell())
    with serve_lab(tmp_path, notebooks, extra_env={JOURNAL_ENV: str(record)}) as (base, token, _):
        yield f"{base}/lab/tree/quiz.ipynb?token={token}"


def test_clicking_answers_shows_not_quite_then_correct(chromium, lab, record):
    """Pick a wrong option and how sure, press Check: the feedback says not quite, and the learner's
    record keeps that first answer; after it, a click on the right option shows its feedback at once
    and records nothing more."""
    from playwright.sync_api import expect

    question = asked(lesson_quiz_cell())
    wrong = next(i for i in range(len(question.options)) if i != question.answer)
    label = "({}) {}".format
    with notebook_page(chromium, lab, "quiz") as page:
        page.keyboard.press("Shift+Enter")
        widget = page.locator(".ddp-quiz")
        feedback = widget.locator(".ddp-quiz-feedback")

        widget.get_by_text(label("abcd"[wrong], question.options[wrong]), exact=True).click()
        widget.locator(".ddp-confidence").get_by_text("sure", exact=True).click()
        widget.locator(".ddp-commit").click()
        expect(feedback).to_have_text(question.check(wrong), timeout=UI_TIMEOUT_MS)
        assert feedback.inner_text().startswith("✗ Not quite")
        page.screenshot(path=SCREENSHOTS / "quiz_not_quite.png")

        right = question.answer
        widget.get_by_text(label("abcd"[right], question.options[right]), exact=True).click()
        recorded = f"(Your first answer, ({'abcd'[wrong]}), is the one recorded.)"
        expect(feedback).to_have_text(f"{question.check(right)} {recorded}", timeout=UI_TIMEOUT_MS)
        assert feedback.inner_text().startswith("✓ Correct.")
        page.screenshot(path=SCREENSHOTS / "quiz_feedback.png")

    (answer,) = journal.read(record).events  # the first answer only, as the widget committed it
    lesson, number = re.match(r'quiz\.ask\("(\d\d)", (\d+)\)', lesson_quiz_cell()).groups()
    assert {key: answer[key] for key in ("event", "lesson", "question", "answer", "correct", "confidence", "via")} == {
        "event": "answer", "lesson": lesson, "question": int(number), "answer": "abcd"[wrong], "correct": False,
        "confidence": "sure", "via": "widget"}


def test_the_lesson_quiz_cell_asks_a_question_with_one_right_answer():
    question = asked(lesson_quiz_cell())
    assert len(question.options) >= 3 and question.check(question.answer).startswith("✓ Correct.")


def test_missing_chromium_fails_under_ci_and_skips_elsewhere_with_install_hint(monkeypatch):
    monkeypatch.setattr(shutil, "which", lambda name: None)
    monkeypatch.setenv("CI", "true")
    with pytest.raises(pytest.fail.Exception, match="sudo apt-get install chromium"):
        require_chromium()
    monkeypatch.delenv("CI")
    with pytest.raises(pytest.skip.Exception, match="sudo apt-get install chromium"):
        require_chromium()
