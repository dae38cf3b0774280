"""Running cells on a live group's ranks (``%%ranks``, ``%ranks_gather``): send the code to the
ranks' engines, wait, and when a rank fails, the cell runs past its timeout, the stop button is
pressed or a rank's process ends, stop the rest and say why (`results.CellResult`).

`RankGroup` (live/group.py) owns the processes; a `CellRunner` is its cell side: it reads the
group's engines and pids and calls its ``interrupt`` and ``stop``.
"""

from __future__ import annotations

import contextlib
import time
from typing import TYPE_CHECKING, Sequence

from ddp_lessons.i18n import tr
from ddp_lessons.live import hangs
from ddp_lessons.live.results import CellEnd, CellResult, LiveError, collect
from ddp_lessons.runtime import processes

if TYPE_CHECKING:
    from ddp_lessons.live.group import RankGroup

FAILURE_GRACE = 2.0
"""Seconds the other ranks get to finish after one rank's cell fails, before they are interrupted."""
INTERRUPT_GRACE = 5.0
"""Seconds a rank gets to stop after SIGINT; one that does not is stuck in native code (a collective)."""
POLL = 0.02
"""Seconds between two looks at a running cell."""
LIVENESS_EVERY = 0.5
"""Seconds between two checks that every targeted rank's process still runs."""


class CellRunner:
    """Runs cells on a `RankGroup`'s ranks and keeps the last `CellResult`."""

    def __init__(self, group: "RankGroup"):
        self.group = group
        self.last_result: CellResult | None = None
        self._cells: dict[str, str] = {}  # ipykernel's name of a cell's file on the ranks -> its code

    def execute(self, code: str, ranks: Sequence[int] | None = None,
                timeout: float | None = None) -> CellResult:
        """Run `code` on `ranks` (default all); wait; return each rank's output, result and state."""
        ranks = self._targets(ranks)
        name = hangs.cell_name(code)
        if name:
            self._cells[name] = code
        return self._wait(self._view(ranks).execute(code, silent=False, block=False), ranks, timeout, name)

    def evaluate(self, expression: str, ranks: Sequence[int] | None = None,
                 timeout: float | None = None) -> CellResult:
        """Evaluate `expression` on `ranks`; each rank's value is in ``.outputs[i].value``."""
        ranks = self._targets(ranks)
        return self._wait(self._view(ranks).apply_async(_evaluate, expression), ranks, timeout)

    def gather(self, expression: str, ranks: Sequence[int] | None = None,
               timeout: float | None = None) -> list:
        """The value of `expression` on each rank, as a list in rank order (raises if a rank fails)."""
        result = self.evaluate(expression, ranks, timeout)
        result.raise_for_failure()
        return [out.value for out in result.outputs]

    def _targets(self, ranks: Sequence[int] | None) -> list[int]:
        group = self.group
        if not group.running:
            raise LiveError(tr("no live ranks are running: start them with `%ranks start 2` "
                               "(or `%ranks restart` after a stop)"))
        ranks = group.ranks if ranks is None else sorted(set(ranks))
        wrong = [r for r in ranks if r not in group.engines]
        if wrong:
            raise LiveError(tr("no rank {rank}: the group has ranks {ranks}", rank=wrong[0], ranks=group.ranks))
        return ranks

    def _view(self, ranks: list[int]):
        """ipyparallel's DirectView of these ranks' engines (one engine: results are not lists)."""
        engines = [self.group.engines[r] for r in ranks]
        return self.group.client[engines[0] if len(engines) == 1 else engines]

    def _wait(self, async_result, ranks: list[int], timeout: float | None,
              cell: str | None = None) -> CellResult:
        """Wait for one cell on `ranks`; on failure, timeout or Ctrl-C interrupt the rest, collect all.

        On a timeout every busy rank's stack is taken first (`hangs.take`); otherwise the stacks of
        ranks that did not stop when interrupted are taken before the group is stopped.
        """
        timeout = self.group.cell_timeout if timeout is None else timeout
        parts = dict(zip(ranks, async_result.split()))
        start = time.monotonic()
        end = self._watch(async_result, parts, timeout, start)
        busy = [r for r, part in parts.items() if not part.ready()]
        result = CellResult(outputs=[], timed_out=end == CellEnd.TIMED_OUT, timeout=timeout,
                            interrupted=end == CellEnd.INTERRUPTED)
        if busy and end == CellEnd.TIMED_OUT:  # where is each rank waiting? (before the interrupt moves it)
            self._take_stacks(result, busy, cell)
        if busy and end != CellEnd.RANK_ENDED:
            self.group.interrupt(busy)
            with contextlib.suppress(KeyboardInterrupt):  # a second press of the stop button
                async_result.wait(INTERRUPT_GRACE)
        stuck = [r for r in busy if not parts[r].ready()]
        if stuck and end not in (CellEnd.TIMED_OUT, CellEnd.RANK_ENDED):  # stuck in native code, e.g. a collective
            self._take_stacks(result, stuck, cell)
        # torchrun ends every rank once one has exited: report what is left as exited
        exited = [r for r in ranks if not parts[r].ready()] if end == CellEnd.RANK_ENDED else []
        result.outputs, result.seconds = collect(parts, exited), time.monotonic() - start
        self.last_result = result
        if result.stuck or end == CellEnd.RANK_ENDED:
            result.group_stopped = True
            self.group.stop()
        return result

    def _watch(self, async_result, parts: dict, timeout: float, start: float) -> CellEnd:
        """Wait until the cell ends on every rank, or why the kernel stops waiting first."""
        checked, failed_at = start, None
        try:
            while not async_result.wait(POLL):
                now = time.monotonic()
                if failed_at is None and any(part.ready() and not part.successful() for part in parts.values()):
                    failed_at = now
                if failed_at is not None and now - failed_at > FAILURE_GRACE:
                    return CellEnd.FAILED
                if now - start > timeout:
                    return CellEnd.TIMED_OUT
                if now - checked > LIVENESS_EVERY:  # a rank's process ended (crashed, or killed from outside)
                    checked = now
                    pids = [self.group.pids[r] for r in parts]
                    if len(processes.alive(pids)) < len(pids) or not self.group.running:
                        return CellEnd.RANK_ENDED
        except KeyboardInterrupt:
            return CellEnd.INTERRUPTED
        return CellEnd.FAILED if failed_at is not None else CellEnd.FINISHED

    def _take_stacks(self, result: CellResult, ranks: list[int], cell: str | None) -> None:
        hangs.take(result, {r: self.group.pids[r] for r in ranks}, self.group.run_dir, self._cells, cell)


def _evaluate(expression: str):
    """(runs on a rank) `expression` evaluated in the rank's namespace."""
    from IPython import get_ipython

    return eval(expression, get_ipython().user_ns)
