"""One task of ``grade --slurm``'s job array: ``python -m ddp_lessons.grading.task RUN ROUND INDEX``.

It reads how to grade from the run folder's manifest (`jobs.Settings`) and its slice from the round's
task lists (`slurm.write_round`), grades each notebook of its slice that has no result yet (a re-run
task skips what its first try finished) with `jobs.grade_notebooks` on the CPUs SLURM gave it, and
marks itself done (`slurm.marker`: its host, the notebooks it graded, the seconds that took, and the
seconds from its process's start until it began: its share of what SLURM adds to grading). Its output
(the limits line, one line per notebook) is the task's log.
"""

from __future__ import annotations

import json
import os
import socket
import sys
import time
from pathlib import Path

import psutil

from ddp_lessons.grading import jobs, results, slurm
from ddp_lessons.i18n import tr


def main(argv: list[str] | None = None) -> int:
    run, round_number, index = argv or sys.argv[1:]
    run, round_number, index = Path(run), int(round_number), int(index)
    manifest = json.loads((run / results.MANIFEST).read_text(encoding="utf-8"))
    settings = jobs.Settings.from_dict(manifest["settings"])
    at_once, tasks = slurm.read_round(run, round_number)
    todo = [notebook for notebook in tasks[index] if not results.result_path(run, notebook).exists()]
    cores = int(os.environ.get("SLURM_CPUS_PER_TASK") or 0) or None
    start = time.perf_counter()
    startup = time.time() - psutil.Process().create_time()  # Python, the package, the run folder
    print(tr("task {index} of round {round} on {host}: {todo} of {size} notebook(s) to grade, {at_once} at once",
             index=index, round=round_number + 1, host=socket.gethostname(), todo=len(todo), size=len(tasks[index]),
             at_once=at_once), flush=True)
    jobs.grade_notebooks(settings, todo, at_once, run=run, cores=cores)
    slurm.marker(run, round_number, index).write_text(json.dumps(
        {"host": socket.gethostname(), "graded": len(todo), "seconds": round(time.perf_counter() - start, 1),
         "startup": round(startup, 1)}),
        encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())
