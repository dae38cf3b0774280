"""``python -m ddp_lessons grade SUBMISSIONS``: options, then gradebook, wide CSV, class report and
(with ``--feedback DIR``) one feedback file per student."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from ddp_lessons.base.conventions import CELL_TIMEOUT, NOTEBOOK_PATTERN
from ddp_lessons.grading import feedback, gradebook, limits, report, sandbox
from ddp_lessons.grading.jobs import NOTEBOOK_TIMEOUT, default_jobs, grade_folder


def size(text: str) -> int | None:
    """An argparse type: ``4G``, ``300M``, ``none``."""
    try:
        return limits.parse_size(text)
    except ValueError as error:
        raise argparse.ArgumentTypeError(str(error)) from None


def count(text: str) -> int | None:
    """An argparse type: a whole number above zero, or ``none``."""
    try:
        return limits.parse_count(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a number above zero (or none)") from None


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """Options of ``grade``."""
    parser.add_argument("submissions", type=Path, help="folder of <student>/<NN_topic>.ipynb")
    parser.add_argument("--out", type=Path, default=Path("grades.csv"),
                        help="gradebook CSV to write (also OUT-wide.csv, OUT-report.md and OUT-report.png)")
    parser.add_argument("--solutions", type=Path, default=Path("solutions"),
                        help="solution notebooks: which exercises exist and what each check is worth")
    parser.add_argument("--exercise", action="append", metavar="NN_topic",
                        help="grade only this exercise (repeat for more); default: all")
    parser.add_argument("--cell-timeout", type=float, default=CELL_TIMEOUT,
                        help=f"seconds per cell (default {CELL_TIMEOUT})")
    parser.add_argument("--notebook-timeout", type=float, default=NOTEBOOK_TIMEOUT,
                        help=f"seconds per notebook, then it is killed (default {NOTEBOOK_TIMEOUT})")
    parser.add_argument("--jobs", type=int, default=default_jobs(),
                        help=f"notebooks graded at once (default cores // 2 = {default_jobs()} here)")
    parser.add_argument("--sandbox", choices=sandbox.MODES, default="auto",
                        help="auto: bubblewrap when it works here, else none with a warning (default)")
    parser.add_argument("--feedback", type=Path, metavar="DIR",
                        help="write one Markdown feedback file per student into DIR")
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


def run(args: argparse.Namespace) -> int:
    """Grade the submissions, write gradebook, wide CSV, report (and feedback); 1 if nothing was graded."""
    if not args.submissions.is_dir():
        print(f"error: {args.submissions} is not a folder of student folders", file=sys.stderr)
        return 1
    if args.jobs < 1:
        print("error: --jobs must be at least 1", file=sys.stderr)
        return 1
    try:
        bounds = limits.Limits(memory=args.memory, processes=args.processes, disk=args.disk, output=args.output)
        grades = grade_folder(args.submissions, args.solutions, args.exercise, cell_timeout=args.cell_timeout,
                              notebook_timeout=args.notebook_timeout, jobs=args.jobs, sandbox_mode=args.sandbox,
                              limits=bounds)
    except sandbox.SandboxError as error:
        print(f"error: --sandbox bwrap: {error}", file=sys.stderr)
        return 1
    if not grades:
        print(f"error: nothing to grade (no student folders in {args.submissions} or no "
              f"{NOTEBOOK_PATTERN} in {args.solutions})", file=sys.stderr)
        return 1
    gradebook.write_gradebook(grades, args.out)
    gradebook.write_wide(grades, gradebook.wide_path(args.out))
    markdown, figure = report.write_report(grades, args.out.with_name(f"{args.out.stem}-report.md"))
    print(gradebook.summary_table(grades))
    print(f"gradebook: {args.out}\none row per student: {gradebook.wide_path(args.out)}\n"
          f"class report: {markdown} (figure {figure.name})")
    if args.feedback:
        written = feedback.write_feedback(grades, args.feedback)
        print(f"feedback: {len(written)} files in {args.feedback}")
    return 0
