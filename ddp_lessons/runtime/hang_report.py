"""Where each rank of a hung job was: one report and one renderer for the launcher's `RunTimeoutError`
and for a live cell that ran past its timeout (lesson 10, docs/LIVE.md).

`capture` takes the report before the job or cell is stopped: each rank's Python stack (`stacks`:
py-spy, else the faulthandler fallback), tidied for display, and one line per rank from a locator
the caller gives (the launched script's line for a job, the cell's line for a live rank).
`HangReport.lines` renders it in the caller's `Wording`; both runners keep their own words, in the
notebook's language (`ddp_lessons.i18n.tr`, called when the report is rendered).

Per-rank facts are dicts keyed by rank and one rank's line is composed in `HangReport.rank_line`
alone, so a new fact about a rank (the innermost frame of the learner's own code, or when a rank
that had already exited ended) is one more field here and one more clause there.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Callable, Iterable

from ddp_lessons.i18n import tr
from ddp_lessons.runtime import stacks
from ddp_lessons.runtime.rank_output import shorten_paths


@dataclass(frozen=True)
class Wording:
    """How a runner words the report: its heading (given the tool that took the stacks; it says where
    the learner finds the full stacks), the indent and separator of a rank's line, the text for a rank
    without a stack (None: such a rank is left out), and whether to say why when nothing was captured
    and no note says so. Texts are functions, so they speak the language of the moment they are shown."""

    heading: Callable[[str], str]
    indent: str = ""
    separator: str = ": "
    missing: Callable[[], str] | None = None
    always_say_why: bool = False


@dataclass
class HangReport:
    """Each hung rank's Python stack and where it waited; the tool that took them, or why none could."""

    stacks: dict[int, str] = field(default_factory=dict)
    """{rank: its full Python stack}, paths shortened."""
    where: dict[int, str] = field(default_factory=dict)
    """{rank: one line}, e.g. ``in barrier() at scripts/x.py:14: dist.barrier()``."""
    tool: str | None = None
    """"py-spy" or "faulthandler": what took `stacks`; None if nothing could (see `note`)."""
    note: str = ""
    """Why some or all stacks are missing."""
    seconds: float = 0.0
    """What the capture cost."""
    exited: dict[int, str] = field(default_factory=dict)
    """{rank: how and when it had already exited}, e.g. ``had already exited, 1.4 s after the job
    started (its Python ended without an error)``: a rank with no stack because it left early."""

    def lines(self, ranks: Iterable[int], wording: Wording) -> list[str]:
        """The report as message lines: a heading naming the tool, one line per rank, the note."""
        ranks = list(ranks)
        if not self.tool:
            lines = [tr("no Python stacks could be captured: {why}", why=self.note or tr("unknown reason"))] \
                if self.note or wording.always_say_why else []
            return lines + [f"{wording.indent}rank {rank}{wording.separator}{self.exited[rank]}"
                            for rank in ranks if rank in self.exited]
        lines = [wording.heading(self.tool)]
        lines += [line for rank in ranks if (line := self.rank_line(rank, wording)) is not None]
        if self.note:
            lines.append(f"{wording.indent}({self.note})")
        return lines

    def rank_line(self, rank: int, wording: Wording) -> str | None:
        """Rank `rank`'s line of the report, or None when it has no stack and the wording leaves it out."""
        where = self.where.get(rank) or self.exited.get(rank) or (wording.missing and wording.missing())
        return None if where is None else f"{wording.indent}rank {rank}{wording.separator}{where}"

    def full_stacks(self) -> str:
        """Every captured rank's full stack under a ``--- rank r (tool): where`` line, rank by rank."""
        return "\n".join(f"--- rank {rank} ({self.tool}): {self.where[rank]}\n{text.rstrip()}"
                         for rank, text in sorted(self.stacks.items()))


class HangFields:
    """A run's or a cell's result that carries a `HangReport` as ``.hang`` shows its fields under the
    names lessons and learners use: ``err.result.stacks[rank]``, ``err.result.where[rank]``, ..."""

    hang: HangReport

    @property
    def stacks(self) -> dict[int, str]:
        """Each hung rank's Python stack, taken before the job was killed (or the cell interrupted)."""
        return self.hang.stacks

    @property
    def where(self) -> dict[int, str]:
        """{rank: one line}: where the rank waited (the script's or the cell's line) and the torch call."""
        return self.hang.where

    @property
    def stack_tool(self) -> str | None:
        """"py-spy" or "faulthandler": what took `stacks`; None if nothing could (see `stack_note`)."""
        return self.hang.tool

    @property
    def stack_note(self) -> str:
        """Why some or all stacks are missing."""
        return self.hang.note

    @property
    def stack_seconds(self) -> float:
        """What the capture cost."""
        return self.hang.seconds


def capture(pids: dict[int, int], run_dir, locate: Callable[[str], str],
            tidy: Callable[[str], str] = shorten_paths) -> HangReport:
    """The report on the ranks `pids` ({rank: pid}): their stacks (`tidy` for display) and where each
    waits (`locate` reads one stack). Bounded by `stacks.CAPTURE_SECONDS`; a failing capture becomes
    the report's note, since a diagnosis must never hide the hang itself (KeyboardInterrupt passes)."""
    try:
        got = stacks.capture(pids, run_dir)
    except Exception as exc:
        got = stacks.Capture({}, None, tr("stack capture failed: {error!r}", error=exc))
    return HangReport(stacks={rank: tidy(text) for rank, text in got.stacks.items()},
                      where={rank: locate(text) for rank, text in got.stacks.items()},
                      tool=got.tool, note=got.note, seconds=got.seconds)
