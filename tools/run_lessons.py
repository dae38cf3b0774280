"""Run lessons' code cells without Jupyter, for a GPU machine that has torch but no jupyter or nbval.

    python tools/run_lessons.py OUT_DIR notebooks/01_why_ddp.ipynb notebooks/03_devices.ipynb ...

Each notebook's code cells run in order, in one namespace, with the notebook's folder as the working
directory, as the kernel runs them: a ``%%writefile PATH`` cell writes its file, ``%run -n SCRIPT``
loads a script's definitions without running its main, a cell's last expression is printed (a
matplotlib figure is saved as a PNG instead), and ``display()`` does the same. Every cell's output
and seconds go to OUT_DIR/<notebook>.log, figures to OUT_DIR/<notebook>-cellN.png. The first failing
cell (a failed assert included) ends that notebook; the exit code is the number of notebooks that
failed. Where nbclient is installed (``--kernel``), the notebook runs in a real kernel instead and
the executed copy is saved as OUT_DIR/<notebook>.ipynb.
"""

from __future__ import annotations

import argparse
import ast
import contextlib
import io
import json
import os
import sys
import time
import traceback
from pathlib import Path

import matplotlib

matplotlib.use("Agg")


def cell_code(source: str) -> str:
    """A code cell's source as plain Python: the magics the lessons use become their meaning."""
    if source.startswith("%%writefile"):
        first, _, body = source.partition("\n")
        path = first.split(maxsplit=1)[1].strip()
        return (f"_writefile({path!r}, {body!r})")
    lines = []
    for line in source.split("\n"):
        stripped = line.lstrip()
        if stripped.startswith("%run -n "):
            lines.append(line[: len(line) - len(stripped)] + f"_run_n({stripped[8:].strip()!r})")
        elif stripped.startswith(("%", "!")):
            lines.append(line[: len(line) - len(stripped)] + f"pass  # skipped outside Jupyter: {stripped}")
        else:
            lines.append(line)
    return "\n".join(lines)


class Session:
    """One notebook's namespace, working directory and output folder."""

    def __init__(self, out: Path, name: str):
        self.out, self.name, self.cell = out, name, 0
        self.namespace = {"__name__": "__main__", "display": self.show, "_writefile": self.writefile,
                          "_run_n": self.run_n, "_show": self.show}

    def writefile(self, path: str, text: str) -> None:
        Path(path).parent.mkdir(parents=True, exist_ok=True)
        print(f"{'Overwriting' if Path(path).exists() else 'Writing'} {path}")
        Path(path).write_text(text)

    def run_n(self, path: str) -> None:
        """``%run -n``: run the script with a __name__ other than __main__, keep its definitions."""
        names = {"__name__": Path(path).stem, "__file__": path}
        exec(compile(Path(path).read_text(), path, "exec"), names)
        self.namespace.update({k: v for k, v in names.items() if not k.startswith("__")})

    def show(self, value) -> None:
        """What Jupyter would display: figures become PNG files, anything else its repr or text."""
        if value is None:
            return
        from matplotlib.figure import Figure
        if isinstance(value, Figure):
            path = self.out / f"{self.name}-cell{self.cell}.png"
            value.savefig(path, dpi=70, bbox_inches="tight")
            print(f"[figure saved: {path.name}]")
        else:
            print(getattr(value, "text", None) or repr(value))

    def run_cell(self, index: int, source: str) -> None:
        self.cell = index
        tree = ast.parse(cell_code(source))
        if tree.body and isinstance(tree.body[-1], ast.Expr):  # the kernel displays the last value
            last = tree.body[-1]
            call = ast.Call(ast.Name("_show", ast.Load()), [last.value], [])
            tree.body[-1] = ast.copy_location(ast.Expr(call), last)
            ast.fix_missing_locations(tree)
        exec(compile(tree, f"<{self.name} cell {index}>", "exec"), self.namespace)


def run_plain(notebook: Path, out: Path) -> bool:
    """Run the notebook's code cells in this process; True if every cell ran."""
    cells = json.loads(notebook.read_text())["cells"]
    session = Session(out, notebook.stem)
    log = (out / f"{notebook.stem}.log").open("w")
    here = os.getcwd()
    os.chdir(notebook.parent)
    ok = True
    try:
        for index, cell in enumerate(cells):
            if cell["cell_type"] != "code":
                continue
            source = "".join(cell["source"])
            buffer, start = io.StringIO(), time.perf_counter()
            with contextlib.redirect_stdout(buffer), contextlib.redirect_stderr(buffer):
                try:
                    session.run_cell(index, source)
                except BaseException:  # a failed assert, an error, a timeout: report, stop
                    traceback.print_exc()
                    ok = False
            seconds = time.perf_counter() - start
            log.write(f"----- cell {index} ({seconds:.1f} s)\n{source}\n----- output\n{buffer.getvalue()}\n")
            log.flush()
            print(f"{notebook.name} cell {index}: {seconds:.1f} s{'' if ok else ' FAILED'}", flush=True)
            if not ok:
                print(buffer.getvalue()[-3000:], flush=True)
                break
    finally:
        os.chdir(here)
        log.close()
    return ok


def run_kernel(notebook: Path, out: Path, timeout: int) -> bool:
    """Run the notebook in a Jupyter kernel with nbclient; save the executed copy."""
    import nbclient
    import nbformat
    nb = nbformat.read(notebook, as_version=4)
    try:
        nbclient.NotebookClient(nb, timeout=timeout, resources={"metadata": {"path": str(notebook.parent)}}
                                ).execute()
        return True
    except Exception as exc:  # nbclient's CellExecutionError names the cell
        print(f"{notebook.name}: {exc}"[-3000:], flush=True)
        return False
    finally:
        nbformat.write(nb, out / f"{notebook.stem}.ipynb")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("out", type=Path, help="folder for logs, figures, executed notebooks")
    parser.add_argument("notebooks", type=Path, nargs="+")
    parser.add_argument("--kernel", action="store_true", help="run in a Jupyter kernel (needs nbclient)")
    parser.add_argument("--cell-timeout", type=int, default=300, help="seconds per cell (--kernel)")
    args = parser.parse_args(argv)
    args.out.mkdir(parents=True, exist_ok=True)
    failed = 0
    for notebook in args.notebooks:
        start = time.perf_counter()
        ok = (run_kernel(notebook.resolve(), args.out.resolve(), args.cell_timeout) if args.kernel
              else run_plain(notebook.resolve(), args.out.resolve()))
        failed += not ok
        print(f"{notebook.name}: {'ok' if ok else 'FAILED'} in {time.perf_counter() - start:.0f} s", flush=True)
    return failed


if __name__ == "__main__":
    sys.exit(main())
