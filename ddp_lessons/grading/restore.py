"""The scratch copy a submission runs as: outputs cleared, every check cell put back from the solution,
the instructor's hidden checks (if any) appended after the last cell."""

from __future__ import annotations

from pathlib import Path

import nbformat
from nbformat import NotebookNode


def restore_checks(notebook: NotebookNode, checks: list[NotebookNode]) -> dict[str, int]:
    """Clear outputs, put the solution's check cells back; map each check id to its nbval cell number."""
    code_cells = [cell for cell in notebook.cells if cell.cell_type == "code"]
    for cell in code_cells:
        cell.outputs, cell.execution_count = [], None
    placed: dict[str, int] = {}
    for check in checks:
        number = find_check(code_cells, check, taken=set(placed.values()))
        if number is not None:
            code_cells[number].source = check.source
            code_cells[number].metadata = nbformat.from_dict(check.metadata)
            placed[check.id] = number
    return placed


def find_check(code_cells: list[NotebookNode], check: NotebookNode, taken: set[int]) -> int | None:
    """Position of `check` among the cells not `taken`: by cell id, else by unchanged source (a paste)."""
    free = [(number, cell) for number, cell in enumerate(code_cells) if number not in taken]
    by_id = [number for number, cell in free if cell.get("id") == check.id]
    by_source = [number for number, cell in free if cell.source == check.source]
    return (by_id + by_source + [None])[0]


def append_hidden(notebook: NotebookNode, hidden: list[NotebookNode]) -> dict[str, int]:
    """Append the `hidden` check cells after the notebook's last cell; map each id to its nbval cell number."""
    first = sum(cell.cell_type == "code" for cell in notebook.cells)
    notebook.cells.extend(nbformat.from_dict(cell) for cell in hidden)
    return {cell.id: first + number for number, cell in enumerate(hidden)}


def prepare(submission: Path, checks: list[NotebookNode], notebook: Path,
            hidden: list[NotebookNode] = ()) -> dict[str, int]:
    """Write `notebook`, the scratch copy of `submission` with its checks restored and the `hidden`
    checks appended; say where every check is (nbval cell numbers by check id)."""
    submitted = nbformat.read(submission, as_version=4)
    placed = restore_checks(submitted, checks)
    placed.update(append_hidden(submitted, list(hidden)))
    notebook.parent.mkdir(parents=True)
    nbformat.write(submitted, notebook)
    # an empty ini file makes this folder pytest's root: no stray config or conftest from above it
    (notebook.parent / "pytest.ini").write_text("[pytest]\n", encoding="utf-8")
    return placed
