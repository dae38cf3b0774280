"""Every lesson keeps the course's contract: 3-4 quick checks, a summary, its exercise, a Next link,
and links that open (checked on the stored notebooks, no kernel)."""
import re
from pathlib import Path

import nbformat
import pytest

from helpers import ROOT

LESSONS = sorted((ROOT / "notebooks").glob("[0-9][0-9]_*.ipynb"))
LINK = re.compile(r"\[[^\n]*?\]\(([^)\s#]+\.ipynb)(?:#[^)]*)?\)")


def markdown(path: Path) -> str:
    nb = nbformat.read(path, as_version=4)
    return "\n".join(cell.source for cell in nb.cells if cell.cell_type == "markdown")


def quick_checks(path: Path) -> int:
    nb = nbformat.read(path, as_version=4)
    return sum(cell.cell_type == "code" and cell.source.strip().startswith(("quiz.ask(", "quiz.predict("))
               for cell in nb.cells)


def labelled_links(text: str, label: str) -> list[str]:
    return [LINK.search(line).group(1) for line in text.splitlines()
            if line.startswith(f"**{label}:**") and LINK.search(line)]


@pytest.mark.parametrize("lesson", [p for p in LESSONS if not p.name.startswith("00_")], ids=lambda p: p.stem)
def test_a_lesson_has_three_or_four_quick_checks_a_summary_and_its_exercise(lesson):
    text = markdown(lesson)
    assert 3 <= quick_checks(lesson) <= 4, f"{lesson.name}: {quick_checks(lesson)} quick checks, the contract asks 3-4"
    assert "Summary" in text, f"{lesson.name} has no summary"
    exercises = labelled_links(text, "Exercise")
    assert exercises, f"{lesson.name} has no '**Exercise:** [..](../exercises/NN_x.ipynb)' line"
    assert all((lesson.parent / e).resolve().exists() for e in exercises), exercises


@pytest.mark.parametrize("lesson", LESSONS, ids=lambda p: p.stem)
def test_a_lesson_says_what_comes_next_and_its_links_open(lesson):
    text = markdown(lesson)
    following = labelled_links(text, "Next")
    assert following, f"{lesson.name} has no '**Next:** [..](NN_x.ipynb)' line"
    if lesson != LESSONS[-1]:
        assert following[0] == LESSONS[LESSONS.index(lesson) + 1].name, \
            f"{lesson.name}'s Next link goes to {following[0]}, not the following lesson"
    broken = [link for link in LINK.findall(text) if not (lesson.parent / link).resolve().exists()]
    assert not broken, f"{lesson.name} links to notebooks that do not exist: {broken}"
