"""``grade --slurm``: the class graded by a SLURM job array, each task running the same per-notebook step
as local grading (`jobs.grade_notebooks`, same sandbox, limits and timeouts) on its slice, on its node.

The driver (this module, on the machine where the instructor types the command):

1. deals the notebooks still to grade into tasks of ``--per-task`` notebooks (by default as many tasks
   as the partition runs at once, at least `PER_TASK` notebooks each: `per_task`), every task a mix of
   exercises (sorted by exercise, dealt round-robin), and writes the list to the run folder, which must
   be on a file system the nodes share (it sits beside ``--out``);
2. submits one array with ``sbatch`` (``--array=0-N%K`` for ``--tasks-in-flight K``), each task asking
   for 2 CPUs per notebook it grades at once (``--jobs``, default 1), the memory limit per notebook
   plus 1 GiB, and a time limit (``--time-per-task``; default: every notebook of the task at its
   notebook timeout, plus 5 minutes);
3. waits with a live progress line (tasks pending / running / done / failed, notebooks graded);
4. re-runs once, as a second array, every task that failed or ran past its time, for the notebooks it
   left ungraded; what a second failure leaves is reported by name (`merge` makes them NOT_GRADED:
   no points, never a silent zero) and ``--resume`` grades them later;
5. on Ctrl-C, cancels the array (``scancel``) and says so.

Each task (`task`) writes one result file per notebook as soon as it is graded (`results`), so an
interrupted run loses nothing it finished, and the driver merges them like local grading's.
"""

from __future__ import annotations

import json
import math
import os
import shutil
import subprocess
import sys
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Callable

from ddp_lessons.grading import results
from ddp_lessons.grading.limits import GiB, MiB, Limits
from ddp_lessons.grading.results import Notebook, Reason
from ddp_lessons.i18n import tr

PER_TASK = 8
"""Notebooks per task at least, by default: about 2-6 minutes of a node for realistic submissions, so each
task's start (its Python, the package, the limit probes; a few seconds) stays small beside its work."""
MAX_TASKS = 1000
"""Tasks per array at most (SLURM's default MaxArraySize is 1001): more notebooks per task beyond."""
CPUS_PER_NOTEBOOK = 2
"""Each exercise launches 2 ranks: a task asks for 2 CPUs per notebook it grades at once."""
MARGIN_MINUTES = 5
GRACE = 15.0
"""Seconds a task that left the queue without its results may take to show them (a shared file system's
caches), before it counts as failed; a task whose log says why SLURM ended it fails at once."""
SLURM_ENDS = (("DUE TO TIME LIMIT", lambda lang: tr("ran past its time limit", lang=lang)),
              ("DUE TO PREEMPTION", lambda lang: tr("was preempted", lang=lang)),
              ("DUE TO NODE FAILURE", lambda lang: tr("lost its node", lang=lang)),
              ("oom-kill", lambda lang: tr("ran out of the memory it asked for", lang=lang)),
              ("Exceeded job memory limit", lambda lang: tr("ran out of the memory it asked for", lang=lang)),
              ("CANCELLED", lambda lang: tr("was cancelled", lang=lang)))
"""What slurmstepd writes into a task's output when SLURM ends it (its words, in English whatever the
locale), and what that means in a language, first match wins."""


class SlurmError(RuntimeError):
    """SLURM refused the job (sbatch missing, or its error)."""


class Interrupted(Exception):
    """Ctrl-C while the array ran: it was cancelled; `job_id` names it."""

    def __init__(self, job_id: str | None):
        super().__init__(job_id)
        self.job_id = job_id


@dataclass(frozen=True)
class Options:
    """What ``grade --slurm`` asks SLURM for."""

    partition: str | None = None
    account: str | None = None
    time_per_task: str | None = None
    tasks_in_flight: int | None = None
    per_task: int | None = None
    jobs: int = 1
    """Notebooks a task grades at once (``--jobs``)."""
    sbatch_args: tuple[str, ...] = ()
    poll: float = 2.0
    """Seconds between looks at the queue; after `SLOW_AFTER` seconds, `SLOW_POLL`: kind to a busy slurmctld."""


SLOW_AFTER, SLOW_POLL = 120.0, 10.0


def per_task(options: Options, count: int, slots: int | None = None, max_minutes: int | None = None,
             notebook_timeout: float = 900) -> int:
    """Notebooks per task: ``--per-task``; else enough that the array is one wave of the `slots` tasks
    the partition runs at once (``--tasks-in-flight`` at most), at least `PER_TASK` (a task's start is
    paid once per slot, not once per `PER_TASK` notebooks: on a small cluster the difference is most of
    SLURM's overhead), and more when the array would pass `MAX_TASKS`; but never so many that the
    default time limit of a task passes the partition's `max_minutes` (then sbatch would refuse the array)."""
    if options.per_task:
        return options.per_task
    slots = min((n for n in (slots, options.tasks_in_flight) if n), default=None)
    size = max(PER_TASK, math.ceil(count / MAX_TASKS), math.ceil(count / slots) if slots else 0)
    if max_minutes is not None and options.time_per_task is None:
        fits = (max_minutes - MARGIN_MINUTES) * 60 // max(1.0, notebook_timeout) * max(1, options.jobs)
        size = min(size, max(1, int(fits)))
    return size


def parse_minutes(text: str) -> int | None:
    """A SLURM time limit as sinfo prints it (``infinite``, ``30:00``, ``4:00:00``, ``2-00:00:00``) in
    whole minutes; None for no limit or what it cannot read."""
    days, _, clock = text.strip().rpartition("-")
    parts = clock.split(":")
    if not all(part.isdigit() for part in parts) or not 2 <= len(parts) <= 3 or (days and not days.isdigit()):
        return None
    hours, minutes, seconds = ([0] * (3 - len(parts)) + [int(part) for part in parts])
    return (int(days or 0) * 24 + hours) * 60 + minutes + (seconds > 0)


def capacity(sinfo: str, partition: str | None, cpus_per_task: int) -> tuple[int | None, int | None]:
    """(tasks the partition runs at once, its time limit in minutes) from ``sinfo -h -N -o %P|%N|%c|%l``
    lines: `partition`'s nodes (the default partition, marked ``*``, without one), each running
    cpus // `cpus_per_task` tasks; (None, None) when no node of it is listed."""
    nodes: dict[str, int] = {}
    limits: set[int | None] = set()
    for line in sinfo.splitlines():
        fields = line.strip().split("|")
        if len(fields) != 4 or not fields[2].isdigit():
            continue
        name, default = fields[0].rstrip("*"), fields[0].endswith("*")
        if (partition is None and default) or name == partition:
            nodes[fields[1]] = int(fields[2])
            limits.add(parse_minutes(fields[3]))
    if not nodes:
        return None, None
    slots = sum(cpus // max(1, cpus_per_task) for cpus in nodes.values())
    known = [limit for limit in limits if limit is not None]
    return slots or None, (min(known) if known and None not in limits else None)


def query_capacity(options: Options, env: dict[str, str] | None) -> tuple[int | None, int | None]:
    """`capacity` of the partition the array goes to, asked of ``sinfo`` (nodes that can run jobs);
    (None, None) when sinfo does not answer."""
    command = ["sinfo", "-h", "-N", "--states=idle,mixed,allocated,completing", "-o", "%P|%N|%c|%l"]
    command += [f"--partition={options.partition}"] if options.partition else []
    try:
        done = subprocess.run(command, capture_output=True, text=True, timeout=60, env=env)
    except (OSError, subprocess.TimeoutExpired):
        return None, None
    if done.returncode != 0:
        return None, None
    return capacity(done.stdout, options.partition, CPUS_PER_NOTEBOOK * options.jobs)


def deal(notebooks: list[Notebook], size: int) -> list[list[Notebook]]:
    """`notebooks` dealt into ceil(n / size) tasks: sorted by exercise, round-robin, so every task holds
    a mix of cheap and costly exercises and the last task is not the slowest."""
    count = max(1, math.ceil(len(notebooks) / size))
    ordered = sorted(notebooks, key=lambda n: (n.exercise, n.student))
    return [ordered[index::count] for index in range(count) if ordered[index::count]]


def task_minutes(size: int, jobs: int, notebook_timeout: float) -> int:
    """The default time limit of a task of `size` notebooks: each at its notebook timeout, plus a margin."""
    return math.ceil(math.ceil(size / max(1, jobs)) * notebook_timeout / 60) + MARGIN_MINUTES


def memory_request(limits: Limits, jobs: int) -> str | None:
    """``--mem`` for a task: each notebook's memory limit plus 1 GiB for pytest and the grader; None
    when memory is unlimited (then the cluster's default applies)."""
    if limits.memory is None:
        return None
    return f"{math.ceil((jobs * limits.memory + GiB) / MiB)}M"


def job_script(python: str) -> str:
    """The batch script every task runs: the package's task entry point, with its run folder, round and index."""
    return ("#!/bin/bash\n"
            "# Written by `python -m ddp_lessons grade --slurm`: task $SLURM_ARRAY_TASK_ID grades its slice of\n"
            "# the class (run folder $1, round $2), one result file per notebook.\n"
            f'exec "{python}" -m ddp_lessons.grading.task "$1" "$2" "$SLURM_ARRAY_TASK_ID"\n')


def sbatch_command(run: Path, round_number: int, tasks: int, size: int, options: Options,
                   settings_limits: Limits, notebook_timeout: float) -> list[str]:
    """The ``sbatch`` command line that submits one round's array."""
    folder = round_folder(run, round_number)
    array = f"0-{tasks - 1}" + (f"%{options.tasks_in_flight}" if options.tasks_in_flight else "")
    command = ["sbatch", "--parsable", f"--array={array}", "--job-name=ddp-grade", f"--chdir={run}",
               f"--output={folder}/task-%a.out", f"--cpus-per-task={CPUS_PER_NOTEBOOK * options.jobs}",
               f"--time={options.time_per_task or task_minutes(size, options.jobs, notebook_timeout)}"]
    memory = memory_request(settings_limits, options.jobs)
    command += [f"--mem={memory}"] if memory else []
    command += [f"--partition={options.partition}"] if options.partition else []
    command += [f"--account={options.account}"] if options.account else []
    return command + list(options.sbatch_args) + [str(run / "slurm" / "grade.sbatch"), str(run), str(round_number)]


def round_folder(run: Path, round_number: int) -> Path:
    """The folder of a round: ``slurm/round-1`` for round number 0, as its logs and messages count rounds."""
    return run / "slurm" / f"round-{round_number + 1}"


def next_round(run: Path) -> int:
    """The first round number no earlier submission into `run` used: a ``--resume`` gets folders of its own,
    so an old round's logs and done-markers cannot pass for its tasks' (they stay for the instructor to read)."""
    used = [int(folder.name.split("-", 1)[1]) for folder in (run / "slurm").glob("round-*")
            if folder.name.split("-", 1)[1].isdigit()]
    return max(used, default=0)  # round-N holds round number N - 1


def write_round(run: Path, round_number: int, tasks: list[list[Notebook]], jobs: int) -> Path:
    """The round's task lists, as the tasks read them."""
    folder = round_folder(run, round_number)
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / "tasks.json"
    path.write_text(json.dumps({"jobs": jobs, "tasks": [[[n.student, n.exercise] for n in task] for task in tasks]}),
                    encoding="utf-8")
    return path


def read_round(run: Path, round_number: int) -> tuple[int, list[list[Notebook]]]:
    """(notebooks at once, each task's notebooks) of one round."""
    stored = json.loads((round_folder(run, round_number) / "tasks.json").read_text(encoding="utf-8"))
    return stored["jobs"], [[Notebook(*pair) for pair in task] for task in stored["tasks"]]


def marker(run: Path, round_number: int, index: int) -> Path:
    """Written by a task once it has graded its slice (what it did, where, how long)."""
    return round_folder(run, round_number) / f"task-{index}.done"


def queue_states(job_id: str, env: dict[str, str] | None) -> dict[int, str] | None:
    """{array index: state} of the job's tasks still known to the queue (pending, running, completing);
    None when squeue did not answer (the driver asks again)."""
    try:
        done = subprocess.run(["squeue", "-h", "-r", "-j", job_id, "-o", "%K %T"], capture_output=True, text=True,
                              timeout=60, env=env)
    except (OSError, subprocess.TimeoutExpired):
        return None
    if done.returncode != 0:
        return {} if "Invalid job id" in done.stderr else None  # every task ended and was purged
    states = {}
    for line in done.stdout.splitlines():
        index, _, state = line.strip().partition(" ")
        if index.isdigit():
            states[int(index)] = state
    return states


def why_ended(log: Path) -> Reason | None:
    """Why SLURM ended a task, from what slurmstepd wrote into its output (None when it says nothing)."""
    try:
        text = log.read_text(encoding="utf-8", errors="replace")[-20000:]
    except OSError:
        return None
    return next((Reason(meaning) for found, meaning in SLURM_ENDS if found in text), None)


def last_words(log: Path, lang: str | None = None) -> str:
    """The last line of a task's output, for a failure nobody explained (``no output`` said in `lang`)."""
    try:
        lines = [line for line in log.read_text(encoding="utf-8", errors="replace").splitlines() if line.strip()]
    except OSError:
        lines = []
    return lines[-1].strip()[:200] if lines else tr("no output", lang=lang)


class Progress:
    """The live progress line: rewritten in place on a terminal (with the time so far); elsewhere (a log)
    a new line each time the counts change."""

    def __init__(self, stream=None):
        self.stream = stream or sys.stdout
        self.live = self.stream.isatty()
        self.last = ""

    def show(self, counts: str, elapsed: float) -> None:
        if self.live:
            self.stream.write(f"\r\033[K{counts} ({elapsed:.0f} s)")
        elif counts != self.last:
            self.stream.write(f"{counts} ({elapsed:.0f} s)\n")
        self.last = counts
        self.stream.flush()

    def end(self) -> None:
        if self.live and self.last:
            self.stream.write("\n")
            self.stream.flush()
        self.last = ""


def submit(command: list[str], env: dict[str, str] | None) -> str:
    """Run `command` (sbatch --parsable ...); the job id."""
    if shutil.which("sbatch", path=(env or os.environ).get("PATH")) is None:
        raise SlurmError(tr("sbatch is not on PATH: --slurm submits from a machine with SLURM's commands "
                            "(a cluster's login node)"))
    done = subprocess.run(command, capture_output=True, text=True, timeout=120, env=env)
    if done.returncode != 0:
        raise SlurmError(tr("sbatch refused the job: {said}\n(the command: {command})",
                            said=done.stderr.strip() or done.stdout.strip(), command=" ".join(command)))
    return done.stdout.strip().split(";")[0]


def cancel(job_id: str, env: dict[str, str] | None) -> bool:
    """``scancel JOB``: whether SLURM accepted it."""
    try:
        return subprocess.run(["scancel", job_id], capture_output=True, timeout=60, env=env).returncode == 0
    except (OSError, subprocess.TimeoutExpired):
        return False


def run_round(run: Path, round_number: int, tasks: list[list[Notebook]], settings, options: Options,
              env: dict[str, str] | None, progress: Progress, total: int, graded_before: int, again: bool = False
              ) -> dict[int, str]:
    """Submit one round's array and wait for every task to end; {task index: why it failed} of the tasks
    that left notebooks ungraded (in English, and `Reason.said` in the instructor's language)."""
    write_round(run, round_number, tasks, options.jobs)
    command = sbatch_command(run, round_number, len(tasks), max(map(len, tasks)), options, settings.limits,
                             settings.notebook_timeout)
    job_id = submit(command, env)
    print(tr("submitted SLURM job {job}: {tasks} task(s) of up to {size} notebook(s)", job=job_id, tasks=len(tasks),
             size=max(map(len, tasks)))
          + (tr(" (round {round}: tasks that failed, once more)", round=round_number + 1) if again else "")
          + tr("; logs in {folder}", folder=str(round_folder(run, round_number))), flush=True)
    left_queue: dict[int, float] = {}
    failed: dict[int, str] = {}
    start = time.monotonic()

    def wait() -> None:
        time.sleep(options.poll if time.monotonic() - start < SLOW_AFTER else max(options.poll, SLOW_POLL))

    try:
        while True:
            states = queue_states(job_id, env)
            if states is None:  # slurmctld busy or restarting: ask again
                progress.show(tr("SLURM job {job}: squeue did not answer, asking again", job=job_id),
                              time.monotonic() - start)
                wait()
                continue
            now = time.monotonic()
            done = set()
            for index, task in enumerate(tasks):
                if index in failed:
                    continue
                graded = all(results.result_path(run, n).exists() for n in task)
                if graded and (index not in states or marker(run, round_number, index).exists()):
                    done.add(index)  # its work is on disk: no need to wait until SLURM has purged it
                    continue
                if index in states:
                    continue
                left_queue.setdefault(index, now)
                log = round_folder(run, round_number) / f"task-{index}.out"
                why = why_ended(log)
                if why is None and marker(run, round_number, index).exists():
                    why = Reason(lambda lang: tr("ended without a result for some of its notebooks: {last}",
                                                 lang=lang, last=last_words(log, lang)))
                if why is None and now - left_queue[index] >= GRACE:
                    why = Reason(lambda lang: tr("ended without finishing: {last}", lang=lang,
                                                 last=last_words(log, lang)))
                if why is not None:
                    failed[index] = why
            pending = sum(state in ("PENDING", "CONFIGURING", "REQUEUED") for state in states.values())
            running = sum(index not in done for index in states) - pending
            graded = graded_before + sum(results.result_path(run, n).exists() for task in tasks for n in task)
            progress.show(tr("SLURM job {job}: {pending} pending, {running} running, {done} done, {failed} failed "
                             "of {tasks} task(s); {graded}/{total} notebooks graded", job=job_id, pending=pending,
                             running=running, done=len(done), failed=len(failed), tasks=len(tasks), graded=graded,
                             total=total), time.monotonic() - start)
            if len(done) + len(failed) == len(tasks):
                progress.end()
                return failed
            wait()
    except KeyboardInterrupt:
        progress.end()
        cancel(job_id, env)
        raise Interrupted(job_id) from None


def grade(settings, notebooks: list[Notebook], run: Path, options: Options, env: dict[str, str] | None = None,
          progress: Progress | None = None, graded_before: int = 0) -> dict[Notebook, str]:
    """Grade `notebooks` on SLURM into the run folder `run` (its manifest written); {notebook: why} of
    those still ungraded after their task failed twice (`Reason`s: English, and said). A notebook not handed in scores zero here,
    without a task."""
    from ddp_lessons.grading import scoring

    for notebook in [n for n in notebooks if not settings.submission(n).is_file()]:
        results.write_result(run, notebook, scoring.unscored(notebook.student, notebook.exercise,
                                                             list(settings.checks(notebook.exercise)),
                                                             scoring.NOT_SUBMITTED, "not submitted"), None)
        graded_before += 1
    notebooks = [n for n in notebooks if settings.submission(n).is_file()]
    if not notebooks:
        return {}
    (run / "slurm").mkdir(parents=True, exist_ok=True)
    script = run / "slurm" / "grade.sbatch"
    script.write_text(job_script(sys.executable), encoding="utf-8")
    script.chmod(0o755)
    progress = progress or Progress()
    total = graded_before + len(notebooks)
    slots, max_minutes = (None, None) if options.per_task else query_capacity(options, env)
    tasks = deal(notebooks, per_task(options, len(notebooks), slots, max_minutes, settings.notebook_timeout))
    if slots:
        print(tr("the partition runs {slots} task(s) of {cpus} CPUs at once", slots=slots,
                 cpus=CPUS_PER_NOTEBOOK * options.jobs)
              + (tr(", {minutes} minutes each at most", minutes=max_minutes) if max_minutes else "")
              + tr(": {notebooks} notebook(s) in {tasks} task(s) (--per-task N to choose)", notebooks=len(notebooks),
                   tasks=len(tasks)), flush=True)
    ungraded: dict[Notebook, str] = {}
    first = next_round(run)
    for round_number in (first, first + 1):
        failed = run_round(run, round_number, tasks, settings, options, env, progress, total, graded_before,
                           again=round_number > first)
        left = {index: [n for n in tasks[index] if not results.result_path(run, n).exists()]
                for index in failed}
        for index, why in failed.items():
            print(tr("task {index} of round {round} {why}: {count} notebook(s) not graded", index=index,
                     round=round_number + 1, why=why.said, count=len(left[index])), file=sys.stderr, flush=True)
        if round_number == first:
            tasks = [left[index] for index in sorted(left) if left[index]]
            if not tasks:
                break
            graded_before = total - sum(map(len, tasks))
            continue
        for index, why in failed.items():
            for notebook in left[index]:
                ungraded[notebook] = Reason(lambda lang, why=why: tr(
                    "its SLURM task failed twice (last: {why})", lang=lang, why=why.said if lang is None else why))
    return ungraded
