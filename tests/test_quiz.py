"""Quiz feedback logic and the text fallback (the browser test covers the widget)."""
import pytest

from ddp_lessons import quiz

Q = dict(question="When are gradients all-reduced?",
         options=["in optimizer.step()", "during backward()", "in the DataLoader"],
         answer="b", explanation="DDP's autograd hooks fire as gradients are ready.")


def test_right_answer_gets_correct_with_explanation():
    q = quiz.Quiz(**Q)
    assert q.check("b") == "✓ Correct. DDP's autograd hooks fire as gradients are ready."
    assert q.check(1).startswith("✓") and q.check("during backward()").startswith("✓")


def test_wrong_answer_gets_not_quite_without_revealing():
    feedback = quiz.Quiz(**Q).check("a")
    assert feedback.startswith("✗ Not quite") and "backward" not in feedback


def test_text_fallback_lists_options_and_hides_the_answer():
    text = quiz.Quiz(**Q).text()
    assert "(a) in optimizer.step()" in text and "(c) in the DataLoader" in text
    assert "Correct" not in text


def test_html_fallback_folds_the_answer():
    page = quiz.Quiz(**Q).html()
    assert "<details><summary>Answer</summary><p>(b) during backward()" in page


def test_outside_a_kernel_only_text_is_shown():
    bundle = quiz.ask(**Q)._repr_mimebundle_()
    assert set(bundle) == {"text/plain", "text/html"}


def test_module_level_check_answers_the_last_question(capsys):
    quiz.ask(**Q)
    quiz.check("c")
    assert capsys.readouterr().out.startswith("✗")


@pytest.mark.parametrize("bad", ["z", 7, "", "maybe"])
def test_unknown_choices_are_refused(bad):
    with pytest.raises(ValueError, match="not one of the options"):
        quiz.Quiz(**Q).check(bad)


def test_widget_feedback_updates_on_pick():
    q = quiz.Quiz(**Q)
    box = q.widget()
    choices = box.children[1]
    choices.value = 0
    assert q.feedback_widget.value.startswith("✗")
    choices.value = 1
    assert q.feedback_widget.value.startswith("✓")


LESSONS = [f"{i:02d}" for i in range(1, 10)]


def test_each_stored_wrong_option_explains_its_misconception():
    for lesson, entries in quiz._questions().items():
        if lesson.startswith("_"):
            continue
        for n, entry in enumerate(entries, 1):
            q = quiz.show(lesson, n)
            wrong = [i for i in range(len(q.options)) if i != q.answer]
            assert len(q.options) >= 3 and wrong
            for i in wrong:
                feedback = q.check(i)
                assert feedback.startswith("✗") and feedback.count(" ") > 8, (lesson, n, i)
            assert q.check(q.answer).startswith("✓ Correct.")


def test_answers_are_not_stored_as_plain_letters():
    from importlib.resources import files
    raw = files("ddp_lessons").joinpath("data/quizzes.json").read_text(encoding="utf-8")
    assert '"answer"' not in raw
    for entries in (v for k, v in quiz._questions().items() if not k.startswith("_")):
        for entry in entries:
            assert entry["key"] not in "abcd" and len(entry["key"]) > 4


def test_every_lesson_01_to_09_has_stored_questions():
    questions = quiz._questions()
    assert all(3 <= len(questions.get(lesson, [])) <= 4 for lesson in LESSONS)


def test_show_renders_text_with_the_answer_folded():
    bundle = quiz.show("05", 1)._repr_mimebundle_()
    assert "(c) [3, 7, 1]" in bundle["text/plain"] and "Correct" not in bundle["text/plain"]
    assert "<details><summary>Answer</summary><p>(c) [3, 7, 1]" in bundle["text/html"]


def test_lessons_01_to_09_show_every_stored_question_without_spelling_out_answers():
    import nbformat
    from pathlib import Path
    for lesson in LESSONS:
        (path,) = Path(__file__).parents[1].glob(f"notebooks/{lesson}_*.ipynb")
        code = [c.source for c in nbformat.read(path, as_version=4).cells if c.cell_type == "code"]
        shown = [s for s in code if s.startswith("quiz.show(")]
        assert shown == [f'quiz.show("{lesson}", {n})' for n in range(1, len(quiz._questions()[lesson]) + 1)]
        assert not any("answer=" in s for s in code), path.name
