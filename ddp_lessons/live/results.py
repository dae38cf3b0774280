"""What one live cell left on each rank, and how it is shown: grouped by rank, in rank order, each
line labelled ``[rank r]`` and printed from the kernel's Python (so Jupyter and nbval see it)."""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any, Iterable

from ddp_lessons.base.compat import StrEnum
from ddp_lessons.i18n import tr
from ddp_lessons.runtime.hang_report import HangFields, HangReport, Wording
from ddp_lessons.tracebacks import exception_text

_ANSI = re.compile(r"\x1b\[[0-9;]*[A-Za-z]")
_BANNER = re.compile(r"^(\[\d+:\w+\]|-{20,})$")  # IPython's "[1:execute]" and "-----" lines


class RankState(StrEnum):
    """How a cell ended on one rank."""

    OK = "ok"
    ERROR = "error"
    INTERRUPTED = "interrupted"
    RUNNING = "running"  # did not stop when interrupted
    EXITED = "exited"  # its process ended during the cell


class CellEnd(StrEnum):
    """Why the kernel stopped waiting for a cell on the ranks."""

    FINISHED = "finished"  # every rank finished
    FAILED = "failure"  # a rank failed, and the others had their grace period
    TIMED_OUT = "timeout"
    INTERRUPTED = "interrupt"  # Jupyter's stop button
    RANK_ENDED = "ended"  # a rank's process ended (torchrun then ends the others)


STATES = {RankState.OK: lambda: tr("finished"), RankState.ERROR: lambda: tr("raised"),
          RankState.INTERRUPTED: lambda: tr("interrupted"),
          RankState.RUNNING: lambda: tr("still running: did not stop when interrupted (stuck in native code, e.g. "
                                        "waiting in a collective for a rank that never called it)"),
          RankState.EXITED: lambda: tr("its process ended during the cell (it crashed or was killed, or torchrun "
                                       "stopped it because another rank's process ended)")}
"""How each `RankState` reads in a cell's summary (in the notebook's language)."""
HANG_WORDING = Wording(
    lambda tool: tr("where each rank was waiting (Python stacks taken with {tool}; full stacks: `%ranks stacks` or "
                    "err.result.stacks[rank]):", tool=tool), indent="  ", separator=" ")
"""How a cell's summary words its hang report: only the ranks whose stack was taken."""


@dataclass
class RankOutput:
    """One rank's part of a cell: its `RankState`, output, value."""

    rank: int
    state: RankState
    stdout: str = ""
    stderr: str = ""
    value: Any = None
    result_text: str | None = None  # the cell's last expression, as Jupyter would print it
    error: str | None = None  # "ZeroDivisionError: division by zero"
    traceback: str = ""
    displays: list = field(default_factory=list)

    def lines(self) -> list[str]:
        """This rank's output as ``[rank r] ...`` lines: stdout, stderr, result, traceback."""
        text = self.stdout + self.stderr
        if self.result_text is not None:
            text += ("" if not text or text.endswith("\n") else "\n") + f"Out: {self.result_text}"
        if self.traceback:
            text += ("" if not text or text.endswith("\n") else "\n") + self.traceback
        return [f"[rank {self.rank}] {line}" for line in text.splitlines()]


@dataclass
class CellResult(HangFields):
    """Every targeted rank's `RankOutput` in rank order, and how the cell ended."""

    outputs: list[RankOutput]
    seconds: float = 0.0
    timed_out: bool = False
    timeout: float = 0.0
    interrupted: bool = False
    group_stopped: bool = False
    hang: HangReport = field(default_factory=HangReport)
    """On a timeout (or ranks that would not stop): where each such rank was, before the interrupt
    (also as ``.stacks``, ``.where``: the cell line the rank waited at and the torch call)."""

    @property
    def ok(self) -> bool:
        """Whether the cell finished on every rank without an error."""
        return all(out.state == RankState.OK for out in self.outputs) and not (self.timed_out or self.interrupted)

    @property
    def stuck(self) -> list[int]:
        """Ranks still running after the interrupt, or gone (the group cannot be used any more)."""
        return [out.rank for out in self.outputs if out.state in (RankState.RUNNING, RankState.EXITED)]

    def show(self) -> None:
        """Print every rank's lines grouped by rank; republish figures a rank displayed."""
        from IPython.display import publish_display_data

        for out in self.outputs:
            for line in out.lines():
                print(line)
            for display in out.displays:
                publish_display_data(data=display["data"], metadata=display.get("metadata") or {})

    def summary(self) -> str:
        """Why the cell failed and the state of every rank, one line each."""
        if self.timed_out:
            head = tr("the cell ran past its timeout ({timeout:g} s) and was interrupted on every rank",
                      timeout=self.timeout)
        elif self.interrupted:
            head = tr("the cell was interrupted (KeyboardInterrupt) on every rank")
        else:
            head = "; ".join([tr("rank {rank} raised {error}", rank=out.rank, error=out.error) for out in self.outputs
                              if out.state == RankState.ERROR] +
                             [tr("rank {rank}'s process ended", rank=out.rank) for out in self.outputs
                              if out.state == RankState.EXITED]) or tr("the cell failed")
        states = [tr("  rank {rank}: {cause}", rank=out.rank, cause=STATES[out.state]())
                  + (f" ({out.error})" if out.error else "") for out in self.outputs]
        states += self.hang.lines(sorted(self.hang.where), HANG_WORDING)
        if self.group_stopped:
            tail = tr("the group was stopped because a rank could not be stopped any other way; `%ranks restart` "
                      "starts a fresh one (every rank's variables are gone)")
        else:
            tail = tr("the group is still usable (each rank keeps its variables)")
        return "\n".join([head, *states, tail])

    def raise_for_failure(self) -> None:
        """Raise `RankCellError` with `summary()` unless the cell finished on every rank."""
        if not self.ok:
            error = (RankInterrupt if self.interrupted else RankCellError)(self.summary())
            error.result = self
            raise error


class LiveError(RuntimeError):
    """The live group could not start, or is not running."""


class RankCellError(RuntimeError):
    """A live cell failed on at least one rank; the message gives every rank's state, ``.result``
    the `CellResult` (with ``.stacks`` and ``.where`` after a timeout)."""

    result: "CellResult | None" = None

    def _render_traceback_(self) -> list[str]:  # IPython shows this instead of the kernel-side stack
        return [f"{type(self).__name__}: {self}"]


class RankInterrupt(KeyboardInterrupt):
    """A live cell was interrupted (Jupyter's stop button); the message gives every rank's state."""

    result: "CellResult | None" = None

    _render_traceback_ = RankCellError._render_traceback_


OUTPUT_WAIT = 10.0
"""Seconds to wait, at most, for what a finished rank printed to arrive after its reply (ipyparallel
sends them apart; 2 s lost a rank's print at load 8)."""


def collect(parts: dict, exited: Iterable[int] = ()) -> list[RankOutput]:
    """A `RankOutput` per rank from ipyparallel's per-engine AsyncResults ({rank: result})."""
    outputs = []
    for rank, part in sorted(parts.items()):
        if not part.ready():
            outputs.append(RankOutput(rank, RankState.EXITED if rank in exited else RankState.RUNNING))
            continue
        part.wait_for_output(OUTPUT_WAIT)  # a reply can arrive before the last of what the rank printed
        out = RankOutput(rank, RankState.OK, stdout=_text(part.stdout), stderr=_text(part.stderr),
                         displays=list(_first(part.outputs) or []))
        error = part.exception()
        if error is None:
            out.value = part.get()
            reply = getattr(out.value, "execute_result", None) if _is_reply(out.value) else None
            if reply:
                out.result_text = reply.get("data", {}).get("text/plain")
        else:
            name, message = getattr(error, "ename", type(error).__name__), getattr(error, "evalue", str(error))
            out.state = RankState.INTERRUPTED if name == "KeyboardInterrupt" else RankState.ERROR
            out.error = exception_text(name, message)
            rendered = error.render_traceback() if hasattr(error, "render_traceback") else [str(error)]
            lines = _ANSI.sub("", "\n".join(rendered)).splitlines()
            out.traceback = "\n".join(line for line in lines if not _BANNER.match(line))
        outputs.append(out)
    return outputs


def _is_reply(value: Any) -> bool:
    return type(value).__name__ == "ExecuteReply"


def _first(value):
    return value[0] if isinstance(value, list) and value and isinstance(value[0], list) else value


def _text(value) -> str:
    if isinstance(value, list):
        value = "".join(value)
    return _ANSI.sub("", value or "")
