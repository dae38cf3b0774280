"""`python -m ddp_lessons progress`: what the learner's record says (`ddp_lessons.report_card`).

Reads the record a learner's kernels write (``my_progress.jsonl`` at the course's root, or
``DDP_LESSONS_JOURNAL``; ``--file`` another one, e.g. a student's handed-in copy) and prints, per lesson,
the quick checks answered and right the first time, the exercise's checks passed, how sure the learner
was and how often rightly, the numeric predictions against what the runs measured, and what to revisit.
``--json`` prints the same for machines, ``--figure PATH`` saves the figure, ``--lang es`` speaks
Spanish (default: the language this folder's notebooks speak, `i18n.language`). ``--reset`` starts a new
record after asking (``--yes`` for scripts); the old file is kept aside, renamed with the time.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

from ddp_lessons import i18n, journal, report_card
from ddp_lessons.i18n import tr


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--file", type=Path, help="the record to read (default: the course's my_progress.jsonl, "
                                                  "or DDP_LESSONS_JOURNAL)")
    parser.add_argument("--root", type=Path, help="the course's folder, for links to the lessons (default: the "
                                                  "one around this folder)")
    parser.add_argument("--lang", choices=i18n.LANGUAGES, help="the language to report in (default: the notebooks')")
    parser.add_argument("--json", action="store_true", help="print the report as JSON")
    parser.add_argument("--figure", type=Path, metavar="PNG", help="also save the figure there")
    parser.add_argument("--reset", action="store_true", help="start a new record (asks first; the old one is kept)")
    parser.add_argument("--yes", action="store_true", help="with --reset: do not ask")


def run(args: argparse.Namespace) -> int:
    lang = args.lang or i18n.language()
    root = (args.root or journal.course_root()).resolve()
    path = args.file or journal.default_path(root)
    if path is None:
        print(tr("The record is turned off here (DDP_LESSONS_JOURNAL=off): nothing to read.", lang=lang))
        return 1
    if args.reset:
        return reset(path, args.yes, lang)
    card = report_card.card(path, root, lang)
    if args.json:
        print(json.dumps(card.as_json(), ensure_ascii=False, indent=1))
    else:
        print(card.text())
    if args.figure:
        figure = card.figure()
        if figure is None:
            print(tr("No figure: the record is empty.", lang=lang), file=sys.stderr)
        else:
            figure.savefig(args.figure, dpi=100, bbox_inches="tight")
            if not args.json:
                print(tr("Figure saved to {path}", lang=lang, path=args.figure))
    return 0


def reset(path: Path, yes: bool, lang: str) -> int:
    """Move the record aside after asking (unless `yes`); 0 when done or nothing to do, 1 when declined."""
    if not path.exists():
        print(tr("There is no record at {path} yet: nothing to reset.", lang=lang, path=path))
        return 0
    events = len(journal.read(path).events)
    if not yes:
        question = tr("Start a new record? The current one ({path}, {events} records) will be kept aside, renamed "
                      "with today's date. [y/N] ", lang=lang, path=path, events=events)
        print(question, end="", flush=True)
        reply = sys.stdin.readline()
        if not reply:  # no one to answer (a script): say --yes
            print("\n" + tr("Not reset: nobody answered (add --yes to reset without being asked).", lang=lang))
            return 1
        if reply.strip().lower() not in ("y", "yes", "s", "si", "sí"):
            print(tr("Not reset.", lang=lang))
            return 1
    backup = journal.reset(path)
    print(tr("A new record starts with your next answer; the old one is kept as {backup}.", lang=lang, backup=backup))
    return 0
