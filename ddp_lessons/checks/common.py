"""What the checks share: the ✓ line, failing with a hint that escalates, one record per rank, and the
comparisons that pick a hint.

A check is a function decorated with `recorded` (the exercise it belongs to). It fails through `fail`
(or `expect`): the message names the **symptom**, in the learner's terms ("rank 1 loaded before rank 0
finished saving"); when the same hint is given again in the same kernel, it adds the **fix**. A plain
``assert`` with a hint still works (it shows its whole message at once). Every message a check shows is
a `ddp_lessons.i18n.tr` template (the Spanish sits in `ddp_lessons.i18n.messages_es`), so a Spanish
exercise prints its hints in Spanish."""

from __future__ import annotations

import contextvars
import functools
import os
from collections import Counter
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Callable, NoReturn, Sequence, TypeVar

import torch

from ddp_lessons import journal
from ddp_lessons.base.exercise_format import holds_stub
from ddp_lessons.i18n import tr

Rows = Sequence[dict[str, Any]]
"""The ranks' records, as `records.load` returns them: one dict per rank, sorted by rank."""


def passed(message: str) -> None:
    """Print the one ``✓`` line of a check that passed."""
    print(f"✓ {message}")


@dataclass
class Run:
    """One run of a check: which exercise and check, and the hint it failed with (if any)."""

    exercise: str
    check: str
    hint: str | None = None
    fix_shown: bool = False


class CheckFailed(AssertionError):
    """A check's failure through `fail`: `.hint` is the hint's id, `.fix_shown` whether the fix was added."""

    def __init__(self, message: str, hint: str, fix_shown: bool):
        super().__init__(message)
        self.hint, self.fix_shown = hint, fix_shown


_running: contextvars.ContextVar[Run | None] = contextvars.ContextVar("ddp_lessons_check", default=None)
_given: Counter[tuple[str | None, str]] = Counter()
"""How often this kernel gave each (check, hint): from the second time a hint brings its fix."""


def fail(hint: str, symptom: str, fix: str) -> NoReturn:
    """Fail the running check with hint `hint` (a short id, e.g. ``"contiguous"``): the first time this
    kernel gives it, the message is the `symptom` alone (what went wrong, as the learner sees it); from the
    second time it adds the `fix`. Both are `tr` templates, already filled in."""
    run = _running.get()
    _given[(run.check if run else None, hint)] += 1
    fix_shown = _given[(run.check if run else None, hint)] > 1
    follow = tr("How to fix it: {fix}", fix=fix) if fix_shown else \
        tr("(Fails again the same way? Then this check also says how to fix it.)")
    if run is not None:
        run.hint, run.fix_shown = hint, fix_shown
    raise CheckFailed(f"{symptom}\n{follow}", hint, fix_shown)


def expect(condition: Any, hint: str, symptom: str, fix: str) -> None:
    """`fail(hint, symptom, fix)` unless `condition` holds (the messages are built even when it holds:
    where building them costs, write ``if not condition: fail(...)``)."""
    if not condition:
        fail(hint, symptom, fix)


Check = TypeVar("Check", bound=Callable[..., Any])


def _record(run: Run, passed: bool, error: str | None = None) -> None:
    """Append a check's result to the learner's record (nothing outside a learner's kernel)."""
    extra = {"error": error} if error else {}
    journal.current().append("check", exercise=run.exercise, check=run.check, passed=passed, hint=run.hint,
                             fix_shown=run.fix_shown, **extra)


def recorded(exercise: str) -> Callable[[Check], Check]:
    """Decorate the check functions of exercise `exercise` ("05"): a run knows which check it is (for
    `fail`'s escalation) and appends its result to the learner's record (`journal`: passed or failed, the
    hint, whether the fix was shown; an error that is no failed assertion by its type). A check called by
    another check runs as part of it."""
    def decorate(check: Check) -> Check:
        @functools.wraps(check)
        def run(*args, **kwargs):
            if _running.get() is not None:  # inside another check: part of that one's run
                return check(*args, **kwargs)
            state = Run(exercise, check.__name__)
            token = _running.set(state)
            try:
                result = check(*args, **kwargs)
            except Exception as error:
                _record(state, False, None if isinstance(error, AssertionError) else type(error).__name__)
                raise
            finally:
                _running.reset(token)
            _record(state, True)
            return result

        run.exercise = exercise
        return run  # type: ignore[return-value]
    return decorate


def written(script: str | os.PathLike) -> None:
    """Assert that `script` no longer holds an exercise's stub: a check that would launch it says so at
    once instead of after a torchrun launch that can only end in NotImplementedError."""
    path = Path(script)
    if path.is_file() and holds_stub(path.read_text(encoding="utf-8")):
        raise AssertionError(tr("{name} still raises NotImplementedError where it says `# YOUR CODE HERE`: write "
                                "your code there, run its %%writefile cell again, then this check (nothing was "
                                "launched)", name=path.name))


def ranks_are(rows: Rows, nproc: int, name: str) -> None:
    """Assert that `rows` holds one record `name` from each rank 0..nproc-1, in order."""
    ranks = [row["rank"] for row in rows]
    assert ranks == list(range(nproc)), tr("expected one {name!r} record from each rank 0..{last}, got ranks {ranks}",
                                           name=name, last=nproc - 1, ranks=ranks)


def flat(values: Any) -> torch.Tensor:
    """Numbers in (nested lists / dicts of) tensors or lists, as one float64 vector."""
    if isinstance(values, dict):
        values = [values[key] for key in sorted(values)]
    if isinstance(values, (list, tuple)) and values and not isinstance(values[0], (int, float)):
        return torch.cat([flat(v) for v in values])
    return torch.as_tensor(values, dtype=torch.float64).detach().cpu().flatten()


def close(got: Any, expected: Any) -> bool:
    """True when `got` and `expected` hold the same numbers, up to float32 rounding."""
    got, expected = flat(got), flat(expected)
    return got.shape == expected.shape and torch.allclose(got, expected, rtol=1e-4, atol=1e-6)


def difference(got: Any, expected: Any) -> float:
    """The largest absolute difference between the numbers of `got` and `expected`."""
    return (flat(got) - flat(expected)).abs().max().item()


def factor(got: Any, expected: Any) -> float | None:
    """c when `got` is c times `expected` for some c != 1, else None."""
    got, expected = flat(got), flat(expected)
    if got.shape != expected.shape or not expected.abs().sum():
        return None
    c = (got @ expected / (expected @ expected)).item()
    return c if abs(c - 1) > 1e-3 and torch.allclose(got, c * expected, rtol=1e-4, atol=1e-6) else None
