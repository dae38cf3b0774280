"""tools/run_lessons.py runs a lesson's cells without Jupyter, as the kernel would (for GPU machines)."""
import importlib.util
import re
import subprocess
import sys
from pathlib import Path

import nbformat

ROOT = Path(__file__).parents[1]
RUNNER = ROOT / "tools" / "run_lessons.py"


def demo_notebook(folder: Path) -> Path:
    nb = nbformat.v4.new_notebook()
    nb.cells = [
        nbformat.v4.new_markdown_cell("# demo"),
        nbformat.v4.new_code_cell("from pathlib import Path\nPath('scripts').mkdir(exist_ok=True)\nx = 41"),
        nbformat.v4.new_code_cell('%%writefile scripts/t.py\nVALUE = 1\nif __name__ == "__main__":\n'
                                  '    raise SystemExit("main ran")\n'),
        nbformat.v4.new_code_cell("%run -n scripts/t.py\nx + VALUE"),
        nbformat.v4.new_code_cell("import matplotlib.pyplot as plt\nfig, ax = plt.subplots()\n"
                                  "if x:\n    display(fig)"),
        nbformat.v4.new_code_cell("assert x == 0, 'x is not zero'"),
        nbformat.v4.new_code_cell("print('never runs')"),
    ]
    path = folder / "demo.ipynb"
    nbformat.write(nb, path)
    return path


def test_cells_run_like_the_kernel_and_the_first_failure_stops_the_notebook(tmp_path):
    notebook, out = demo_notebook(tmp_path), tmp_path / "out"
    done = subprocess.run([sys.executable, str(RUNNER), str(out), str(notebook)], capture_output=True,
                          text=True, timeout=120)
    assert done.returncode == 1, done.stdout + done.stderr
    log = (out / "demo.log").read_text()
    assert (tmp_path / "scripts" / "t.py").read_text().startswith("VALUE = 1")  # in the notebook's folder
    assert "----- output\n42\n" in log            # %run -n kept VALUE without running main; last value shown
    assert (out / "demo-cell4.png").stat().st_size > 0 and "[figure saved: demo-cell4.png]" in log
    assert "AssertionError: x is not zero" in log and "never runs" not in log
    assert "demo.ipynb: FAILED" in done.stdout


def load_runner():
    spec = importlib.util.spec_from_file_location("run_lessons", RUNNER)
    runner = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(runner)
    return runner


def test_magics_become_python():
    runner = load_runner()
    assert runner.cell_code("%%writefile a/b.py\nprint(1)\n") == "_writefile('a/b.py', 'print(1)\\n')"
    assert runner.cell_code("if True:\n    %run -n s.py") == "if True:\n    _run_n('s.py')"
    assert runner.cell_code("!ls").startswith("pass  # skipped outside Jupyter: !ls")


def test_every_cell_of_the_gpu_lessons_becomes_python_the_runner_runs_with_nothing_skipped():
    """The lessons tools/device_check.sh runs through the runner: no cell is a `!`/`%` line the runner
    would skip on the GPU machine, and every cell compiles as the runner rewrites it. (Running them
    here too would execute each lesson a second time: nbval runs them in a kernel, and the demo
    notebook above runs the runner itself, magics, figures and a failing assert included.)"""
    runner = load_runner()
    script = (ROOT / "tools" / "device_check.sh").read_text()
    lessons = sorted(set(re.findall(r"notebooks/\d\d_\w+\.ipynb", script)))
    assert len(lessons) == 4, lessons
    for lesson in lessons:
        for index, cell in enumerate(nbformat.read(ROOT / lesson, as_version=4).cells):
            if cell.cell_type == "code":
                code = runner.cell_code(cell.source)
                assert "skipped outside Jupyter" not in code, f"{lesson} cell {index} needs Jupyter: {code}"
                compile(code, f"{lesson} cell {index}", "exec")


def test_device_check_derives_labels_and_pins_the_shared_gpu_step():
    script = (ROOT / "tools" / "device_check.sh").read_text()
    code = "\n".join(line for line in script.splitlines() if not line.lstrip().startswith("#"))
    assert "H200" not in code and "16-core" not in code  # labels come from nvidia/torch and nproc
    shared = next(line for line in code.splitlines() if "bench gloo_shared_gpu" in line)
    assert shared.lstrip().startswith("CUDA_VISIBLE_DEVICES=0 bench")
    assert "tools/run_lessons.py" in code and all(f"notebooks/{n}" in code for n in (
        "01_why_ddp.ipynb", "03_devices.ipynb", "06_gradient_sync.ipynb", "09_scaling.ipynb"))
