"""The root conftest.py's plan for `make test`'s parallel run: what must run together, and what alone.

A notebook's cells share one kernel, so they must reach one xdist worker in order; notebooks that
write the same `scripts/...` file must share a worker too (one kernel rewriting a script while
another's torchrun reads it); a notebook that measures the machine (lesson 9) must run alone.
"""
import importlib.util
import subprocess
import sys
from pathlib import Path

import nbformat
import pytest

from helpers import ROOT

spec = importlib.util.spec_from_file_location("root_conftest", ROOT / "conftest.py")
plan = importlib.util.module_from_spec(spec)
spec.loader.exec_module(plan)

LESSONS = {path.relative_to(ROOT) for path in (ROOT / "notebooks").glob("*.ipynb")}


def test_notebooks_that_write_the_same_script_share_a_group_and_the_others_have_their_own():
    groups = plan._notebook_groups(LESSONS, ROOT)
    by_group: dict[str, set[str]] = {}
    for path, group in groups.items():
        by_group.setdefault(group, set()).add(path.name)
    for group, names in by_group.items():
        if len(names) > 1:  # every notebook of a shared group names a script another one names
            scripts = {name: plan._scripts_named(ROOT / "notebooks" / name) for name in names}
            for name in names:
                assert any(scripts[name] & scripts[other] for other in names - {name}), (group, name)
    shared = {name: plan._scripts_named(ROOT / "notebooks" / name) for name in (p.name for p in LESSONS)}
    for a in shared:
        for b in shared:
            if a < b and shared[a] & shared[b]:
                assert groups[Path("notebooks") / a] == groups[Path("notebooks") / b], (a, b, shared[a] & shared[b])
    assert len(by_group) >= len(LESSONS) // 2  # most lessons still run on a worker of their own


def write_notebook(path: Path, cells: list[str]) -> None:
    notebook = nbformat.v4.new_notebook(cells=[nbformat.v4.new_code_cell(source) for source in cells])
    notebook.metadata["kernelspec"] = {"name": "python3", "display_name": "Python 3", "language": "python"}
    nbformat.write(notebook, path)


@pytest.mark.slow
def test_xdist_runs_each_notebook_whole_on_one_kernel_and_leaves_the_measuring_one_out(tmp_path):
    """A real `-n 2 --dist loadgroup -m "not serial"` run of four small notebooks, with this conftest:
    each notebook's cells run in order in one kernel; `a` and `b` write the same script, so they run
    on one worker; `bench` measures the machine and is left for the serial run."""
    (tmp_path / "conftest.py").write_text((ROOT / "conftest.py").read_text())
    (tmp_path / "pytest.ini").write_text("[pytest]\nmarkers =\n    slow: x\n    browser: x\n    serial: x\n")
    log = tmp_path / "log.txt"
    record = f"import os; open({str(log)!r}, 'a').write(f'{{NAME}} {{CELL}} {{os.environ[\"PYTEST_XDIST_WORKER\"]}} {{os.getpid()}}\\n')"
    for name, extra in (("a", "# writes scripts/shared.py"), ("b", "# reads scripts/shared.py"), ("c", ""),
                        ("bench", "# result = bench.run_bench(settings)")):
        write_notebook(tmp_path / f"{name}.ipynb", [extra + "\nimport time"] + [
            record.replace("{NAME}", name).replace("{CELL}", str(cell)) for cell in range(3)])
    done = subprocess.run([sys.executable, "-m", "pytest", "-p", "no:cacheprovider", "--nbval-lax",
                           "--nbval-current-env", "-n", "2", "--dist", "loadgroup", "--no-loadscope-reorder",
                           "-m", "not serial", "-q", "."], cwd=tmp_path, capture_output=True, text=True, timeout=240)
    assert done.returncode == 0, done.stdout[-3000:]
    rows = [line.split() for line in log.read_text().splitlines()]
    runs = {name: [(int(cell), worker, pid) for n, cell, worker, pid in rows if n == name] for name in "abc"}
    assert "bench" not in {row[0] for row in rows}
    for name, cells in runs.items():
        assert [cell for cell, _, _ in cells] == [0, 1, 2], (name, cells)  # in order, each once
        assert len({(worker, pid) for _, worker, pid in cells}) == 1, (name, cells)  # one kernel
    assert runs["a"][0][1] == runs["b"][0][1]  # one worker: never both at once


def test_a_spanish_lesson_writes_its_own_scripts_so_it_runs_beside_its_english_one():
    """`make test` runs three Spanish lessons too (Makefile: ES_TEST_LESSONS); notebooks/es/07 writes
    notebooks/es/scripts/07_*.py, not the English lesson's files, so the two are groups of their own."""
    english, spanish = Path("notebooks/07_torchrun.ipynb"), Path("notebooks/es/07_torchrun.ipynb")
    groups = plan._notebook_groups({english, spanish}, ROOT)
    assert groups[english] != groups[spanish]
