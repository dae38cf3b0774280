"""Lesson 14 runs lesson 12's take-home script from its own %%writefile copy: is it still the same file?"""
from ddp_lessons.diffs import written_scripts
from helpers import EXAMPLES, NOTEBOOKS


def test_lessons_copy_of_the_take_home_script_is_examples_train_ddp_byte_for_byte():
    cells = [text for path, text in written_scripts(NOTEBOOKS / "14_accelerate.ipynb") if path == "scripts/train_ddp.py"]
    assert len(cells) == 1, "lesson 14 should write scripts/train_ddp.py in exactly one cell"
    assert cells[0] == (EXAMPLES / "train_ddp.py").read_text(), (
        "examples/train_ddp.py changed: paste it into lesson 14's %%writefile scripts/train_ddp.py cell")
