"""The lesson API keeps its import paths: every ``ddp_lessons`` import that a lesson, solution,
exercise, the script a cell writes with ``%%writefile``, or an example uses still resolves.

A submission graded next term imports what this term's notebooks import, so moving a module inside
the package must leave these paths working. The imports are collected from the files themselves
(code cells parsed as IPython would run them), so a new lesson is covered without editing this test.
"""

from __future__ import annotations

import ast
import importlib
import re
from dataclasses import dataclass, field
from pathlib import Path
from types import ModuleType

import nbformat
import pytest
from IPython.core.inputtransformer2 import TransformerManager

ROOT = Path(__file__).resolve().parents[1]
NOTEBOOK_FOLDERS = ("notebooks", "solutions", "exercises")
SCRIPT_FOLDERS = ("examples",)
_LOAD_EXT = re.compile(r"^\s*%load_ext\s+(ddp_lessons[\w.]*)", re.MULTILINE)


@dataclass
class Usage:
    """What the lesson files need from one module: names imported from it, attributes used on it."""

    names: set[str] = field(default_factory=set)
    attributes: set[str] = field(default_factory=set)
    where: set[str] = field(default_factory=set)


def python_sources(path: Path) -> list[tuple[str, str]]:
    """(label, Python source) for a script, or for each code cell of a notebook and each script or
    ``%%ranks`` cell body in it, with IPython's magics and ``!`` lines turned into plain calls."""
    if path.suffix == ".py":
        return [(str(path.relative_to(ROOT)), path.read_text(encoding="utf-8"))]
    sources = []
    transform = TransformerManager().transform_cell
    for index, cell in enumerate(nbformat.read(path, as_version=4).cells):
        if cell.cell_type != "code":
            continue
        label = f"{path.relative_to(ROOT)} cell {index}"
        first, _, body = cell.source.partition("\n")
        words = first.split()
        if words and words[0].startswith("%%"):  # a cell magic: its body is the code that matters
            if words[0] == "%%ranks" or (words[0] == "%%writefile" and words[-1].endswith(".py")):
                sources.append((f"{label} ({first.strip()})", transform(body)))
            continue
        sources.append((label, transform(cell.source)))
    return sources


def lesson_files() -> list[Path]:
    """Every notebook under notebooks/, solutions/, exercises/ (translations too) and every example script."""
    files = [path for folder in NOTEBOOK_FOLDERS for path in sorted((ROOT / folder).rglob("*.ipynb"))
             if ".ipynb_checkpoints" not in path.parts]
    return files + [path for folder in SCRIPT_FOLDERS for path in sorted((ROOT / folder).rglob("*.py"))]


def collect(sources: list[tuple[str, str]]) -> dict[str, Usage]:
    """{module: Usage} over `sources` (one file: a name bound in one cell is used in the next)."""
    usage: dict[str, Usage] = {}
    bound: dict[str, str] = {}  # local name -> the ddp_lessons module or member it stands for

    def use(module: str, label: str) -> Usage:
        entry = usage.setdefault(module, Usage())
        entry.where.add(label)
        return entry

    for label, source in sources:
        for module in _LOAD_EXT.findall(source) + re.findall(
                r"run_line_magic\('load_ext', '(ddp_lessons[\w.]*)'\)", source):
            use(module, label).names.add("load_ipython_extension")
        tree = ast.parse(source, filename=label)
        for node in ast.walk(tree):
            if isinstance(node, ast.ImportFrom) and node.level == 0 and node.module and (
                    node.module == "ddp_lessons" or node.module.startswith("ddp_lessons.")):
                entry = use(node.module, label)
                for alias in node.names:
                    entry.names.add(alias.name)
                    bound[alias.asname or alias.name] = f"{node.module}.{alias.name}"
            elif isinstance(node, ast.Import):
                for alias in node.names:
                    if alias.name == "ddp_lessons" or alias.name.startswith("ddp_lessons."):
                        use(alias.name, label)
                        if alias.asname:
                            bound[alias.asname] = alias.name
        for node in ast.walk(tree):  # attributes of a bound name: launch.run_torchrun, checks.sampler_shards
            if isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name) and node.value.id in bound:
                use(bound[node.value.id], label).attributes.add(node.attr)
    return usage


def lesson_api() -> dict[str, Usage]:
    """{module or member path: Usage} over every lesson file."""
    merged: dict[str, Usage] = {}
    for path in lesson_files():
        for module, entry in collect(python_sources(path)).items():
            target = merged.setdefault(module, Usage())
            target.names |= entry.names
            target.attributes |= entry.attributes
            target.where |= entry.where
    return merged


API = lesson_api()


def resolve(path: str):
    """The object at dotted `path`: a module, or a member of one (``ddp_lessons.diffs.script_diff``)."""
    try:
        return importlib.import_module(path)
    except ModuleNotFoundError as error:
        if error.name != path or "." not in path:
            raise
    owner, _, name = path.rpartition(".")
    return getattr(resolve(owner), name)


def test_the_lessons_use_the_package():
    """The collector finds what the lessons are known to use (it would pass vacuously otherwise)."""
    assert {"ddp_lessons", "ddp_lessons.plots", "ddp_lessons.live"} <= API.keys()
    assert {"launch", "records", "backend", "quiz", "checks", "tracebacks"} <= API["ddp_lessons"].names
    assert "run_torchrun" in API["ddp_lessons.launch"].attributes
    assert "load_ipython_extension" in API["ddp_lessons.live"].names


def test_collect_reads_imports_magics_and_attributes():
    """Each import form the lessons use is collected, in cells, %%writefile scripts and %%ranks cells."""
    usage = collect([("cell", TransformerManager().transform_cell(
        "from ddp_lessons import launch, records as rec\nimport ddp_lessons.plots.coverage as cov\n"
        "%load_ext ddp_lessons.live\n!echo hi\nlaunch.run_torchrun('x.py')\nrec.load('d', 'n')\n"
        "cov.plot_shard_coverage([], 1)\n"))])
    assert usage["ddp_lessons"].names == {"launch", "records"}
    assert usage["ddp_lessons.launch"].attributes == {"run_torchrun"}
    assert usage["ddp_lessons.records"].attributes == {"load"}
    assert usage["ddp_lessons.plots.coverage"].attributes == {"plot_shard_coverage"}
    assert usage["ddp_lessons.live"].names == {"load_ipython_extension"}


@pytest.mark.parametrize("module", sorted(API))
def test_lesson_import_resolves(module):
    """`module` imports, and every name imported from it and attribute used on it exists."""
    usage = API[module]
    where = ", ".join(sorted(usage.where)[:3]) + (" ..." if len(usage.where) > 3 else "")
    target = resolve(module)
    missing = []
    for name in sorted(usage.names):
        try:
            resolve(f"{module}.{name}")
        except (ImportError, AttributeError):
            missing.append(name)
    assert not missing, f"{module} no longer has {missing}, which {where} import(s)"
    if isinstance(target, ModuleType):  # attributes are checked on modules, not on functions or classes
        gone = sorted(attr for attr in usage.attributes if not hasattr(target, attr))
        assert not gone, f"{module} no longer has {gone}, which {where} use(s)"
