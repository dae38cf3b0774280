"""`frontend`: the one rule for whether widgets show (quizzes) and whether a live frontend watches (progress)."""
from ddp_lessons import memory_calculator, quiz
from ddp_lessons.base import frontend
from ddp_lessons.runtime import contract, progress


def test_plain_lines_outside_a_jupyter_server_unless_forced(monkeypatch):
    monkeypatch.delenv(contract.PROGRESS_MODE_ENV, raising=False)
    assert not frontend.live_frontend()  # pytest is no kernel
    monkeypatch.setenv(contract.PROGRESS_MODE_ENV, "widgets")
    assert frontend.live_frontend()
    monkeypatch.setenv(contract.PROGRESS_MODE_ENV, "text")
    assert not frontend.live_frontend()


def test_no_widgets_outside_a_kernel():
    assert not frontend.kernel_with_widgets()
    assert set(quiz.Quiz("q?", ["a", "b"], 0)._repr_mimebundle_()) == {"text/plain", "text/html"}


def test_quizzes_the_calculator_and_progress_ask_the_same_rule():
    assert progress.live_frontend is frontend.live_frontend
    assert quiz.mimebundle is memory_calculator.mimebundle is frontend.mimebundle


def test_in_a_kernel_the_widget_joins_the_text_and_html(monkeypatch):
    class Widget:
        def _repr_mimebundle_(self):
            return {"text/plain": "Widget()", "application/vnd.jupyter.widget-view+json": {"model_id": "1"}}

    monkeypatch.setattr(frontend, "kernel_with_widgets", lambda: True)
    assert frontend.mimebundle("q?", "<b>q?</b>", Widget) == {
        "text/plain": "q?", "text/html": "<b>q?</b>", "application/vnd.jupyter.widget-view+json": {"model_id": "1"}}
    monkeypatch.setattr(frontend, "kernel_with_widgets", lambda: False)
    assert frontend.mimebundle("q?", "<b>q?</b>", Widget) == {"text/plain": "q?", "text/html": "<b>q?</b>"}
