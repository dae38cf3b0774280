"""Runner for exercise 11's check (`checks.real_distributed_accuracy` launches it): STUDENT_SCRIPT.

Each rank joins a gloo group, calls the student's ``evaluate(model, dataset)`` on the check's
data sets of several sizes, and records what it returned as its 'evaluate' record. The data sets
(`make_case`, `REAL_SIZES`) live here, where the ranks use them; the check imports them from here.
"""

from __future__ import annotations

import sys
from typing import Callable

import torch
import torch.distributed as dist
from torch.utils.data import TensorDataset

from ddp_lessons import records, scripts
from ddp_lessons.i18n import tr

REAL_SIZES = [1, 3, 50, 101]
"""Data-set sizes tried on the real process group: tiny, not divisible by 2, divisible, odd."""


def make_case(size: int, seed: int = 0) -> tuple[torch.nn.Module, TensorDataset]:
    """A fixed 3-class linear model and `size` samples, about half of which it classifies right."""
    torch.manual_seed(seed)
    model = torch.nn.Linear(4, 3)
    g = torch.Generator().manual_seed(seed + 1)
    x = torch.randn(size, 4, generator=g)
    with torch.no_grad():
        predicted = model(x).argmax(1)
    wrong = torch.rand(size, generator=g) < 0.5
    return model, TensorDataset(x, torch.where(wrong, (predicted + 1) % 3, predicted))


def load_evaluate(script: str) -> Callable:
    """The function ``evaluate`` defined in `script` (loaded afresh, so edits count)."""
    module = scripts.load_module(script, "student_evaluate")
    assert hasattr(module, "evaluate"), tr("{script} defines no function named evaluate", script=script)
    return module.evaluate


def main(script: str) -> None:
    dist.init_process_group(backend="gloo")
    evaluate = load_evaluate(script)
    accuracy = {str(size): float(evaluate(*make_case(size))) for size in REAL_SIZES}
    records.write("evaluate", {"accuracy": accuracy})
    dist.destroy_process_group()


if __name__ == "__main__":
    main(sys.argv[1])
