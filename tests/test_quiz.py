"""Quiz feedback logic and the text fallback (the browser test covers the widget)."""
import re
from pathlib import Path

import nbformat
import pytest

from ddp_lessons import quiz
from ddp_lessons.base import quiz_forms

@pytest.fixture(autouse=True)
def fresh_kernel(monkeypatch):
    """Each test answers as in a fresh kernel: no question asked, no first answers kept."""
    monkeypatch.setattr(quiz, "_first", {})
    monkeypatch.setattr(quiz, "_last", None)
    monkeypatch.setattr(quiz, "_revealed", set())


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


def test_code_spans_show_as_code_in_html_and_without_backticks_on_widget_labels():
    asked = quiz.Quiz(question="What does `x < y` print?", options=["`True`", "False"], answer=0,
                      explanation="`<` compares.", feedback=["", "No."])
    page = asked.html()
    assert "`" not in page
    assert "<code>x &lt; y</code>" in page and "<li>(a) <code>True</code></li>" in page
    assert "<p>(a) <code>True</code>. <code>&lt;</code> compares.</p>" in page
    radio = asked.widget().children[1]
    assert [label for label, _ in radio.options] == ["(a) True", "(b) False"]
    assert asked.text().splitlines()[0] == "What does `x < y` print?"  # a terminal shows the backticks


def test_outside_a_kernel_only_text_is_shown():
    bundle = quiz.Quiz(**Q)._repr_mimebundle_()
    assert set(bundle) == {"text/plain", "text/html"}


def test_module_level_check_answers_the_last_question_asked(capsys):
    asked = quiz.ask("05", 4)
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


def widget_parts(box):
    """(options, how sure, the Check/Commit button, feedback) of a quiz or prediction widget."""
    _, first, sure, button, feedback = box.children
    return (first.children[0] if hasattr(first, "children") else first), sure, button, feedback


def test_the_widget_commits_only_once_an_answer_and_how_sure_are_picked():
    q = quiz.Quiz(**Q)
    choices, sure, button, feedback = widget_parts(q.widget())
    choices.value = 0  # a click on (a): nothing is committed before Check
    assert feedback.value == "" and q.first is None
    button.click()
    assert "how sure you are" in feedback.value and q.first is None
    sure.value = "think"
    button.click()
    assert feedback.value.startswith("✗ Not quite: (a)") and q.first == quiz.Answer(0, "think", False, "widget")


def test_later_clicks_get_feedback_but_the_first_answer_stays_recorded():
    q = quiz.Quiz(**Q)
    choices, sure, button, feedback = widget_parts(q.widget())
    choices.value, sure.value = 2, "sure"
    button.click()
    choices.value = 1  # after the first Check, each click shows its feedback at once
    assert feedback.value.startswith("✓ Correct.") and "(c), is the one recorded" in feedback.value
    sure.value = "guess"
    button.click()
    assert q.first == quiz.Answer(2, "sure", False, "widget")


def test_text_mode_commits_the_first_answer_and_takes_an_optional_confidence(capsys):
    asked = quiz.ask("05", 2)
    wrong = (asked.answer + 1) % len(asked.options)
    quiz.check(wrong)
    assert capsys.readouterr().out.startswith("✗ Not quite") and asked.first.confidence is None
    quiz.check(asked.answer, confidence="sure")
    said = capsys.readouterr().out
    assert said.startswith("✓ Correct.") and f"({'abcd'[wrong]}), is the one recorded" in said
    assert quiz.first_answer("05", 2) == quiz.Answer(wrong, None, False, "text")
    assert quiz.ask("05", 2).first == asked.first  # running the cell again keeps the commitment


def test_a_confidence_outside_the_three_levels_is_refused():
    with pytest.raises(ValueError, match='say "sure", "think"'):
        quiz.Quiz(**Q).commit("b", confidence="very")


def test_the_widget_and_the_text_fallback_record_alike():
    by_widget, by_text = quiz.Quiz(**Q), quiz.Quiz(**Q)
    choices, sure, button, _ = widget_parts(by_widget.widget())
    choices.value, sure.value = 1, "guess"
    button.click()
    by_text.commit("b", confidence="guess")
    assert (by_widget.first.given, by_widget.first.confidence, by_widget.first.correct) == \
        (by_text.first.given, by_text.first.confidence, by_text.first.correct) == (1, "guess", True)


P = dict(question="How many buckets?", unit="buckets", explanation="Whole gradients, closed at the cap.")


def test_a_prediction_is_committed_once_and_the_reveal_says_how_far_off_it_was():
    guess = quiz.Prediction(**P)
    assert guess.commit("5", confidence="think").startswith("Prediction recorded: 5 buckets (I think so).")
    assert guess.commit(3) == "Your first prediction, 5 buckets, is the one compared with the measurement."
    shown = quiz.Reveal(P["question"], 4, guess.first, "buckets", P["explanation"])
    assert shown.verdict() == "You predicted 5 buckets, measured 4 buckets (off by 1.25×)."
    assert quiz.Reveal("q", 4, quiz.Answer(1, None, None), "buckets").verdict().endswith("(off by 4×).")
    assert quiz.Reveal("q", 4, quiz.Answer(4, "sure", None)).verdict() == "You predicted 4, measured 4: exactly right."
    assert quiz.Reveal("q", 3, quiz.Answer(0, "sure", None)).verdict() == "You predicted 0, measured 3 (off by 3)."


def test_the_reveal_writes_numbers_as_the_notebook_s_language_does():
    """English writes a decimal point, Spanish a decimal comma: the prediction, the measurement, how far off."""
    shown = {lang: quiz.Reveal("q", 2.5, quiz.Answer(1.25, "sure", None), "s", lang=lang).verdict()
             for lang in ("en", "es")}
    assert shown["en"] == "You predicted 1.25 s, measured 2.5 s (off by 2×)."
    assert shown["es"] == "Usted predijo 1,25 s; se midió 2,5 s (error de 2×)."
    ratio = {lang: quiz.Reveal("q", 4, quiz.Answer(5, None, None), lang=lang).verdict() for lang in ("en", "es")}
    assert ratio["en"].endswith("(off by 1.25×).") and ratio["es"].endswith("(error de 1,25×).")
    apart = {lang: quiz.Reveal("q", 0.5, quiz.Answer(-1, None, None), lang=lang).verdict() for lang in ("en", "es")}
    assert apart["en"].endswith("(off by 1.5).") and apart["es"].endswith("(error de 1,5).")
    recorded = quiz.Prediction("q", "s", lang="es")
    assert recorded.commit("0,75").startswith("Predicción registrada: 0,75 s.")


def test_the_number_box_commits_with_how_sure_and_explains_a_bad_number():
    guess = quiz.Prediction(**P)
    box, sure, button, feedback = widget_parts(guess.widget())
    box.value = "four"
    sure.value = "sure"
    button.click()
    assert feedback.value == "&#x27;four&#x27; is not a number" and guess.first is None
    box.value = "4"
    button.click()
    assert guess.first == quiz.Answer(4, "sure", None, "widget") and "Prediction recorded: 4 buckets" in feedback.value


@pytest.mark.parametrize("typed, lang, number", [("4", "en", 4), (" 2.5 ", "en", 2.5), ("1e6", "en", 1_000_000),
                                                 ("1,000", "en", 1000), ("1,5", "es", 1.5), (7, "en", 7)])
def test_numbers_are_read_as_a_learner_types_them(typed, lang, number):
    assert quiz_forms.parse_number(typed, lang) == number


def test_without_a_prediction_the_reveal_shows_the_measurement_and_says_none_was_made():
    shown = quiz.Reveal(P["question"], 4, None, "buckets", P["explanation"])
    assert shown.text().splitlines()[1] == ("Measured: 4 buckets. No prediction was made in this kernel "
                                            "(quiz.predict asks for one before the run).")
    page = shown.html()
    assert page.startswith('<div class="ddp-reveal">') and "<details><summary>Measured</summary><p>Measured: 4" in page
    assert "<details open>" in quiz.Reveal("q", 4, quiz.Answer(3, "sure", None)).html()


def test_the_prediction_stores_text_and_html_without_the_answer():
    guess = quiz.Prediction(**P)
    assert guess.text().startswith("Predict. How many buckets?") and "quiz.check(NUMBER" in guess.text()
    assert guess.html().startswith('<div class="ddp-predict"><p><b>Predict.</b> How many buckets?')
    assert "Whole gradients" not in guess.text() + guess.html()


def test_forms_speak_spanish():
    guess = quiz.Prediction(**{**P, "unit": "buckets"}, lang="es")
    assert guess.commit("1,5", confidence="guess") == ("Predicción registrada: 1,5 buckets (adivinando). Ejecute las "
                                                      "celdas siguientes: la ejecución lo mide.")
    assert quiz.Reveal("q", 3, guess.first, "buckets", lang="es").verdict() == \
        "Usted predijo 1,5 buckets; se midió 3 buckets (error de 2×)."


LESSONS = sorted(path.name[:2] for path in (Path(__file__).parents[1] / "notebooks").glob("[0-9][0-9]_*.ipynb")
                 if path.name[:2] != "00")  # every lesson but the playground


def stored_lessons() -> list[str]:
    return [lesson for lesson in quiz._questions() if not lesson.startswith("_")]


def choice_entries():
    """(lesson, number, entry) of every stored multiple-choice question."""
    return [(lesson, n, entry) for lesson in stored_lessons() for n, entry in enumerate(quiz._questions()[lesson], 1)
            if not quiz.is_numeric(entry)]


def test_each_stored_wrong_option_explains_its_misconception():
    for lesson, n, entry in choice_entries():
        q = quiz.ask(lesson, n)
        assert len(q.options) >= 3 and len(entry["feedback"]) == len(q.options), (lesson, n)
        assert len(set(entry["feedback"])) == len(q.options), (lesson, n)  # one line per option, no copies
        for i in (i for i in range(len(q.options)) if i != q.answer):
            feedback = q.check(i)
            assert feedback.startswith("✗") and len(entry["feedback"][i].split()) >= 6, (lesson, n, i)
        assert q.check(q.answer).startswith("✓ Correct.") and len(q.explanation.split()) > 8


def test_each_stored_numeric_question_has_an_explanation_and_no_options():
    for lesson in stored_lessons():
        for n, entry in enumerate(quiz._questions()[lesson], 1):
            if quiz.is_numeric(entry):
                assert not {"options", "feedback", "key"} & set(entry), (lesson, n)
                assert len(entry["explanation"].split()) > 8 and entry["question"].strip(), (lesson, n)


def test_answers_are_not_stored_as_plain_letters():
    from importlib.resources import files
    for path in files("ddp_lessons").joinpath(quiz.QUESTIONS).iterdir():
        if path.name.endswith(".json"):
            assert '"answer"' not in path.read_text(encoding="utf-8"), path.name
    for _, _, entry in choice_entries():
        assert entry["key"] not in "abcd" and len(entry["key"]) > 4


def test_every_lesson_has_3_to_4_stored_questions():
    questions = quiz._questions()
    assert sorted(stored_lessons()) == LESSONS
    assert all(3 <= len(questions[lesson]) <= 4 for lesson in LESSONS), {k: len(questions[k]) for k in LESSONS}


def test_ask_renders_text_with_the_answer_folded():
    bundle = quiz.ask("05", 2)._repr_mimebundle_()
    assert "(c) [1, 4, 7, 10]" in bundle["text/plain"] and "Correct" not in bundle["text/plain"]
    assert "<details><summary>Answer</summary><p>(c) [1, 4, 7, 10]" in bundle["text/html"]


@pytest.fixture
def stored(monkeypatch, tmp_path):
    """Lesson 90's questions in a scratch folder: a multiple-choice one, then a numeric prediction."""
    choice = {"question": "Which?", "options": ["x", "y", "z"], "feedback": ["no x", "yes y", "no z"],
              "key": "OTAtMS1i", "kind": "predict", "revisit": "1. A"}
    number = {"question": "How many buckets at a 2 MiB cap?", "unit": "buckets", "kind": "numeric",
              "explanation": "Whole gradients, closed once the bucket reaches the cap.", "revisit": "2. B"}
    quiz.write_questions(tmp_path, "90", [choice, number])
    monkeypatch.setattr(quiz, "_questions", lambda lang="en": quiz.read_questions(tmp_path, lang))
    return choice, number


def test_predict_then_reveal_compares_the_run_with_this_kernels_first_prediction(stored, capsys):
    asked = quiz.predict("90", 2)
    assert asked.text().startswith("Predict. How many buckets at a 2 MiB cap?")
    quiz.check(5, confidence="think")
    quiz.check(4)
    assert capsys.readouterr().out.splitlines()[1] == ("Your first prediction, 5 buckets, is the one compared "
                                                       "with the measurement.")
    shown = quiz.reveal("90", 2, measured=4)
    assert shown.text().splitlines()[1:] == ["You predicted 5 buckets, measured 4 buckets (off by 1.25×).",
                                             "Whole gradients, closed once the bucket reaches the cap."]
    data, metadata = shown._repr_mimebundle_()
    assert metadata == {"ddp_lessons": {"reveal": {"lesson": "90", "question": 2, "measured": 4}}}


def test_a_reveal_without_a_prediction_says_so_and_takes_a_measured_array_scalar(stored):
    import numpy
    shown = quiz.reveal("90", 2, measured=numpy.int64(4))
    assert shown.verdict().startswith("Measured: 4 buckets. No prediction was made in this kernel")


def test_each_form_asks_only_its_kind_of_question(stored):
    with pytest.raises(ValueError, match=r'numeric prediction: quiz.predict\("90", 2\) asks it'):
        quiz.ask("90", 2)
    with pytest.raises(ValueError, match=r'has options: quiz.ask\("90", 1\) asks it'):
        quiz.predict("90", 1)
    with pytest.raises(ValueError, match="not a numeric prediction"):
        quiz.reveal("90", 1, measured=1)
    with pytest.raises((TypeError, ValueError)):
        quiz.reveal("90", 2, measured="four")


def test_a_translation_changes_only_the_words(stored, tmp_path):
    choice, number = stored
    spanish = {"en": quiz.english_hash(number), "question": "¿Cuántos buckets?", "unit": "buckets",
               "explanation": "Gradientes enteros."}
    quiz.write_questions(tmp_path, "90", [{"en": quiz.english_hash(choice), "todo": True}, spanish], "es")
    assert quiz.entry("90", 2, "es") == {**number, "question": "¿Cuántos buckets?", "explanation": "Gradientes enteros."}
    assert quiz.entry("90", 1, "es") == choice  # still todo: the English
    assert quiz.english_hash(choice) == quiz.english_hash({**choice, "kind": "recall", "revisit": "3. C"})


def lesson_cells(lesson: str) -> tuple[str, list]:
    """(notebook name, its code cells) of lesson `lesson`."""
    (path,) = Path(__file__).parents[1].glob(f"notebooks/{lesson}_*.ipynb")
    return path.name, [c for c in nbformat.read(path, as_version=4).cells if c.cell_type == "code"]


def lesson_code(lesson: str) -> tuple[str, list[str]]:
    """(notebook name, sources of its code cells) of lesson `lesson`."""
    name, cells = lesson_cells(lesson)
    return name, [c.source for c in cells]


ASKED = re.compile(r'^quiz\.(ask|predict)\("(\d\d)", (\d+)\)$')


@pytest.mark.parametrize("lesson", LESSONS)
def test_each_lesson_asks_exactly_its_stored_questions_in_order(lesson):
    """One cell per question, nothing else in it: quiz.ask for options, quiz.predict for a number; a
    numeric one is revealed by one quiz.reveal cell after it."""
    name, code = lesson_code(lesson)
    entries = quiz._questions()[lesson]
    asked = [s for s in code if "quiz." in s and "quiz.reveal(" not in s]
    assert asked == [f'quiz.{"predict" if quiz.is_numeric(e) else "ask"}("{lesson}", {n})'
                     for n, e in enumerate(entries, 1)], name
    assert sum(s.count("quiz.ask(") + s.count("quiz.predict(") for s in code) == len(entries), name
    for n, entry in enumerate(entries, 1):
        reveals = [i for i, s in enumerate(code) if f'quiz.reveal("{lesson}", {n},' in s]
        if quiz.is_numeric(entry):
            asked_at = code.index(f'quiz.predict("{lesson}", {n})')
            assert len(reveals) == 1 and reveals[0] > asked_at, (name, n, "one quiz.reveal cell after quiz.predict")
        else:
            assert not reveals, (name, n)


@pytest.mark.parametrize("lesson", LESSONS)
def test_no_lesson_spells_out_an_answer_in_its_source(lesson):
    name, code = lesson_code(lesson)
    for source in code:
        assert "answer=" not in source and "explanation=" not in source and "Quiz(" not in source, name
        for entry in quiz._questions()[lesson]:  # no stored feedback (the explanations) written in a cell
            said = entry.get("feedback", []) + [entry.get("explanation", "")] * quiz.is_numeric(entry)
            assert not any(line[:60] in source for line in said), name


@pytest.mark.parametrize("lesson", LESSONS)
def test_stored_quiz_outputs_show_the_questions_stored_today(lesson):
    name, cells = lesson_cells(lesson)
    for cell in (c for c in cells if ASKED.match(c.source)):
        shown = eval(cell.source, {"quiz": quiz})  # e.g. quiz.ask("07", 1), run here without a kernel
        (result,) = [o for o in cell.outputs if o.output_type == "execute_result"]
        assert result.data["text/plain"] == shown.text(), (name, cell.source, "re-store the lesson")
        assert result.data["text/html"] == shown.html(), (name, cell.source, "re-store the lesson")
    for output in (o for c in cells for o in c.outputs if o.get("metadata", {}).get("ddp_lessons", {}).get("reveal")):
        what = output.metadata["ddp_lessons"]["reveal"]
        shown = quiz.revealed(quiz.entry(what["lesson"], what["question"], "en"), what["measured"], None, "en")
        assert output.data == {"text/plain": shown.text(), "text/html": shown.html()}, \
            (name, "a stored reveal shows no prediction: store the lesson with `course --store`, not from JupyterLab")
