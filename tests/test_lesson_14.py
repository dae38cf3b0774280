"""Lesson 14 runs lesson 12's take-home script from its own %%writefile copy: is it still the same file?"""
from pathlib import Path

import nbformat

ROOT = Path(__file__).resolve().parents[1]


def test_lessons_copy_of_the_take_home_script_is_examples_train_ddp_byte_for_byte():
    lesson = nbformat.read(ROOT / "notebooks" / "14_accelerate.ipynb", as_version=4)
    header = "%%writefile scripts/train_ddp.py\n"
    cells = [cell.source for cell in lesson.cells if cell.source.startswith(header)]
    assert len(cells) == 1, "lesson 14 should write scripts/train_ddp.py in exactly one cell"
    assert cells[0][len(header):] + "\n" == (ROOT / "examples" / "train_ddp.py").read_text(), (
        "examples/train_ddp.py changed: paste it into lesson 14's %%writefile scripts/train_ddp.py cell")
