"""Lesson 14 runs lesson 12's take-home script from its own %%writefile copy: is it still the same file,
in each edition (examples/train_ddp.py, and examples/es/train_ddp.py for notebooks/es)?"""
import pytest

from ddp_lessons.diffs import written_scripts
from helpers import EXAMPLES, NOTEBOOKS


@pytest.mark.parametrize("edition", ["", "es"])
def test_lessons_copy_of_the_take_home_script_is_examples_train_ddp_byte_for_byte(edition):
    lesson, example = NOTEBOOKS / edition / "14_accelerate.ipynb", EXAMPLES / edition / "train_ddp.py"
    cells = [text for path, text in written_scripts(lesson) if path == "scripts/train_ddp.py"]
    assert len(cells) == 1, f"{lesson.name} should write scripts/train_ddp.py in exactly one cell"
    assert cells[0] == example.read_text(), (
        f"{example.relative_to(EXAMPLES.parent)} and lesson 14's %%writefile scripts/train_ddp.py cell differ: "
        + ("paste examples/train_ddp.py into the English cell" if not edition else
           "give lesson 14's catalog (i18n/es/notebooks/14_accelerate.md) lesson 12's Spanish for the script, "
           "then make translations and tools/write_examples_es.py"))
