"""What the checks share: the ✓ line, one record per rank, and the comparisons that pick a hint.

Every message a check shows is a `ddp_lessons.i18n.tr` template (the Spanish sits in
`ddp_lessons.i18n.messages_es`), so a Spanish exercise prints its hints in Spanish."""

from __future__ import annotations

import os
import re
from pathlib import Path
from typing import Any, Sequence

import torch

from ddp_lessons.base.exercise_format import CODE_STUB
from ddp_lessons.i18n import tr

Rows = Sequence[dict[str, Any]]
"""The ranks' records, as `records.load` returns them: one dict per rank, sorted by rank."""


def passed(message: str) -> None:
    """Print the one ``✓`` line of a check that passed."""
    print(f"✓ {message}")


STUB = re.compile(r"[ \t]*\n[ \t]*".join(re.escape(line) for line in CODE_STUB))
"""The stub an exercise leaves where the student writes (`exercise_format.CODE_STUB`, its two lines)."""


def written(script: str | os.PathLike) -> None:
    """Assert that `script` no longer holds an exercise's stub: a check that would launch it says so at
    once instead of after a torchrun launch that can only end in NotImplementedError."""
    path = Path(script)
    if path.is_file() and STUB.search(path.read_text(encoding="utf-8")):
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
