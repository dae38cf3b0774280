"""Scripts compared as a unified diff, changed lines coloured (taught in lesson 7).

The course teaches the move to DDP as a diff: the single-process script and the DDP script are
both written with ``%%writefile``, and ``script_diff(before, after)`` shows only the lines that
change. In Jupyter the diff is coloured (added green, removed red); as text it is the plain
``diff -u`` output.
"""

from __future__ import annotations

import difflib
import html
import os
from dataclasses import dataclass
from pathlib import Path

from ddp_lessons.i18n import tr

_STYLES = {"+": "background:#dafbe1;color:#116329", "-": "background:#ffebe9;color:#82071e",
           "@": "color:#6e7781"}


@dataclass(frozen=True)
class ScriptDiff:
    """A unified diff between two scripts; prints as text, shows coloured in Jupyter."""

    lines: tuple[str, ...]

    @property
    def added(self) -> list[str]:
        """Lines only the new script has, without their leading ``+``."""
        return [line[1:] for line in self.lines if line.startswith("+") and not line.startswith("+++")]

    @property
    def removed(self) -> list[str]:
        """Lines only the old script has, without their leading ``-``."""
        return [line[1:] for line in self.lines if line.startswith("-") and not line.startswith("---")]

    def __str__(self) -> str:
        return "\n".join(self.lines) if self.lines else "(the scripts are identical)"

    def _repr_pretty_(self, printer, cycle) -> None:
        printer.text(str(self))

    def _repr_html_(self) -> str:
        rows = "".join(f'<span style="display:block;{_line_style(line)}">{html.escape(line)}</span>'
                       for line in self.lines)
        return f'<pre style="line-height:1.35">{rows or "(the scripts are identical)"}</pre>'


def _line_style(line: str) -> str:
    """CSS for one diff line: file headers bold, added green, removed red, hunk headers grey."""
    if line.startswith(("+++", "---")):
        return "font-weight:bold"
    return _STYLES.get(line[:1], "")


def script_diff(before: str | os.PathLike, after: str | os.PathLike, context: int = 2) -> ScriptDiff:
    """The unified diff from script file `before` to script file `after`, labelled by file name."""
    old, new = Path(before), Path(after)
    lines = difflib.unified_diff(old.read_text().splitlines(), new.read_text().splitlines(),
                                 fromfile=old.name, tofile=new.name, n=context, lineterm="")
    return ScriptDiff(tuple(lines))


def written_scripts(notebook: str | os.PathLike) -> list[tuple[str, str]]:
    """(path, text) of every ``%%writefile <path>`` cell of a notebook, in order: what running it writes."""
    import nbformat  # only these helpers read notebooks

    written = []
    for cell in nbformat.read(notebook, as_version=4).cells:
        first, _, body = cell.source.partition("\n")
        words = first.split()
        if cell.cell_type == "code" and len(words) == 2 and words[0] == "%%writefile":
            written.append((words[1], body.rstrip("\n") + "\n"))
    return written


def written_script(notebook: str | os.PathLike, path: str) -> str:
    """The text a notebook's ``%%writefile <path>`` cell writes (lesson 12 diffs lesson 7's script)."""
    for written, text in written_scripts(notebook):
        if written == path:
            return text
    raise LookupError(tr("{notebook} has no '%%writefile {path}' cell", notebook=notebook, path=path))
