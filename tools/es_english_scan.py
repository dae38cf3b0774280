"""List English words the course wrote into the Spanish lessons' stored outputs (issue 31).

    python tools/es_english_scan.py [notebooks/es/NN_x.ipynb ...]   # default: every Spanish lesson

Reads each code cell's stored outputs (streams, text/plain, the text of text/html, errors) and prints
every line holding an English word from `ENGLISH` (function words and the labels the package prints),
with the lesson and cell, then a count per lesson. Code spans (`...`), quoted strings and torch's or
Python's own messages (a traceback, an error's value) are set aside: they stay English on purpose.
Figures are drawn by `ddp_lessons.plots` through `tr` and are not read here. A heuristic for a person to
read, not a test: a Spanish word spelled like an English one is not listed, an English one missing from
`ENGLISH` is not found.
"""

from __future__ import annotations

import html
import json
import re
import sys
from collections import Counter
from pathlib import Path

ENGLISH = frozenset("""
the and of is are was were with from this that these those each every per after before ahead not it its
on at by for to be been has have had which when while than then only same all one two first last yet did
does done got gets into over under still just but or if so you your we our they there here what who
how why will would can could should must may might off instead both between without within because
scaling weak strong speedup slower faster wins lost race races where wrong right measured
predicted seconds step steps time times found missing ready running stopped started finished waiting
rank's ranks' sent received saw loaded saved kept dropped skipped none true false overlap overlaps
exactly nearly about more less most least fits fit fails failed passed ok thread threads reported residual
""".split())
"""English words a Spanish output should not hold outside code (lower case)."""

ROOT = Path(__file__).resolve().parents[1]
_CODE = re.compile(r"`[^`\n]*`|'[^'\n]*'|\"[^\"\n]*\"")
_TOKEN = re.compile(r"[\w'.:/=+-]*\w")
_WORD = re.compile(r"[A-Za-z]+(?:'s?)?")
_TORCH = re.compile(r"Traceback|^\s*File \"|Error:|Warning:|^\s*\^+\s*$")
_IPYTHON = re.compile(r"^<Figure size|^(Writing|Overwriting) \S+$|^(VBox|HBox)\(children=")
_CODE_LINE = re.compile(r"^[-+ ]?\s*(def|for|if|elif|else|with|return|from|import|class|while|try|except|raise|@@|---|"
                        r"\+\+\+)\b|^[-+ ]?\s*[\w.]+\(.*\)\)?\s*$|^[-+ ]?\s*[\w.\[\]\"', ]+\s*[-+*/]?=\s")
_CALL = re.compile(r"(?<![\w-])[\w.]+\([^()]*\)")  # step(), torch.ones(3): code inside a sentence
PYTHON_VALUES = frozenset({"True", "False", "None"})


def output_lines(output: dict) -> list[str]:
    """The lines a learner reads in one stored output."""
    kind = output.get("output_type")
    if kind == "stream":
        return "".join(output["text"]).splitlines()
    if kind in ("execute_result", "display_data"):
        data = output.get("data", {})
        text = "".join(data.get("text/plain", ""))
        lines = text.splitlines()
        if "text/html" in data:
            page = re.sub(r"<(script|style)\b.*?</\1>", " ", "".join(data["text/html"]), flags=re.S)
            page = re.sub(r"<code>.*?</code>", " ", page, flags=re.S)
            page = html.unescape(re.sub(r"<br\s*/?>|</(p|div|tr|li|h\d|summary|details|table)>", "\n", page))
            lines += [line for line in re.sub(r"<[^>]+>", " ", page).splitlines() if line.strip()]
        return lines
    return []  # errors: torch's and Python's own messages


def english(line: str) -> list[str]:
    """The words of `ENGLISH` in `line`, outside code spans and quotes."""
    if _TORCH.search(line) or _IPYTHON.search(line.strip()):
        return []
    if _CODE_LINE.search(line):  # code shown in an output (a listing, a diff): only its comment is read
        line = line.partition("# ")[2]
    prose = _CALL.sub(" ", _CODE.sub(" ", line))
    words = []
    for token in _TOKEN.findall(prose):
        if _WORD.fullmatch(token) and token not in PYTHON_VALUES and token.lower().removesuffix("'s") in ENGLISH:
            words.append(token)
    return words


def scan(path: Path) -> list[tuple[int, str, list[str]]]:
    """(cell index, line, its English words) for every flagged line of the notebook at `path`."""
    notebook = json.loads(path.read_text(encoding="utf-8"))
    found = []
    for index, cell in enumerate(notebook["cells"]):
        if cell["cell_type"] != "code":
            continue
        for output in cell.get("outputs", []):
            for line in output_lines(output):
                words = english(line)
                if words:
                    found.append((index, line.strip(), words))
    return found


def main(argv: list[str]) -> int:
    paths = [Path(a) for a in argv] or sorted((ROOT / "notebooks" / "es").glob("*.ipynb"))
    counts = Counter()
    for path in paths:
        for index, line, words in scan(path):
            counts[path.name] += 1
            print(f"{path.name} cell {index}: [{', '.join(sorted(set(words)))}] {line[:160]}")
    print()
    for path in paths:
        print(f"{counts[path.name]:4d}  {path.name}")
    print(f"{sum(counts.values()):4d}  lines in all")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
