"""The layer rule stated in ddp_lessons/__init__.py, checked over the import graph of the package's source.

A new top-level module is a lesson helper (the strictest layer) unless it is listed in `RUNNERS`.
"""

from __future__ import annotations

import ast
from dataclasses import dataclass
from pathlib import Path

import pytest

import ddp_lessons

PACKAGE = Path(ddp_lessons.__file__).resolve().parent

RUNNERS = {"ddp_lessons.launch", "ddp_lessons.accelerate_launch", "ddp_lessons.bench"}
"""Top-level modules that start jobs: the lesson-facing side of the runtime."""
LAYERS = [
    ("checks and live", ("ddp_lessons.checks", "ddp_lessons.live"), 3),
    ("tools", ("ddp_lessons.grading", "ddp_lessons.tooling", "ddp_lessons.__main__"), 4),
    ("runtime", ("ddp_lessons.runtime",), 1),
]
CONTRACT = "ddp_lessons.runtime.contract"
"""The job contract sits below every layer: it imports nothing of the package, everything may read it."""
RANK_SCRIPTS = ("ddp_lessons.scripts", "ddp_lessons.live.worker")
"""What torchrun runs on a rank: it imports only lesson helpers (and the worker its watchdog)."""
RANK_SIDE_EXTRA = {"ddp_lessons.live.worker": {"ddp_lessons.live.watchdog"}}
RANK_HOOKS = "ddp_lessons.runtime.rank_hooks"
"""Started in every rank before anything else; it cannot rely on the package being importable."""


@dataclass(frozen=True)
class Edge:
    """`source` imports `target` (at import time, or inside a function: `deferred`) at `line`."""

    source: str
    target: str
    line: int
    deferred: bool = False


def _under(module: str, prefix: str) -> bool:
    return module == prefix or module.startswith(prefix + ".")


def layer(module: str) -> tuple[str, int]:
    """(layer name, rank) of a package module."""
    if module == CONTRACT:
        return "the job contract", -1
    if module in RUNNERS:
        return "runners", 2
    for name, prefixes, rank in LAYERS:
        if any(_under(module, prefix) for prefix in prefixes):
            return name, rank
    return "lesson helpers", 0


def module_name(path: Path) -> str:
    parts = path.relative_to(PACKAGE.parent).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def _imports(tree: ast.AST, modules: set[str], source: str):
    """(target, line, deferred) for every import in `tree`; a name imported from a package is the
    submodule when one exists (``from ddp_lessons import launch`` -> ddp_lessons.launch)."""
    def visit(node, deferred):
        for child in ast.iter_child_nodes(node):
            inner = deferred or isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda))
            if isinstance(child, ast.If) and "TYPE_CHECKING" in ast.unparse(child.test):
                inner = True
            if isinstance(child, ast.Import):
                for alias in child.names:
                    yield alias.name, child.lineno, deferred
            elif isinstance(child, ast.ImportFrom):
                base = child.module or ""
                if child.level:  # relative: from the importing module's package
                    package = source.split(".")[:len(source.split(".")) - child.level + (
                        source in packages)]
                    base = ".".join(package + ([base] if base else []))
                for alias in child.names:
                    full = f"{base}.{alias.name}"
                    yield (full if full in modules else base), child.lineno, deferred
            yield from visit(child, inner)
    packages = {m for m in modules if (PACKAGE.parent / m.replace(".", "/") / "__init__.py").exists()}
    yield from visit(tree, False)


def package_graph(root: Path = PACKAGE) -> list[Edge]:
    """Every import in the package's source files, as edges between dotted module names."""
    files = sorted(p for p in root.rglob("*.py") if "__pycache__" not in p.parts)
    modules = {module_name(p) for p in files}
    edges = []
    for path in files:
        source = module_name(path)
        tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
        for target, line, deferred in _imports(tree, modules, source):
            edges.append(Edge(source, target, line, deferred))
    return list(dict.fromkeys(edges))  # one edge per import statement and target


def _parents(module: str) -> list[str]:
    """The packages Python imports before `module` itself (ddp_lessons.plots for ddp_lessons.plots.x)."""
    parts = module.split(".")
    return [".".join(parts[:i]) for i in range(1, len(parts))]


def imports_torch_when_imported(module: str, edges: list[Edge]) -> list[str] | None:
    """The chain by which importing `module` imports torch (module-level imports only), or None."""
    at_import: dict[str, list[str]] = {}
    for edge in edges:
        if not edge.deferred:
            at_import.setdefault(edge.source, []).append(edge.target)
    seen, todo = {module: [module]}, [module]
    while todo:
        current = todo.pop()
        for target in at_import.get(current, []) + _parents(current):
            if target.split(".")[0] == "torch":
                return seen[current] + [target]
            if target.startswith("ddp_lessons") and target not in seen:
                seen[target] = seen[current] + [target]
                todo.append(target)
    return None


def violations(edges: list[Edge]) -> list[str]:
    """Every import that breaks a layer rule, as 'source:line imports target: rule'."""
    found = []
    inside = [e for e in edges if e.target.startswith("ddp_lessons") and e.target != "ddp_lessons"]
    for e in inside:
        (source_layer, source_rank), (target_layer, target_rank) = layer(e.source), layer(e.target)
        where = f"{e.source}:{e.line} imports {e.target}"
        if target_rank > source_rank:
            found.append(f"{where}: {source_layer} may not import {target_layer} (imports flow down)")
        if _under(e.source, "ddp_lessons.plots") and target_rank > 0:
            found.append(f"{where}: plots draw results; they import no runner or runtime")
        if _under(e.source, "ddp_lessons.runtime") and _under(e.target, "ddp_lessons.plots"):
            found.append(f"{where}: the runtime draws nothing")
        if any(_under(e.source, prefix) for prefix in RANK_SCRIPTS) and not (
                target_rank <= 0 and not _under(e.target, "ddp_lessons.plots")
                or e.target in RANK_SIDE_EXTRA.get(e.source, ())):
            found.append(f"{where}: a rank script imports only lesson helpers (what runs in a rank)")
    found += [f"{e.source}:{e.line} imports {e.target}: the rank hooks import nothing of the package"
              for e in edges if _under(e.source, RANK_HOOKS) and e.target.startswith("ddp_lessons")]
    plots = sorted({e.source for e in edges if _under(e.source, "ddp_lessons.plots")})
    for module in plots:
        chain = imports_torch_when_imported(module, edges)
        if chain:
            found.append(f"{module} imports torch when imported ({' -> '.join(chain)}): plots import no torch")
    return found


GRAPH = package_graph()


def test_the_graph_sees_the_package():
    """The graph holds the imports it must judge (an empty graph would pass every rule)."""
    sources = {e.source for e in GRAPH}
    assert {"ddp_lessons.launch", "ddp_lessons.plots.coverage", "ddp_lessons.runtime.stacks",
            "ddp_lessons.live.group", "ddp_lessons.tooling.doctor"} <= sources
    assert any(e.source == "ddp_lessons.launch" and e.target == "ddp_lessons.runtime.processes"
               for e in GRAPH)


def test_the_package_keeps_its_layers():
    problems = violations(GRAPH)
    assert not problems, "imports that break the layer rule (ddp_lessons/__init__.py):\n" + "\n".join(problems)


@pytest.mark.parametrize("edges, rule", [
    ([Edge("ddp_lessons.runtime.stacks", "ddp_lessons.tooling.doctor", 1)], "imports flow down"),
    ([Edge("ddp_lessons.records", "ddp_lessons.launch", 1, deferred=True)], "imports flow down"),
    ([Edge("ddp_lessons.launch", "ddp_lessons.checks.common", 1)], "imports flow down"),
    ([Edge("ddp_lessons.checks.amp", "ddp_lessons.grading.jobs", 1)], "imports flow down"),
    ([Edge("ddp_lessons.plots.training", "ddp_lessons.runtime.progress", 1)], "no runner or runtime"),
    ([Edge("ddp_lessons.runtime.progress", "ddp_lessons.plots.figures", 1)], "the runtime draws nothing"),
    ([Edge("ddp_lessons.scripts.check_evaluate", "ddp_lessons.checks.metrics", 1)], "rank script"),
    ([Edge("ddp_lessons.live.worker", "ddp_lessons.launch", 1)], "rank script"),
    ([Edge("ddp_lessons.runtime.rank_hooks.sitecustomize", "ddp_lessons.records", 1)], "rank hooks"),
    ([Edge("ddp_lessons.runtime.rank_hooks.sitecustomize", "ddp_lessons.runtime.contract", 1)], "rank hooks"),
    ([Edge("ddp_lessons.runtime.contract", "ddp_lessons.records", 1)], "imports flow down"),
    ([Edge("ddp_lessons.plots.coverage", "ddp_lessons.sampling", 1),
      Edge("ddp_lessons.sampling", "torch", 1)], "plots import no torch"),
    ([Edge("ddp_lessons.plots.coverage", "matplotlib", 1), Edge("ddp_lessons.plots", "torch.nn", 1)],
     "plots import no torch"),
])
def test_a_violating_import_is_caught(edges, rule):
    assert any(rule in problem for problem in violations(edges)), violations(edges)


def test_deferred_torch_and_allowed_imports_pass():
    """torch imported inside a function is not imported with the plot; downward imports are fine."""
    assert violations([Edge("ddp_lessons.plots.coverage", "ddp_lessons.sampling", 1),
                       Edge("ddp_lessons.sampling", "torch", 5, deferred=True),
                       Edge("ddp_lessons.launch", "ddp_lessons.runtime.stacks", 1),
                       Edge("ddp_lessons.tooling.doctor", "ddp_lessons.launch", 1),
                       Edge("ddp_lessons.live.worker", "ddp_lessons.live.watchdog", 1),
                       Edge("ddp_lessons.scripts.bench_train", "ddp_lessons.backend", 1),
                       Edge("ddp_lessons.scripts.bench_train", "ddp_lessons.runtime.contract", 1),
                       Edge("ddp_lessons.records", "ddp_lessons.runtime.contract", 1)]) == []


def test_a_new_top_level_module_is_a_lesson_helper():
    assert layer("ddp_lessons.some_new_helper") == ("lesson helpers", 0)
    assert layer("ddp_lessons.launch") == ("runners", 2)
