"""``python -m ddp_lessons grade SUBMISSIONS``: options; the class graded here (``--jobs``) or on SLURM
(``--slurm``), each notebook's result kept in the run folder (``--resume``); then, from the merged
results, the gradebook, the wide and LMS CSVs, the class report and, when asked, one feedback file and
one Gradescope results.json per student.

The command speaks the instructor's language (`instructor_language`: ``--lang``, else ``DDP_LESSONS_LANG``,
else the shell's locale); each notebook still runs, and its student's feedback is still written, in the
notebook's own language (its metadata: `jobs.grade_notebook` sets its kernel's). What other programs read
stays as it is in every language: the CSV files (their columns and values, ``failed_checks`` included),
results.json, file names."""

from __future__ import annotations

import argparse
import contextlib
import os
import sys
from pathlib import Path

from ddp_lessons.base.conventions import CELL_TIMEOUT, NOTEBOOK_PATTERN
from ddp_lessons.base.exercise_format import ExerciseFormatError
from ddp_lessons.grading import feedback, gradebook, gradescope, hidden, limits, report, results, sandbox, slurm
from ddp_lessons.grading.jobs import NOTEBOOK_TIMEOUT, Settings, default_jobs, grade_notebooks, plan
from ddp_lessons.i18n import LANGUAGES, SOURCE, tr
from ddp_lessons.runtime.contract import LANGUAGE_ENV

LOCALE_VARIABLES = ("LC_ALL", "LC_MESSAGES", "LANG")
"""Where a shell says its language (``es_ES.UTF-8``), first set wins, as for any POSIX program's messages."""


def instructor_language(chosen: str | None = None, environ: dict[str, str] | None = None) -> str:
    """The language the command speaks: `chosen` (``--lang``); else ``DDP_LESSONS_LANG``; else the shell's
    locale (``LC_ALL``, ``LC_MESSAGES``, ``LANG``, the first set: ``es_MX.UTF-8`` is Spanish); else English."""
    environ = os.environ if environ is None else environ
    if chosen:
        return chosen
    if environ.get(LANGUAGE_ENV, "").strip().lower() in LANGUAGES:
        return environ[LANGUAGE_ENV].strip().lower()
    locale = next((environ[name] for name in LOCALE_VARIABLES if environ.get(name)), "")
    found = locale.split("_")[0].split(".")[0].lower()
    return found if found in LANGUAGES else SOURCE


@contextlib.contextmanager
def speaking(lang: str):
    """Everything the command prints, in `lang`: ``DDP_LESSONS_LANG`` set for its duration (its SLURM tasks
    inherit it, so their logs speak it too; every notebook's kernel gets its notebook's own language)."""
    before = os.environ.get(LANGUAGE_ENV)
    os.environ[LANGUAGE_ENV] = lang
    try:
        yield
    finally:
        if before is None:
            os.environ.pop(LANGUAGE_ENV, None)
        else:
            os.environ[LANGUAGE_ENV] = before


def size(text: str) -> int | None:
    """An argparse type: ``4G``, ``300M``, ``none`` (its error in the language of the shell: ``--lang`` may
    come later on the command line)."""
    with speaking(instructor_language()):
        try:
            return limits.parse_size(text)
        except ValueError as error:
            raise argparse.ArgumentTypeError(str(error)) from None


def count(text: str) -> int | None:
    """An argparse type: a whole number above zero, or ``none``."""
    try:
        return limits.parse_count(text)
    except ValueError:
        said = tr("{text!r} is not a number above zero (or none)", lang=instructor_language(), text=text)
        raise argparse.ArgumentTypeError(said) from None


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """Options of ``grade``."""
    parser.add_argument("submissions", type=Path, help="folder of <student>/<NN_topic>.ipynb")
    parser.add_argument("--out", type=Path, default=Path("grades.csv"),
                        help="gradebook CSV to write (also OUT-wide.csv, OUT-lms.csv, OUT-report.md and "
                             "OUT-report.png; every notebook's result is kept in OUT-run/)")
    parser.add_argument("--solutions", type=Path, default=Path("solutions"),
                        help="solution notebooks: which exercises exist and what each check is worth")
    parser.add_argument("--exercise", action="append", metavar="NN_topic",
                        help="grade only this exercise (repeat for more); default: all")
    parser.add_argument("--hidden", type=Path, metavar="DIR",
                        help="hidden checks: DIR/NN_topic/*.py, run after the student's own checks, with their "
                             "own points (keep DIR outside solutions/, exercises/ and the submissions)")
    parser.add_argument("--cell-timeout", type=float, default=CELL_TIMEOUT,
                        help=f"seconds per cell (default {CELL_TIMEOUT})")
    parser.add_argument("--notebook-timeout", type=float, default=NOTEBOOK_TIMEOUT,
                        help=f"seconds per notebook, then it is killed (default {NOTEBOOK_TIMEOUT})")
    parser.add_argument("--jobs", type=int, default=None,
                        help=f"notebooks graded at once (default cores // 2 = {default_jobs()} here; with "
                             "--slurm: in each task, default 1)")
    parser.add_argument("--sandbox", choices=sandbox.MODES, default="auto",
                        help="auto: bubblewrap when it works here, else none with a warning (default)")
    parser.add_argument("--feedback", type=Path, metavar="DIR",
                        help="write one Markdown feedback file per student into DIR")
    parser.add_argument("--gradescope", type=Path, metavar="DIR",
                        help="write a Gradescope autograder results.json per student: DIR/<student>/results.json")
    parser.add_argument("--lang", choices=LANGUAGES,
                        help="the language of what this command prints and of the class report (default: "
                             "DDP_LESSONS_LANG, else the shell's locale, e.g. LANG=es_ES.UTF-8); each student's "
                             "feedback follows their notebooks' language")
    parser.add_argument("--resume", action="store_true",
                        help="keep what an interrupted run (same options) graded in OUT-run/ and grade the rest")
    sizes = limits.size_text
    parser.add_argument("--memory", type=size, default=limits.MEMORY, metavar="SIZE",
                        help=f"memory per notebook, all its processes together (default {sizes(limits.MEMORY)}; "
                             "e.g. 8G; none for no limit)")
    parser.add_argument("--disk", type=size, default=limits.DISK, metavar="SIZE",
                        help=f"bytes a notebook may write to disk, and into its private /tmp "
                             f"(default {sizes(limits.DISK)})")
    parser.add_argument("--processes", type=count, default=limits.PROCESSES, metavar="N",
                        help=f"processes and threads a notebook may run at once (default {limits.PROCESSES})")
    parser.add_argument("--output", type=size, default=limits.OUTPUT, metavar="SIZE",
                        help=f"output a notebook may print (default {sizes(limits.OUTPUT)})")
    cluster = parser.add_argument_group("grading on a SLURM cluster (docs/INSTRUCTORS.md, 'Grading on SLURM')")
    cluster.add_argument("--slurm", action="store_true",
                         help="grade through one sbatch job array (run this on the cluster's login node; OUT's "
                              "folder must be shared with the nodes)")
    cluster.add_argument("--partition", help="sbatch --partition")
    cluster.add_argument("--account", help="sbatch --account")
    cluster.add_argument("--time-per-task", metavar="T",
                         help="sbatch --time of each task, e.g. 30 (minutes) or 1:00:00 (default: its notebooks "
                              "at --notebook-timeout each, plus 5 minutes)")
    cluster.add_argument("--tasks-in-flight", type=int, metavar="K",
                         help="at most K tasks running at once (sbatch --array=...%%K; default: no cap)")
    cluster.add_argument("--per-task", type=int, metavar="N",
                         help=f"notebooks per task (default: as many tasks as the partition runs at once, at "
                              f"least {slurm.PER_TASK} notebooks each, fewer when the task's time limit would pass "
                              "the partition's)")
    cluster.add_argument("--sbatch-arg", action="append", default=[], metavar="ARG",
                         help="one more sbatch option, as written (repeat), e.g. --sbatch-arg=--qos=short")


def manifest(settings: Settings, exercises: list[str] | None) -> dict:
    """What the run folder records: how it grades (a --resume must match it) and for which exercises."""
    return {"settings": settings.to_dict(), "exercises": sorted(exercises) if exercises else None}


def run(args: argparse.Namespace) -> int:
    """Grade the submissions (here, or on SLURM), then write the gradebook and the rest; 0 when every
    notebook was graded, 2 when some could not be (named), 130 when interrupted, 1 on errors. It speaks
    the instructor's language (`instructor_language`)."""
    with speaking(instructor_language(getattr(args, "lang", None))):
        return grade(args)


def error(message: str) -> int:
    """Print `message` as the command's error; the exit code of an error."""
    print(tr("error: {message}", message=message), file=sys.stderr)
    return 1


def grade(args: argparse.Namespace) -> int:
    """`run`, in the language already chosen."""
    if not args.submissions.is_dir():
        return error(tr("{folder} is not a folder of student folders", folder=str(args.submissions)))
    jobs_at_once = args.jobs if args.jobs is not None else (1 if args.slurm else default_jobs())
    if jobs_at_once < 1:
        return error(tr("{option} must be at least 1", option="--jobs"))
    for option in ("per_task", "tasks_in_flight"):
        if getattr(args, option) is not None and getattr(args, option) < 1:
            return error(tr("{option} must be at least 1", option="--" + option.replace("_", "-")))
    run_dir, notebooks = results.run_folder(args.out), []
    try:
        if args.hidden is not None:
            hidden.check_folder(args.hidden, [args.solutions, args.solutions.parent / "exercises", args.submissions])
        bounds = limits.Limits(memory=args.memory, processes=args.processes, disk=args.disk, output=args.output)
        settings = Settings(args.submissions, args.solutions, args.hidden, args.cell_timeout,
                            args.notebook_timeout, bounds, args.sandbox)
        notebooks = plan(args.submissions, args.solutions, args.exercise)
        if not notebooks:
            return error(tr("nothing to grade (no student folders in {submissions} or no {pattern} in {solutions})",
                            submissions=str(args.submissions), pattern=NOTEBOOK_PATTERN,
                            solutions=str(args.solutions)))
        for exercise in {notebook.exercise for notebook in notebooks}:
            settings.checks(exercise)  # every solution and hidden check reads before anything runs
        results.start_run(run_dir, manifest(settings, args.exercise), args.resume)
        kept = results.read_results(run_dir, notebooks, args.submissions) if args.resume else {}
        for notebook in notebooks:  # a result of a notebook handed in again since does not count
            if notebook not in kept:
                results.result_path(run_dir, notebook).unlink(missing_ok=True)
        todo = [notebook for notebook in notebooks if notebook not in kept]
        if args.resume:
            print(tr("--resume: {kept} of {total} notebooks already graded in {run}", kept=len(kept),
                     total=len(notebooks), run=str(run_dir)), flush=True)
        missing: dict = {}
        if args.slurm:
            options = slurm.Options(args.partition, args.account, args.time_per_task, args.tasks_in_flight,
                                    args.per_task, jobs_at_once, tuple(args.sbatch_arg))
            missing = slurm.grade(settings, todo, run_dir, options, graded_before=len(kept))
        elif todo:
            grade_notebooks(settings, todo, jobs_at_once, run=run_dir)
    except (sandbox.SandboxError, hidden.HiddenCheckError, ExerciseFormatError, slurm.SlurmError,
            ValueError) as problem:
        return error(str(problem))
    except slurm.Interrupted as stopped:
        graded = len(results.read_results(run_dir, notebooks, args.submissions))
        print("\n" + tr("interrupted: cancelled SLURM job {job} (scancel {job}); {graded} of {total} notebooks are "
                        "graded and kept in {run}: run the same command with --resume to grade the rest",
                        job=stopped.job_id, graded=graded, total=len(notebooks), run=str(run_dir)),
              file=sys.stderr, flush=True)
        return 130
    except KeyboardInterrupt:
        graded = len(results.read_results(run_dir, notebooks, args.submissions))
        print("\n" + tr("interrupted: {graded} of {total} notebooks are graded and kept in {run}: run the same "
                        "command with --resume to grade the rest", graded=graded, total=len(notebooks),
                        run=str(run_dir)), file=sys.stderr, flush=True)
        return 130
    found = results.read_results(run_dir, notebooks, args.submissions)
    why = {n: missing.get(n) or results.Reason(lambda lang: tr("no result in {run}", lang=lang, run=str(run_dir)))
           for n in notebooks if n not in found}
    grades = results.merge(notebooks, found, settings.checks, why)
    write_outputs(grades, args)
    ungraded = [grade for grade in grades if not grade.graded]
    if ungraded:
        print(not_graded(ungraded, why), file=sys.stderr)
        return 2
    return 0


def not_graded(ungraded: list, why: dict) -> str:
    """What the command says of the notebooks it could not grade (each with why, in the instructor's
    language; the gradebook stores why in English)."""
    lines = [tr("NOT GRADED ({count} notebooks, no points given; grade them with --resume):", count=len(ungraded))]
    for grade in ungraded:
        reason = why.get(results.Notebook(grade.student, grade.exercise))
        said = tr("not graded: {why}", why=reason.said) if isinstance(reason, results.Reason) else grade.note
        lines.append(f"  {grade.student}/{grade.exercise}: {said}")
    return "\n".join(lines)


def write_outputs(grades: list, args: argparse.Namespace) -> None:
    """The gradebook, the wide and LMS CSVs, the class report, and the feedback and Gradescope files asked for."""
    gradebook.write_gradebook(grades, args.out)
    gradebook.write_wide(grades, gradebook.wide_path(args.out))
    gradebook.write_lms(grades, gradebook.lms_path(args.out))
    journals = report.first_answers(args.submissions, sorted({grade.student for grade in grades}))
    markdown, figure = report.write_report(grades, args.out.with_name(f"{args.out.stem}-report.md"), journals)
    print(gradebook.summary_table(grades))
    print(tr("gradebook: {gradebook}\none row per student: {wide}\nfor an LMS import: {lms}\n"
             "class report: {report} (figure {figure})", gradebook=str(args.out),
             wide=str(gradebook.wide_path(args.out)), lms=str(gradebook.lms_path(args.out)), report=str(markdown),
             figure=figure.name))
    if args.feedback:
        written = feedback.write_feedback(grades, args.feedback)
        print(tr("feedback: {count} files in {folder}", count=len(written), folder=str(args.feedback)))
    if args.gradescope:
        written, skipped = gradescope.write_results(grades, args.gradescope)
        print(tr("Gradescope results: {count} files in {folder}", count=len(written), folder=str(args.gradescope))
              + (tr(" (none for {students}: not every exercise graded)", students=", ".join(skipped))
                 if skipped else ""))
