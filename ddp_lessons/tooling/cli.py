"""`python -m ddp_lessons COMMAND`: doctor, course, bench, bench-live, bench-comm, make-exercises, make-translations,
make-error-docs, grade, progress, site.

Each command lives in its topic module, which provides ``add_arguments(parser)`` and
``run(args) -> exit code``; modules are imported only when their command runs.
"""

from __future__ import annotations

import argparse
import importlib
import sys

COMMANDS = {
    "doctor": ("ddp_lessons.tooling.doctor", "report torch, cores, GPUs, backends and run a 2-rank smoke test"),
    "course": ("ddp_lessons.tooling.course", "execute every lesson headless and print a table of timings"),
    "bench": ("ddp_lessons.bench", "measure DDP speedup and efficiency over world sizes"),
    "bench-live": ("ddp_lessons.tooling.bench_live", "time live %%ranks cells against fresh torchrun launches"),
    "bench-comm": ("ddp_lessons.tooling.comm_bench", "fit all-reduce cost on this machine; predict DDP's communication"),
    "make-exercises": ("ddp_lessons.tooling.exercises", "generate exercises/ from solutions/"),
    "make-translations": ("ddp_lessons.tooling.translations",
                          "generate notebooks/es/ and exercises/es/ from the English and i18n/es/ catalogs"),
    "make-error-docs": ("ddp_lessons.tooling.error_docs",
                        "write the README's table of error messages and docs/ERRORS.md from runtime/signatures.py"),
    "grade": ("ddp_lessons.grading", "grade student notebooks with nbval into a gradebook CSV"),
    "progress": ("ddp_lessons.tooling.learner_progress",
                 "what your record says: quick checks right the first time, how sure you were, what to revisit"),
    "site": ("ddp_lessons.tooling.site",
             "build the course's web site (English and Spanish) into site/ from the stored notebooks"),
}


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    parser = argparse.ArgumentParser(prog="python -m ddp_lessons", description=__doc__.splitlines()[0])
    sub = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")
    for name, (_, help_text) in COMMANDS.items():
        sub.add_parser(name, help=help_text, add_help=False)
    if not argv or argv[0] not in COMMANDS:
        parser.parse_args(argv)  # prints usage and exits
    module = importlib.import_module(COMMANDS[argv[0]][0])
    command_parser = argparse.ArgumentParser(prog=f"python -m ddp_lessons {argv[0]}",
                                             description=COMMANDS[argv[0]][1])
    module.add_arguments(command_parser)
    return module.run(command_parser.parse_args(argv[1:]))


if __name__ == "__main__":
    sys.exit(main())
