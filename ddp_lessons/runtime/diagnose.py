"""Why did a run fail, and which rank caused it? (the launcher's error messages; lesson 10)

Evidence, most reliable first:

1. **How each rank process ended**: torchrun's agent is the ranks' parent, so only it learns their
   exit status (``waitpid``). Its end-of-run report lists *every* failed rank as ``rank : R``
   with ``exitcode : E (pid: P)``; a negative code is the signal that killed the rank. The
   agent's own log lines ``Sending process P closing signal SIGTERM`` say which ranks *it*
   stopped after a first failure. We read those structured fields, not the report's
   "Root Cause (first observed failure)", which is a race: it is whichever failure the agent's
   polling loop saw first, often a peer's consequence (measured: a rank SIGKILLed while its peer
   waits in a collective, the peer's "Connection closed by peer" is reported as the root cause).
2. **The rank's own error record**: every launched rank records an uncaught exception (type,
   message, time, traceback) in ``<run dir>/diagnose/rank<R>.error.json`` (see
   ``rank_hooks/sitecustomize.py``), so it is not parsed out of interleaved output. A rank's
   output (a ``Traceback``, read by `ddp_lessons.tracebacks`) is the fallback, e.g. under an
   interpreter that skips sitecustomize.

3. **When a rank's Python exited** (``rank<R>.exit.json``, written by the rank hooks at exit): a
   rank that is not in torchrun's report of failed ranks exited with code 0.

Attribution: a rank that died by a signal it did not get from torchrun, exited with a bare code
(no traceback) or raised its own exception is a root cause; a rank whose error is a lost peer
connection (gloo "Connection closed by peer", "Read error", "Connection reset") and a rank torchrun
stopped are consequences. Root causes come first (signal, bare exit, raise; earliest raise first).
When the only failures are lost peers, a rank that exited with code 0 *left early* (a rank-local
``break``, early stop or fewer batches) and is named as the root cause, with the collective its
peer was still in; a hung run's message names the ranks that had already exited (`exited_ranks`).
"""

from __future__ import annotations

import json
import re
import signal
from dataclasses import dataclass
from pathlib import Path
from typing import Iterable, Sequence

from ddp_lessons import tracebacks
from ddp_lessons.base.compat import StrEnum
from ddp_lessons.i18n import tr
from ddp_lessons.runtime import signatures, stacks
from ddp_lessons.runtime.contract import ERROR_FILE, EXIT_FILE, evidence_files
from ddp_lessons.runtime.hang_report import Wording
from ddp_lessons.runtime.rank_output import shorten_paths, tail

PEER_LOST = ("Connection closed by peer", "Read error", "Connection reset", "Broken pipe")
"""Words of a collective's error when another rank went away (a consequence, not a cause)."""
SIGNAL_MEANING = {
    "SIGKILL": lambda: tr("often the out-of-memory killer; check dmesg / memory per rank"),
    "SIGSEGV": lambda: tr("a crash in native code (C++/CUDA, an extension, or torch itself), not a Python error"),
    "SIGABRT": lambda: tr("native code called abort() (a failed C++ check, 'terminate called ...')"),
    "SIGBUS": lambda: tr("a bad memory access, often a full /dev/shm (shared memory for DataLoader workers)"),
    "SIGFPE": lambda: tr("an arithmetic fault in native code"),
    "SIGILL": lambda: tr("an illegal CPU instruction in native code (a binary built for another CPU)"),
    "SIGTERM": lambda: tr("asked to stop (by torchrun, a scheduler or a person)"),
    "SIGINT": lambda: tr("interrupted (Ctrl-C)"),
}
"""What a signal usually means when it ends a rank (in the notebook's language: `signal_meaning`)."""


def signal_meaning(name: str) -> str | None:
    """What signal `name` (``"SIGKILL"``) usually means when it ends a rank, or None."""
    meaning = SIGNAL_MEANING.get(name)
    return meaning() if meaning else None

_REPORT_RANK = re.compile(r"^\s*rank\s*:\s*(\d+)\s*\(local_rank")
_REPORT_EXIT = re.compile(r"^\s*exitcode\s*:\s*(-?\d+)\s*\(pid:\s*(\d+)\)")
_STOPPED_BY_AGENT = re.compile(r"(?:Sending process|Unable to shutdown process) (\d+)")
TIMEOUT_WORDING = Wording(
    lambda tool: tr("where each rank was (Python stacks taken with {tool}; full stacks: err.result.stacks[rank]):",
                    tool=tool),
    missing=lambda: tr("no stack (no live process of this rank)"), always_say_why=True)
"""How `RunTimeoutError` words its hang report: every rank listed, one without a stack said so."""


class FailureKind(StrEnum):
    """How a failed rank ended, root causes first (the order `attribute` sorts by)."""

    SIGNAL = "signal"  # killed by a signal torchrun did not send
    EXIT = "exit"  # exited with a code, no Python traceback
    RAISED = "raised"  # raised its own exception
    LEFT_EARLY = "left-early"  # exited with code 0 while its peers still ran the training loop
    PEER_LOST = "peer-lost"  # its collective lost a peer: a consequence
    STOPPED = "stopped"  # torchrun stopped it after another rank failed: a consequence
    UNKNOWN = "unknown"

    @property
    def is_root_cause(self) -> bool:
        return self not in (FailureKind.PEER_LOST, FailureKind.STOPPED)


_ORDER = {kind: position for position, kind in enumerate(FailureKind)}


@dataclass
class RankFailure:
    """One failed rank: how it ended (`kind`), the evidence, and a short `cause` text."""

    rank: int
    kind: FailureKind = FailureKind.UNKNOWN
    exitcode: int | None = None
    pid: int | None = None
    error: str | None = None  # "ValueError: ..." when the rank raised
    time: float | None = None  # when it raised (its error record), for ordering
    cause: str = ""

    @property
    def is_root_cause(self) -> bool:
        """True unless the failure is a consequence of another rank's (lost peer, stopped by torchrun)."""
        return FailureKind(self.kind).is_root_cause


def exit_report(launcher_lines: list[str]) -> dict[int, tuple[int, int]]:
    """{global rank: (exit code, pid)} for every failed rank in torchrun's end-of-run report(s)."""
    found: dict[int, tuple[int, int]] = {}
    rank = None
    for line in launcher_lines:
        if (m := _REPORT_RANK.match(line)) is not None:
            rank = int(m[1])
        elif (m := _REPORT_EXIT.match(line)) is not None and rank is not None:
            found[rank] = (int(m[1]), int(m[2]))
            rank = None
    return found


def stopped_by_agent(launcher_lines: list[str]) -> set[int]:
    """Pids that torchrun's agent itself signalled to stop (after another rank failed)."""
    return {int(m[1]) for line in launcher_lines for m in [_STOPPED_BY_AGENT.search(line)] if m}


def error_records(run_dir: str | Path) -> dict[int, dict]:
    """{rank: the rank's own record of its uncaught exception} from ``<run dir>/diagnose``."""
    return _records(run_dir, ERROR_FILE)


def exit_records(run_dir: str | Path) -> dict[int, dict]:
    """{rank: {"time": when its Python exited, "pid": ...}} from ``<run dir>/diagnose``."""
    return _records(run_dir, EXIT_FILE)


def _records(run_dir: str | Path, pattern: str) -> dict[int, dict]:
    found = {}
    for path in evidence_files(run_dir, pattern):
        try:
            record = json.loads(path.read_text())
            found[int(record["rank"])] = record
        except (OSError, ValueError, KeyError):
            continue
    return found


def attribute(result) -> list[RankFailure]:
    """Every failed rank of a finished run (a `launch.RunResult`), root cause first."""
    report = exit_report(result.launcher_lines)
    stopped = stopped_by_agent(result.launcher_lines)
    records = error_records(result.run_dir)
    failures = []
    for rank in sorted(set(report) | set(records) | {
            r for r, lines in result.rank_lines.items() if tracebacks.traceback_error(lines)}):
        exitcode, pid = report.get(rank, (None, None))
        record = records.get(rank)
        error = (tracebacks.exception_text(record["type"], record["message"]) if record
                 else tracebacks.traceback_error(result.rank_lines.get(rank, [])))
        failure = RankFailure(rank, exitcode=exitcode, pid=pid, error=error,
                              time=record["time"] if record else None)
        _classify(failure, stopped_by_torchrun=pid in stopped)
        failures.append(failure)
    failures += _left_early(result, failures, report, records)
    failures.sort(key=lambda f: (_ORDER[f.kind], f.time if f.kind in (FailureKind.RAISED, FailureKind.LEFT_EARLY)
                                 and f.time else 0.0, f.rank))
    for f in failures:  # name the rank whose failure this one follows from
        if not f.is_root_cause and failures[0].is_root_cause:
            root = failures[0].rank
            f.cause += tr(" after rank {root} failed", root=root) if f.kind == FailureKind.STOPPED else \
                tr(" - a consequence of rank {root} leaving early", root=root) \
                if failures[0].kind == FailureKind.LEFT_EARLY else tr(" - a consequence of rank {root}'s failure", root=root)
    return failures


def _left_early(result, failures: list[RankFailure], report: dict, errors: dict) -> list[RankFailure]:
    """Ranks that exited with code 0 while their peers' collectives still needed them, when every failure
    is a lost peer: the evidence is each rank's exit record and torchrun's report (which lists failed
    ranks only); each is named with when its Python exited, after the job's start (its connections
    closed just before: the order of those times is no evidence), and where its peer still was."""
    lost = [f for f in failures if f.kind == FailureKind.PEER_LOST]
    if not lost or any(f.is_root_cause for f in failures):
        return []
    peer = min(lost, key=lambda f: (f.time is None, f.time or 0.0, f.rank))
    waiting = _where_in(errors.get(peer.rank, {}).get("traceback"))
    started = getattr(result, "started_at", None)
    found = []
    for rank, record in sorted(exit_records(result.run_dir).items()):
        if rank in report or rank in errors:  # failed, or raised: not a clean exit
            continue
        when = f" {_since_start(record, started)}" if started else ""
        found.append(RankFailure(
            rank, FailureKind.LEFT_EARLY, exitcode=0, time=record["time"],
            cause=tr("exited (code 0){when} while rank {peer} was still {waiting}: a rank left the training loop "
                     "early", when=when, peer=peer.rank, waiting=waiting or tr("in the training loop"))))
    return found


def _since_start(record: dict, started: float) -> str:
    """``3.9 s after the job started``, for a rank's exit record."""
    return tr("{seconds:.1f} s after the job started", seconds=record["time"] - started)


def _where_in(traceback: str | None) -> str | None:
    """``in backward() at train.py:19``: the torch call a traceback ended in, from the learner's
    innermost line (`tracebacks.learner_frame`), or None."""
    found = tracebacks.frames((traceback or "").splitlines())
    index = tracebacks.learner_frame(found)
    if index is None:
        return None
    frame = found[index]
    inner = [stacks.Frame(f.function, f.path, f.line) for f in reversed(found[index + 1:])]
    call = stacks.torch_call(inner)
    place = tr("at {file}:{line}", file=Path(frame.path).name, line=frame.line)
    return tr("in {call}() {place}", call=call, place=place) if call else place


def _classify(failure: RankFailure, stopped_by_torchrun: bool) -> None:
    code, error = failure.exitcode, failure.error
    peer_lost = error is not None and any(words in error for words in PEER_LOST)
    if error is not None and not peer_lost:
        lines = error.strip().splitlines() or [error]
        failure.kind = FailureKind.RAISED
        failure.cause = tr("failed: {error}", error=lines[0]) + (" ..." if len(lines) > 1 else "")
    elif code is not None and code < 0 and not stopped_by_torchrun:
        name = _signal_name(-code)
        meaning = signal_meaning(name)
        failure.kind = FailureKind.SIGNAL
        failure.cause = tr("was killed by {name} (signal {number})", name=name, number=-code) \
            + (f" - {meaning}" if meaning else "")
    elif code is not None and code > 0 and error is None:
        failure.kind = FailureKind.EXIT
        failure.cause = tr("exited with code {code} without a Python traceback", code=code)
    elif peer_lost:
        words = next(w for w in PEER_LOST if w in error)
        failure.kind = FailureKind.PEER_LOST
        failure.cause = tr("lost its connection to a peer ({error}: ... {words} ...)", error=error.split(":")[0],
                           words=words)
    elif code is not None and code < 0:
        failure.kind = FailureKind.STOPPED
        failure.cause = tr("was stopped by torchrun ({signal})", signal=_signal_name(-code))
    else:
        failure.cause = tr("failed with exit code {code}", code=code) if code is not None else tr("failed (no exit code, no error recorded)")


def _signal_name(number: int) -> str:
    try:
        return signal.Signals(number).name
    except ValueError:
        return tr("signal {number}", number=number)


def failure_message(result, failures: list[RankFailure]) -> str:
    """RankFailedError's text: the root-cause rank first, every failed rank, the root's output tail."""
    if not failures:
        return (tr("torchrun exited with code {code} before any rank reported an error:", code=result.returncode)
                + "\n" + tail(result.launcher_lines))
    first = failures[0]
    lines = result.rank_lines.get(first.rank, [])
    start = tracebacks.last_traceback(lines) or 0
    parts = [tr("rank {rank} {cause}", rank=first.rank, cause=first.cause)]
    # the root cause's error, when it is a message learners meet: what it means, what to change, the lesson
    # (a rank that left early has none: its peers' lost connection is the message the learner sees)
    told = [first] + [f for f in failures if f.kind == FailureKind.PEER_LOST and first.kind == FailureKind.LEFT_EARLY]
    explained = next((line for f in told if (line := signatures.explain(f.error))), None)
    if explained:
        parts.append(explained)
    if len(failures) > 1:
        parts.append(tr("every failed rank, root cause first:"))
        parts += [tr("  rank {rank}: {cause}", rank=f.rank, cause=f.cause) for f in failures]
    output = shorten_paths(tail(lines[start:])) or tr("    (nothing)")
    parts.append(tr("the end of rank {rank}'s output:", rank=first.rank) + "\n" + output)
    parts.append(tr("(all output: result.rank_lines; run directory: {run_dir})", run_dir=result.run_dir))
    return "\n".join(parts)


def exited_ranks(result, alive: Iterable[int] = ()) -> dict[int, str]:
    """{rank: "had already exited, ..."} for the ranks of a hung run that were gone (not in `alive`)
    before it was killed, from their exit records: when, and whether they had raised."""
    started, errors, alive = getattr(result, "started_at", None), error_records(result.run_dir), set(alive)
    found = {}
    for rank, record in sorted(exit_records(result.run_dir).items()):
        if rank in alive:
            continue
        when = f", {_since_start(record, started)}" if started else ""
        error = errors.get(rank)
        how = (tr("after raising {error}", error=tracebacks.exception_text(error["type"], error["message"])
                  .splitlines()[0]) if error else tr("its Python ended without an error"))
        found[rank] = tr("had already exited{when} ({how})", when=when, how=how)
    return found


def timeout_message(result, timeout: float) -> str:
    """RunTimeoutError's text: the hint, where each rank was (its stack), and its last output."""
    parts = [tr("the job did not finish within {timeout:g} s and was killed (all {count} processes). A run that "
                "stops making progress is usually a hang: one rank waits in a collective (all_reduce, barrier, "
                "DDP's backward) that another rank never reaches. Rerun with env={{'TORCH_DISTRIBUTED_DEBUG': "
                "'DETAIL'}} to see which collective.", timeout=timeout, count=len(result.pids))]
    gone = sorted(result.hang.exited)
    if gone:
        names = ", ".join(tr("rank {rank}", rank=r) for r in gone)
        parts.append(tr("{ranks} had already exited while the others waited: a rank that leaves early (a rank-local "
                        "return, break or early stop) leaves its peers waiting for it in a collective.", ranks=names))
    parts += result.hang.lines(range(result.world_size), TIMEOUT_WORDING)
    for rank in range(result.world_size):
        lines = result.rank_lines.get(rank, [])
        parts.append(tr("last output of rank {rank}:", rank=rank) + "\n"
                     + (tail(lines, 5) if lines else tr("    (nothing)")))
    return "\n".join(parts)


class RankFailedError(RuntimeError):
    """A rank failed; ``.ranks``: every failed rank, root cause first; ``.causes``: {rank: cause}."""

    def __init__(self, message: str, ranks: list[int], result,
                 failures: Sequence[RankFailure] = ()):
        super().__init__(message)
        self.ranks = ranks
        self.result = result
        self.failures = list(failures)
        self.causes = {f.rank: f.cause for f in self.failures}

    @classmethod
    def of(cls, result) -> "RankFailedError":
        """The error for a failed run (a `launch.RunResult`), root cause first."""
        failures = attribute(result)
        return cls(failure_message(result, failures), [f.rank for f in failures], result, failures)


class RunTimeoutError(TimeoutError):
    """The job ran past its timeout (often a hang); ``.result.where`` says where each rank was."""

    def __init__(self, message: str, result):
        super().__init__(message)
        self.result = result
