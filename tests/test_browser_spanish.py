"""A Spanish learner in a real browser: JupyterLab opens a Spanish lesson from its es/ folder, runs it
all, and a quick-check answer (an option, how sure, Comprobar) gets Spanish feedback (browser.py says what
it needs).

Nothing forces the language: the kernel starts in the notebook's folder, named ``es``, as it does in
``notebooks/es/`` under `make lab-es`.
"""
import shutil

import pytest

from browser import ROOT, SCREENSHOTS, UI_TIMEOUT_MS, notebook_page, require_chromium, serve_lab
from ddp_lessons import i18n, quiz

pytestmark = pytest.mark.browser

LESSON = ROOT / "notebooks" / "es" / "01_why_ddp.ipynb"
"""Lesson 1 runs in seconds on a CPU (its 2-GPU measurement skips), and asks 3 questions."""


@pytest.fixture
def lab(tmp_path):
    """JupyterLab over a scratch course folder holding es/01_why_ddp.ipynb; yields the lesson's URL."""
    require_chromium()
    root = tmp_path / "lab"
    (root / "es").mkdir(parents=True)
    shutil.copy(LESSON, root / "es" / LESSON.name)
    with serve_lab(tmp_path, root, drop_env=(i18n.LANGUAGE_ENV,)) as (base, token, _):
        yield f"{base}/lab/tree/es/{LESSON.name}?token={token}"


def test_a_spanish_lesson_runs_and_its_quick_check_answers_in_spanish(lab):
    from playwright.sync_api import expect

    question = quiz.ask("01", 1, lang="es")
    wrong = next(i for i in range(len(question.options)) if i != question.answer)
    label = "({}) {}".format
    with notebook_page(require_chromium(), lab, "spanish") as page:
        expect(page.locator(".jp-RenderedMarkdown h1", has_text="Lección 1")).to_be_visible()
        page.locator(".lm-MenuBar-itemLabel", has_text="Run").first.click()
        page.locator(".lm-Menu-itemLabel", has_text="Run All Cells").first.click()
        quizzes = page.locator(".ddp-quiz")
        expect(quizzes).to_have_count(3, timeout=UI_TIMEOUT_MS)  # the last cells ran: the lesson ran through
        expect(page.locator(".jp-OutputArea-output[data-mime-type='application/vnd.jupyter.stderr']",
                            has_text="Traceback")).to_have_count(0)
        first = quizzes.first
        expect(first).to_contain_text("Comprobación rápida.")
        expect(first).to_contain_text(question.question)
        feedback = first.locator(".ddp-quiz-feedback")

        first.get_by_text(label("abcd"[wrong], question.options[wrong]), exact=True).click()
        expect(first.locator(".ddp-confidence")).to_contain_text("¿Cuán seguro está?")
        first.locator(".ddp-confidence").get_by_text("creo que sí", exact=True).click()
        first.locator(".ddp-commit", has_text="Comprobar").click()
        expect(feedback).to_have_text(question.check(wrong), timeout=UI_TIMEOUT_MS)
        assert feedback.inner_text().startswith("✗ No exactamente")
        right = question.answer
        first.get_by_text(label("abcd"[right], question.options[right]), exact=True).click()
        recorded = f"(La que queda registrada es su primera respuesta, ({'abcd'[wrong]}).)"
        expect(feedback).to_have_text(f"{question.check(right)} {recorded}", timeout=UI_TIMEOUT_MS)
        assert feedback.inner_text().startswith("✓ Correcto.")
        page.screenshot(path=SCREENSHOTS / "spanish_quiz_feedback.png")
