"""Scripts the course runs on ranks by path, and how the course finds and loads a script.

Every script here runs inside a rank, so it imports only lesson helpers (`backend`, `records`, ...),
never a check, a runner or the runtime (tests/test_layers.py). `bench_train` is also imported
(lesson 9's runner); a check imports the data its rank script uses from that script.

One home for what checks, runners and rank scripts each used to write themselves: `path` (a
packaged script), `load_module` (a script as a module, its ``main()`` not run) and `run_as_main`.
"""
import importlib.util
import runpy
import sys
from pathlib import Path
from types import ModuleType
from typing import Sequence

from ddp_lessons.i18n import tr


def path(name: str) -> str:
    """The path of the packaged script `name` (e.g. ``"smoke_allreduce.py"``), for torchrun."""
    found = Path(__file__).with_name(name)
    if not found.is_file():
        raise FileNotFoundError(tr("ddp_lessons/scripts has no {name}", name=name))
    return str(found)


def load_module(script: str | Path, name: str | None = None) -> ModuleType:
    """The script at `script` as a fresh module named `name` (default: its file name), without
    running its ``main()``; loaded afresh on every call, so edits to the file count."""
    spec = importlib.util.spec_from_file_location(name or Path(script).stem, script)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def run_as_main(script: str, args: Sequence[str]) -> None:
    """Run `script` in this process as ``python SCRIPT ARGS...`` would: as __main__, with its argv and
    its folder first on sys.path. The observers use it to run a student's script with calls patched."""
    sys.argv = [script, *args]
    sys.path[0] = str(Path(script).resolve().parent)
    runpy.run_path(script, run_name="__main__")
