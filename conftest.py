"""How `make test` spreads the suite over pytest-xdist workers (`-n N --dist loadgroup`).

Most of the suite waits (torchrun start-up, rendezvous, timeouts, kernels), so several workers share
the two cores. A worker takes an `xdist_group` whole and runs its tests in order:

- a notebook's cells share one kernel: one group per notebook, merged with the other notebooks of
  its folder that name the same `scripts/...` file (lessons 7, 12 and 14 write the same scripts:
  one kernel rewriting a script while another's torchrun reads it would race);
- the tests that use one of our module-, class- or session-scoped fixtures (one shared torchrun
  launch, one live-ranks group) form one group, so the fixture is built once, not once per worker;
- the fast tests of a module form one group (seconds in all; fewer units to hand out);
- every other slow test is a unit of its own: they mostly wait, and overlap best one by one.

On a worker the units are also ordered longest first (notebooks and the tests that run a whole
notebook, biggest first; then slow tests; then fast ones), so the run does not end on one long
notebook. Without xdist (`make test-fast`, one file) the order is the usual one.

A notebook that runs the bench (`bench.run_bench`, lesson 9) measures this machine: its cells are
marked `serial`, and `make test` runs them after the parallel run, alone.

No test writes a learner's record (`ddp_lessons.journal`): ``DDP_LESSONS_JOURNAL=off`` for the whole
session and everything it starts (nbval's kernels, the grader, JupyterLab); a test that needs a record
gives an explicit path.
"""
from __future__ import annotations

import os
import re
import signal
from pathlib import Path

import pytest

from ddp_lessons.grading import kernel_start
from ddp_lessons.runtime.contract import JOURNAL_ENV


def pytest_configure(config: pytest.Config) -> None:
    if signal.getsignal(signal.SIGINT) is signal.SIG_IGN:
        # started in the background by a non-interactive shell (`make test &`, nohup), which ignores SIGINT:
        # every process the suite starts would inherit that, and Python then never raises KeyboardInterrupt,
        # so the tests of Jupyter's stop button and of Ctrl-C on the grader would wait in vain
        signal.signal(signal.SIGINT, signal.default_int_handler)
    kernel_start.install()  # nbval: a kernel that dies before its first reply is started once more
    os.environ[JOURNAL_ENV] = "off"  # over a learner's own setting: the suite never writes their record

SCRIPT = re.compile(r"scripts/[\w.-]+")
MEASURES_THE_MACHINE = "run_bench("


def _code(notebook: Path) -> list[str]:
    """The sources of a notebook's code cells."""
    import nbformat

    return [cell.source for cell in nbformat.read(notebook, as_version=4).cells if cell.cell_type == "code"]


def _scripts_named(notebook: Path) -> set[str]:
    """The `scripts/...` paths a notebook's code cells write or read."""
    return {name for source in _code(notebook) for name in SCRIPT.findall(source)}


def _notebook_groups(notebooks: set[Path], root: Path) -> dict[Path, str]:
    """Each notebook's group (paths relative to `root`): notebooks of one folder that name a common
    script share the group of the first of them."""
    leader = {path: path for path in notebooks}

    def find(path: Path) -> Path:
        while leader[path] != path:
            path = leader[path]
        return path

    owner: dict[tuple[Path, str], Path] = {}
    for path in sorted(notebooks):
        for script in sorted(_scripts_named(root / path)):
            first = owner.setdefault((path.parent, script), path)
            a, b = sorted((find(first), find(path)))
            leader[b] = a
    return {path: f"notebook:{find(path)}" for path in notebooks}


def _shared_fixture(item: pytest.Item) -> str | None:
    """Our first fixture wider than one test that `item` uses (plugins' built-ins do not count)."""
    info = getattr(item, "_fixtureinfo", None)
    for name in sorted(info.name2fixturedefs if info else ()):
        definition = info.name2fixturedefs[name][-1]
        if definition.scope != "function" and definition.baseid:
            return f"fixture:{definition.baseid}:{name}"
    return None


def _plan(item: pytest.Item, notebook_group: dict[Path, str]) -> tuple[str | None, int, int]:
    """(group or None for a unit of its own, rank, size): rank 0 runs a notebook, 1 is slow, 2 is
    fast; size (rank 0) the notebook's number of code cells, a rough measure of its length."""
    if item.path.suffix == ".ipynb":
        return notebook_group[item.path.relative_to(item.config.rootpath)], 0, 1
    if not (item.get_closest_marker("slow") or item.get_closest_marker("browser")):
        return _shared_fixture(item) or f"module:{item.nodeid.split('::')[0]}", 2, 0
    notebooks = [Path(v) for v in getattr(getattr(item, "callspec", None), "params", {}).values()
                 if str(v).endswith(".ipynb")]
    if notebooks:
        return _shared_fixture(item), 0, len(_code(notebooks[0]))
    return _shared_fixture(item), 1, 0


def _plan_groups(config: pytest.Config, items: list[pytest.Item]) -> None:
    """Mark each test with its xdist group; on an xdist worker, order the units longest first."""
    root = config.rootpath
    notebook_group = _notebook_groups({item.path.relative_to(root) for item in items
                                       if item.path.suffix == ".ipynb"}, root)
    measuring = {path for path in {item.path for item in items if item.path.suffix == ".ipynb"}
                 if any(MEASURES_THE_MACHINE in source for source in _code(path))}
    plans = [_plan(item, notebook_group) for item in items]
    for item, (group, _, _) in zip(items, plans):
        if group:
            item.add_marker(pytest.mark.xdist_group(group))
        if item.path in measuring:
            item.add_marker(pytest.mark.serial)
    if not hasattr(config, "workerinput"):  # not an xdist worker: keep the usual order
        return
    # Each unit stays together, its tests in their order; every worker sorts alike (xdist checks).
    units = [group or item.nodeid for item, (group, _, _) in zip(items, plans)]
    size: dict[str, int] = {}
    rank: dict[str, int] = {}
    first: dict[str, int] = {}
    for index, (unit, (_, item_rank, item_size)) in enumerate(zip(units, plans)):
        size[unit] = size.get(unit, 0) + item_size
        rank[unit] = min(rank.get(unit, item_rank), item_rank)
        first.setdefault(unit, index)
    order = sorted(range(len(items)), key=lambda i: (rank[units[i]], -size[units[i]], first[units[i]], i))
    items[:] = [items[i] for i in order]


def _name_groups_in_node_ids(config: pytest.Config, items: list[pytest.Item]) -> None:
    """xdist's scheduler finds a test's group in the `@group` its worker appends to the node id;
    under pytest 9.2's structured node ids xdist 3.8's append has no effect and each test would be
    handed out alone, a notebook's cells to different kernels (pytest-xdist#1386). Append it here."""
    if not getattr(config.option, "loadgroup", False):
        return
    for item in items:
        mark = item.get_closest_marker("xdist_group")
        if mark and not item.nodeid.endswith(f"@{mark.args[0]}"):
            from _pytest.nodeid import NodeId  # pytest 9.2's structured node ids

            item._id = NodeId.parse(f"{item.nodeid}@{mark.args[0]}")
            if not item.nodeid.endswith(f"@{mark.args[0]}"):
                raise pytest.UsageError("xdist cannot keep a notebook's cells together on this pytest "
                                        "(see conftest.py): run without -n")


@pytest.hookimpl(wrapper=True)  # around xdist's own hook, which reads the groups
def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]):
    _plan_groups(config, items)
    result = yield
    _name_groups_in_node_ids(config, items)
    return result
