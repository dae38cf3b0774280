"""`i18n.source`: a package function a lesson prints, its comments and docstrings in the notebook's language."""
import inspect
import io
import tokenize

import pytest

from ddp_lessons import i18n
from ddp_lessons.i18n.labels import LABELS
from ddp_lessons.i18n.messages_es import SPANISH
from ddp_lessons.scripts import bench_train

SHOWN = [bench_train.train_step, bench_train.measure]
"""The package's functions lessons print through `i18n.source` (lesson 9, cell 3)."""


def code_tokens(text):
    """`text`'s tokens with its comments and one-line docstrings set aside: the program itself."""
    shown = {token for _, token in i18n.shown_texts(text)}
    return [(t.type, t.string) for t in tokenize.generate_tokens(io.StringIO(text).readline)
            if t.type != tokenize.COMMENT and t.string not in shown]


def test_shown_texts_are_the_comments_and_docstrings_not_the_code_s_strings():
    code = 'def f(x):\n    """Say x."""\n    y = {"a": "b"}  # a comment\n    # another\n    return "text"\n'
    assert [text for text, _ in i18n.shown_texts(code)] == ["Say x.", "a comment", "another"]


@pytest.mark.parametrize("function", SHOWN, ids=lambda f: f.__name__)
def test_every_comment_and_docstring_of_a_shown_function_has_its_spanish(function):
    texts = [text for text, _ in i18n.shown_texts(inspect.getsource(function))]
    assert texts, "nothing to translate: is this function still shown?"
    missing = [text for text in texts if text not in LABELS or not SPANISH.get(text)]
    assert not missing, f"list in ddp_lessons/i18n/labels.py, Spanish in messages_es.py: {missing}"


@pytest.mark.parametrize("function", SHOWN, ids=lambda f: f.__name__)
def test_a_function_shown_in_spanish_is_the_same_program_with_spanish_comments(function):
    english, spanish = i18n.source(function, lang="en"), i18n.source(function, lang="es")
    assert english == inspect.getsource(function)
    assert code_tokens(spanish) == code_tokens(english)
    for text, _ in i18n.shown_texts(english):
        assert text not in spanish and SPANISH[text] in spanish
