"""Scripts the course runs under torchrun by path; `bench_train` is also imported (lesson 9's runner)."""
import runpy
import sys
from pathlib import Path
from typing import Sequence


def run_as_main(script: str, args: Sequence[str]) -> None:
    """Run `script` in this process as ``python SCRIPT ARGS...`` would: as __main__, with its argv and
    its folder first on sys.path. The observers use it to run a student's script with calls patched."""
    sys.argv = [script, *args]
    sys.path[0] = str(Path(script).resolve().parent)
    runpy.run_path(script, run_name="__main__")
