"""Quiz feedback logic and the text fallback (the browser test covers the widget)."""
from pathlib import Path

import nbformat
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


def test_html_fallback_ends_the_answer_with_one_period_whether_or_not_the_option_has_one():
    for option in ("during backward()", "during backward()."):
        page = quiz.Quiz(**{**Q, "options": ["in optimizer.step()", option, "in the DataLoader"]}).html()
        assert "<p>(b) during backward(). DDP&#x27;s autograd hooks" in page, page
        assert ".." not in page


def test_outside_a_kernel_only_text_is_shown():
    bundle = quiz.Quiz(**Q)._repr_mimebundle_()
    assert set(bundle) == {"text/plain", "text/html"}


def test_module_level_check_answers_the_last_question_asked(capsys):
    asked = quiz.ask("05", 2)
    quiz.check(asked.answer)
    assert capsys.readouterr().out.startswith("✓ Correct.")
    quiz.check((asked.answer + 1) % len(asked.options))
    assert capsys.readouterr().out.startswith("✗ Not quite")


def test_ask_takes_a_lesson_and_a_question_number_only():
    with pytest.raises(TypeError):
        quiz.ask(**Q)  # the inline form (question, options, answer=...) is gone: answers live in the data file
    with pytest.raises(ValueError, match="has no question 9"):
        quiz.ask("05", 9)
    with pytest.raises(ValueError, match="has no question 1"):
        quiz.ask("_comment", 1)


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


LESSONS = sorted(path.name[:2] for path in (Path(__file__).parents[1] / "notebooks").glob("[0-9][0-9]_*.ipynb")
                 if path.name[:2] != "00")  # every lesson but the playground


def stored_lessons() -> list[str]:
    return [lesson for lesson in quiz._questions() if not lesson.startswith("_")]


def test_each_stored_wrong_option_explains_its_misconception():
    for lesson in stored_lessons():
        for n, entry in enumerate(quiz._questions()[lesson], 1):
            q = quiz.ask(lesson, n)
            assert len(q.options) >= 3 and len(entry["feedback"]) == len(q.options), (lesson, n)
            assert len(set(entry["feedback"])) == len(q.options), (lesson, n)  # one line per option, no copies
            for i in (i for i in range(len(q.options)) if i != q.answer):
                feedback = q.check(i)
                assert feedback.startswith("✗") and len(entry["feedback"][i].split()) >= 6, (lesson, n, i)
            assert q.check(q.answer).startswith("✓ Correct.") and len(q.explanation.split()) > 8


def test_answers_are_not_stored_as_plain_letters():
    from importlib.resources import files
    for path in files("ddp_lessons").joinpath(quiz.QUESTIONS).iterdir():
        if path.name.endswith(".json"):
            assert '"answer"' not in path.read_text(encoding="utf-8"), path.name
    for lesson in stored_lessons():
        for entry in quiz._questions()[lesson]:
            assert entry["key"] not in "abcd" and len(entry["key"]) > 4


def test_every_lesson_has_3_to_4_stored_questions():
    questions = quiz._questions()
    assert sorted(stored_lessons()) == LESSONS
    assert all(3 <= len(questions[lesson]) <= 4 for lesson in LESSONS), {k: len(questions[k]) for k in LESSONS}


def test_ask_renders_text_with_the_answer_folded():
    bundle = quiz.ask("05", 2)._repr_mimebundle_()
    assert "(c) [3, 7, 1]" in bundle["text/plain"] and "Correct" not in bundle["text/plain"]
    assert "<details><summary>Answer</summary><p>(c) [3, 7, 1]" in bundle["text/html"]


def lesson_cells(lesson: str) -> tuple[str, list]:
    """(notebook name, its code cells) of lesson `lesson`."""
    (path,) = Path(__file__).parents[1].glob(f"notebooks/{lesson}_*.ipynb")
    return path.name, [c for c in nbformat.read(path, as_version=4).cells if c.cell_type == "code"]


def lesson_code(lesson: str) -> tuple[str, list[str]]:
    """(notebook name, sources of its code cells) of lesson `lesson`."""
    name, cells = lesson_cells(lesson)
    return name, [c.source for c in cells]


@pytest.mark.parametrize("lesson", LESSONS)
def test_each_lesson_asks_exactly_its_stored_questions_in_order(lesson):
    name, code = lesson_code(lesson)
    asked = [s for s in code if "quiz." in s]
    stored = len(quiz._questions()[lesson])
    assert asked == [f'quiz.ask("{lesson}", {n})' for n in range(1, stored + 1)], name
    assert sum(s.count("quiz.ask(") for s in code) == stored, name


@pytest.mark.parametrize("lesson", LESSONS)
def test_no_lesson_spells_out_an_answer_in_its_source(lesson):
    name, code = lesson_code(lesson)
    for source in code:
        assert "answer=" not in source and "explanation=" not in source and "Quiz(" not in source, name
        for entry in quiz._questions()[lesson]:  # no stored feedback (the explanations) written in a cell
            assert not any(line[:60] in source for line in entry["feedback"]), name


@pytest.mark.parametrize("lesson", LESSONS)
def test_stored_quiz_outputs_show_the_questions_stored_today(lesson):
    name, cells = lesson_cells(lesson)
    for cell in (c for c in cells if c.source.startswith("quiz.ask(")):
        shown = eval(cell.source, {"quiz": quiz})  # e.g. quiz.ask("07", 1), run here without a kernel
        (result,) = [o for o in cell.outputs if o.output_type == "execute_result"]
        assert result.data["text/plain"] == shown.text(), (name, cell.source, "re-store the lesson")
        assert result.data["text/html"] == shown.html(), (name, cell.source, "re-store the lesson")
