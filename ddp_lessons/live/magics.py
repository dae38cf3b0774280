"""The notebook side of live ranks: ``%ranks``, ``%%ranks`` and ``%ranks_gather`` (lesson 2's
playground, notebooks/00_playground.ipynb).

    %load_ext ddp_lessons.live
    %ranks start 2              # [--backend gloo|nccl] [--threads N] [--timeout S]
    %%ranks                     # the cell runs on every rank; or %%ranks 0, %%ranks --ranks 0,1
    values = %ranks_gather x    # x on every rank, as a list in rank order (--ranks 0,1 for some)
    %ranks status | restart | stop
    %ranks stacks               # after a timed-out cell: each rank's full Python stack
"""

from __future__ import annotations

import argparse
import shlex
import time

from IPython.core.error import UsageError
from IPython.core.magic import Magics, line_cell_magic, line_magic, magics_class

from ddp_lessons.i18n import tr
from ddp_lessons.live.group import RankGroup

_group: RankGroup | None = None


def current() -> RankGroup:
    """The notebook's live group (started or stopped); UsageError before `%ranks start`."""
    if _group is None:
        raise UsageError(tr("no live ranks yet: run `%ranks start 2` first"))
    return _group


def parse_ranks(text: str | None) -> list[int] | None:
    """'0', '0,1' or '0-2' as a list of ranks; None or 'all' for every rank."""
    if text is None or text.strip() in ("", "all"):
        return None
    ranks: list[int] = []
    try:
        for part in text.split(","):
            first, _, last = part.strip().partition("-")
            ranks += range(int(first), int(last or first) + 1)
    except ValueError:
        raise UsageError(tr("ranks are written 0 or 0,1 or 0-3 (or all), not {text!r}", text=text)) from None
    return sorted(set(ranks))


class _Parser(argparse.ArgumentParser):
    def error(self, message):
        raise UsageError(f"{self.prog}: {message}\n{self.format_usage()}")


def _start_parser() -> _Parser:
    parser = _Parser(prog="%ranks start", add_help=False)
    parser.add_argument("nproc", type=int, nargs="?", default=2, help="ranks to start")
    parser.add_argument("--backend", choices=("gloo", "nccl"), default=None)
    parser.add_argument("--threads", type=int, default=None, help="CPU threads per rank")
    parser.add_argument("--timeout", type=float, default=None, help="default seconds per cell")
    return parser


def _cell_parser() -> _Parser:
    parser = _Parser(prog="%%ranks", add_help=False)
    parser.add_argument("ranks", nargs="?", default=None, help="0, 0,1, 0-3 or all (default all)")
    parser.add_argument("--ranks", dest="ranks_option", default=None)
    parser.add_argument("--timeout", type=float, default=None, help="seconds before the cell is stopped")
    return parser


@magics_class
class RankMagics(Magics):
    """``%ranks`` (start/status/restart/stop), ``%%ranks`` (run a cell) and ``%ranks_gather``."""

    @line_cell_magic
    def ranks(self, line: str, cell: str | None = None):
        """%ranks start N | status | stacks | restart | stop;  %%ranks [RANKS] [--ranks R] [--timeout S]"""
        if cell is not None:
            return self._run_cell(line, cell)
        command, _, rest = line.strip().partition(" ")
        if command == "start":
            return self._start(rest)
        if command == "restart":
            started = time.monotonic()
            current().restart()
            return self._announce(current(), started)
        if command == "stop":
            if _group is not None:
                _group.stop()
            print(tr("live ranks stopped") if _group is not None else tr("no live ranks to stop"))
            return None
        if command == "status":
            print(current().status())
            return None
        if command == "stacks":
            print(stacks_text(current()))
            return None
        raise UsageError(tr("usage: %ranks start N | status | stacks | restart | stop, or %%ranks [RANKS] "
                            "as a cell"))

    def _start(self, arguments: str) -> None:
        global _group
        options = _start_parser().parse_args(shlex.split(arguments))
        if _group is not None and _group.running:
            raise UsageError(tr("live ranks are already running: `%ranks restart` for a fresh group, "
                                "or `%ranks stop` first"))
        started = time.monotonic()
        group = RankGroup(options.nproc, backend=options.backend, threads_per_rank=options.threads,
                          **({"cell_timeout": options.timeout} if options.timeout else {}))
        _group = group
        group.start()
        self._announce(group, started)

    @staticmethod
    def _announce(group: RankGroup, started: float) -> None:
        for rank in group.ranks:
            print(f"[rank {rank}] {group.describe[rank]}")
        print(tr("{count} ranks joined the process group in {seconds:.1f} s", count=group.nproc,
                 seconds=time.monotonic() - started))

    def _run_cell(self, line: str, cell: str) -> None:
        options = _cell_parser().parse_args(shlex.split(line))
        if options.ranks and options.ranks_option:
            raise UsageError(tr("give the ranks once: `%%ranks 0,1` or `%%ranks --ranks 0,1`"))
        result = current().execute(cell, parse_ranks(options.ranks or options.ranks_option),
                                   timeout=options.timeout)
        result.show()
        result.raise_for_failure()

    @line_magic
    def ranks_gather(self, line: str):
        """values = %ranks_gather [--ranks R] EXPRESSION: the expression on each rank, in rank order."""
        ranks = None
        words = line.strip().split(None, 2)
        if words and words[0] == "--ranks":
            if len(words) < 3:
                raise UsageError(tr("usage: %ranks_gather [--ranks 0,1] EXPRESSION"))
            ranks, expression = parse_ranks(words[1]), words[2]
        else:
            expression = line.strip()
        if not expression:
            raise UsageError(tr("usage: %ranks_gather [--ranks 0,1] EXPRESSION"))
        result = current().evaluate(expression, ranks)
        if not result.ok:
            result.show()  # the failing rank's traceback, then every rank's state
            result.raise_for_failure()
        return [out.value for out in result.outputs]


def stacks_text(group: RankGroup) -> str:
    """The last cell's per-rank Python stacks (taken on a timeout), rank by rank, or why there are none."""
    result = group.last_result
    if result is None or not (result.stacks or result.stack_note):
        return tr("no stacks: they are taken when a cell runs past its timeout (or a rank will not stop)")
    if not result.stacks:
        return tr("no Python stacks could be captured: {why}", why=result.stack_note)
    return result.hang.full_stacks()


def load_ipython_extension(ipython) -> None:
    """``%load_ext ddp_lessons.live``: register the magics."""
    ipython.register_magics(RankMagics)


def unload_ipython_extension(ipython) -> None:
    """Stop the live group when the extension is unloaded."""
    if _group is not None:
        _group.stop()
