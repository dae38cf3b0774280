"""What one live cell left on each rank, and how it is shown: grouped by rank, in rank order, each
line labelled ``[rank r]`` and printed from the kernel's Python (so Jupyter and nbval see it)."""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any, Iterable

_ANSI = re.compile(r"\x1b\[[0-9;]*[A-Za-z]")
_BANNER = re.compile(r"^(\[\d+:\w+\]|-{20,})$")  # IPython's "[1:execute]" and "-----" lines
STATES = {"ok": "finished", "error": "raised", "interrupted": "interrupted",
          "running": "still running: did not stop when interrupted (stuck in native code, e.g. "
                     "waiting in a collective for a rank that never called it)",
          "exited": "its process ended during the cell (it crashed or was killed, or torchrun "
                    "stopped it because another rank's process ended)"}


@dataclass
class RankOutput:
    """One rank's part of a cell: state ('ok', 'error', 'interrupted', 'running'), output, value."""

    rank: int
    state: str
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
class CellResult:
    """Every targeted rank's `RankOutput` in rank order, and how the cell ended."""

    outputs: list[RankOutput]
    seconds: float = 0.0
    timed_out: bool = False
    timeout: float = 0.0
    interrupted: bool = False
    group_stopped: bool = False
    stacks: dict[int, str] = field(default_factory=dict)
    """On a timeout (or ranks that would not stop): each such rank's Python stack, before the interrupt."""
    where: dict[int, str] = field(default_factory=dict)
    """{rank: one line}: the cell line the rank waited at and the torch call (`live.hangs.where`)."""
    stack_tool: str | None = None
    """"py-spy" or "faulthandler": what took `stacks`; None if nothing could (see `stack_note`)."""
    stack_note: str = ""
    stack_seconds: float = 0.0

    @property
    def ok(self) -> bool:
        """Whether the cell finished on every rank without an error."""
        return all(out.state == "ok" for out in self.outputs) and not (self.timed_out or self.interrupted)

    @property
    def stuck(self) -> list[int]:
        """Ranks still running after the interrupt, or gone (the group cannot be used any more)."""
        return [out.rank for out in self.outputs if out.state in ("running", "exited")]

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
            head = f"the cell ran past its timeout ({self.timeout:g} s) and was interrupted on every rank"
        elif self.interrupted:
            head = "the cell was interrupted (KeyboardInterrupt) on every rank"
        else:
            head = "; ".join([f"rank {out.rank} raised {out.error}" for out in self.outputs
                              if out.state == "error"] +
                             [f"rank {out.rank}'s process ended" for out in self.outputs
                              if out.state == "exited"]) or "the cell failed"
        states = [f"  rank {out.rank}: {STATES[out.state]}" + (f" ({out.error})" if out.error else "")
                  for out in self.outputs]
        if self.stack_tool:
            states.append(f"where each rank was waiting (Python stacks taken with {self.stack_tool}; "
                          "full stacks: `%ranks stacks` or err.result.stacks[rank]):")
            states += [f"  rank {rank} {self.where[rank]}" for rank in sorted(self.where)]
            if self.stack_note:
                states.append(f"  ({self.stack_note})")
        elif self.stack_note:
            states.append(f"no Python stacks could be captured: {self.stack_note}")
        if self.group_stopped:
            tail = ("the group was stopped because a rank could not be stopped any other way; "
                    "`%ranks restart` starts a fresh one (every rank's variables are gone)")
        else:
            tail = "the group is still usable (each rank keeps its variables)"
        return "\n".join([head, *states, tail])

    def raise_for_failure(self) -> None:
        """Raise `RankCellError` with `summary()` unless the cell finished on every rank."""
        if not self.ok:
            error = (RankInterrupt if self.interrupted else RankCellError)(self.summary())
            error.result = self
            raise error


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


def collect(parts: dict, exited: Iterable[int] = ()) -> list[RankOutput]:
    """A `RankOutput` per rank from ipyparallel's per-engine AsyncResults ({rank: result})."""
    outputs = []
    for rank, part in sorted(parts.items()):
        if not part.ready():
            outputs.append(RankOutput(rank, "exited" if rank in exited else "running"))
            continue
        part.wait_for_output(2.0)
        out = RankOutput(rank, "ok", stdout=_text(part.stdout), stderr=_text(part.stderr),
                         displays=list(_first(part.outputs) or []))
        error = part.exception()
        if error is None:
            out.value = part.get()
            reply = getattr(out.value, "execute_result", None) if _is_reply(out.value) else None
            if reply:
                out.result_text = reply.get("data", {}).get("text/plain")
        else:
            name, message = getattr(error, "ename", type(error).__name__), getattr(error, "evalue", str(error))
            out.state = "interrupted" if name == "KeyboardInterrupt" else "error"
            out.error = f"{name}: {message}" if message else name
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
