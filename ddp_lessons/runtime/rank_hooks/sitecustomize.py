"""Run by Python at start-up in every rank `ddp_lessons.launch.run_torchrun` starts (its folder is
put first on PYTHONPATH). It only records evidence for the launcher, into ``<run dir>/diagnose/``:

* ``rank<R>.stack.txt``: every thread's Python stack, written by `faulthandler` when the launcher
  sends SIGUSR1 (the fallback when py-spy cannot attach to a hung rank);
* ``rank<R>.error.json``: an uncaught exception's type, message, time and traceback (the rank's
  own account of why it failed, instead of text parsed from the interleaved output);
* ``rank<R>.exit.json``: when the rank's Python exited through its normal shutdown (the script
  ended, returned, called sys.exit, or raised), so that a rank that left early is named with its time;
* a crash in native code (SIGSEGV, SIGABRT, ...) prints the Python stack to stderr first.

It does nothing outside a launcher-started rank, and then runs the sitecustomize it hides, if any.
It runs before the package may be imported, so it spells out the job contract's names below;
tests/test_contract.py pins them to `ddp_lessons.runtime.contract`.
"""

import os

RUN_DIR_ENV, RUN_ID_ENV, HOOKED_ENV = "DDP_LESSONS_RUN_DIR", "TORCHELASTIC_RUN_ID", "DDP_LESSONS_HOOKED"
EVIDENCE_DIR, STACK_FILE, ERROR_FILE = "diagnose", "rank{rank}.stack.txt", "rank{rank}.error.json"
EXIT_FILE = "rank{rank}.exit.json"


def _install() -> None:
    run_dir, rank = os.environ.get(RUN_DIR_ENV), os.environ.get("RANK")
    if not run_dir or rank is None or RUN_ID_ENV not in os.environ \
            or os.environ.get(HOOKED_ENV):  # a rank's own subprocesses keep out
        return
    os.environ[HOOKED_ENV] = str(os.getpid())
    import faulthandler
    import signal
    import sys

    folder = os.path.join(run_dir, EVIDENCE_DIR)
    os.makedirs(folder, exist_ok=True)
    if hasattr(signal, "SIGUSR1"):  # not on Windows
        stack_file = open(os.path.join(folder, STACK_FILE.format(rank=rank)), "w")  # faulthandler keeps it
        faulthandler.register(signal.SIGUSR1, file=stack_file, all_threads=True)
    faulthandler.enable(all_threads=True)
    previous_hook = sys.excepthook

    def record_exit() -> None:
        try:
            import json
            import time
            path = os.path.join(folder, EXIT_FILE.format(rank=rank))
            with open(path + ".tmp", "w") as out:
                json.dump({"rank": int(rank), "time": time.time(), "pid": os.getpid()}, out)
            os.replace(path + ".tmp", path)
        except Exception:
            pass

    import atexit
    atexit.register(record_exit)

    def record_exception(kind, value, tb) -> None:
        try:
            import json
            import time
            import traceback
            path = os.path.join(folder, ERROR_FILE.format(rank=rank))
            with open(path + ".tmp", "w") as out:
                json.dump({"rank": int(rank), "time": time.time(), "type": kind.__name__,
                           "message": str(value),
                           "traceback": "".join(traceback.format_exception(kind, value, tb))}, out)
            os.replace(path + ".tmp", path)
        except Exception:  # never hide the rank's own error behind one of ours
            pass
        previous_hook(kind, value, tb)

    sys.excepthook = record_exception


def _chain() -> None:
    """Run the next ``sitecustomize`` on sys.path (e.g. the distribution's), which this one hides."""
    import importlib.machinery
    import importlib.util
    import sys

    here = os.path.dirname(os.path.abspath(__file__))
    rest = [p for p in sys.path if os.path.abspath(p or ".") != here]
    spec = importlib.machinery.PathFinder.find_spec("sitecustomize", rest)
    if spec is not None and spec.loader is not None:
        module = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(module)


try:
    _install()
except Exception as exc:  # the rank must run even where its evidence cannot be recorded
    print(f"ddp_lessons rank hooks not installed: {exc!r}", file=__import__("sys").stderr)
finally:
    _chain()
