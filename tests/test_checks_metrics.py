"""`checks.metrics` (exercise 11) passes exact distributed accuracy and catches the usual wrong ways."""
import textwrap

import pytest

from ddp_lessons import checks
from ddp_lessons.checks import metrics

HEADER = """
import torch
import torch.distributed as dist
from torch.utils.data import DataLoader, Subset
from torch.utils.data.distributed import DistributedSampler


def counts(model, dataset, indices):
    right = seen = 0
    with torch.no_grad():
        for x, y in DataLoader(Subset(dataset, indices), batch_size=4):
            right += (model(x).argmax(1) == y).sum().item()
            seen += len(y)
    return right, seen


def evaluate(model, dataset, batch_size=16):
    rank, world = dist.get_rank(), dist.get_world_size()
"""

RIGHT = """
    right, seen = counts(model, dataset, list(range(rank, len(dataset), world)))
    total = torch.tensor([right, seen], dtype=torch.float64)
    dist.all_reduce(total)
    return (total[0] / total[1]).item()
"""

GATHER = """
    indices = list(DistributedSampler(dataset, shuffle=False))
    x, y = dataset.tensors
    with torch.no_grad():
        pairs = [(i, bool(model(x[i:i + 1]).argmax(1) == y[i])) for i in indices]
    gathered = [None] * world
    dist.all_gather_object(gathered, pairs)
    unique = dict(pair for part in gathered for pair in part)
    return sum(unique.values()) / len(unique)
"""

WRONG = {
    "padded": (RIGHT.replace("list(range(rank, len(dataset), world))",
                             "list(DistributedSampler(dataset, shuffle=False))"),
               "padding repeats"),
    "drop_last": (RIGHT.replace("list(range(rank, len(dataset), world))",
                                "list(DistributedSampler(dataset, shuffle=False, drop_last=True))"),
                  "a 0 / 0"),  # the first case has fewer samples than ranks
    "no all-reduce": (RIGHT.replace("dist.all_reduce(total)", "pass"), "returned different accuracies"),
    "mean of the ranks' accuracies": (RIGHT.replace(
        "total = torch.tensor([right, seen], dtype=torch.float64)",
        "total = torch.tensor([right / seen if seen else 0.0, 1.0 if seen else 0.0], dtype=torch.float64)"),
        "mean of the ranks' accuracies"),
    "percentage": (RIGHT.replace("(total[0] / total[1]).item()", "100 * (total[0] / total[1]).item()"),
                   "that is a percentage"),
    "an all-reduce per batch": ("""
    total = torch.zeros(2, dtype=torch.float64)
    x, y = dataset.tensors
    for start in range(rank * 2, len(dataset), 2 * world):
        with torch.no_grad():
            hits = (model(x[start:start + 2]).argmax(1) == y[start:start + 2]).sum()
        batch = torch.tensor([hits.item(), len(y[start:start + 2])], dtype=torch.float64)
        dist.all_reduce(batch)
        total += batch
    return (total[0] / total[1]).item()
""", "called collectives a different number of times"),
    "every rank evaluates the whole set, all-reduced": (RIGHT.replace(
        "list(range(rank, len(dataset), world))", "list(range(len(dataset)))"),
        "(the whole data set), more than its share"),
    "every rank evaluates the whole set, alone": ("""
    right, seen = counts(model, dataset, list(range(len(dataset))))
    return right / seen
""", "(the whole data set), more than its share"),
    "untouched": ("\n    raise NotImplementedError()\n", "still raises NotImplementedError"),
}


def script(tmp_path, body):
    path = tmp_path / "evaluate.py"
    path.write_text(HEADER + textwrap.indent(textwrap.dedent(body), "    "))
    return path


@pytest.mark.parametrize("body", [RIGHT, GATHER], ids=["all_reduce", "gather"])
def test_exact_accuracy_passes_for_every_size_and_world(tmp_path, body, capsys):
    checks.distributed_accuracy(script(tmp_path, body))
    out = capsys.readouterr().out
    assert out.startswith("✓ exact single-process accuracy") and "each rank evaluating its own share" in out


@pytest.mark.parametrize("name", list(WRONG))
def test_wrong_evaluation_fails_with_its_hint(tmp_path, monkeypatch, name, fails_with):
    monkeypatch.setattr(metrics, "COLLECTIVE_TIMEOUT", 1.0)
    body, hint = WRONG[name]
    with fails_with(hint):
        checks.distributed_accuracy(script(tmp_path, body))


def test_the_cases_include_sets_smaller_than_the_world_divisible_and_not_with_mixed_predictions():
    assert any(size < world for size, world in metrics.CASES)
    assert any(size % world == 0 for size, world in metrics.CASES)
    assert sum(size % world != 0 for size, world in metrics.CASES) >= 4
    model, dataset = metrics.make_case(101)
    assert 0.3 < metrics.single_process_accuracy(model, dataset) < 0.7


@pytest.mark.slow
@pytest.mark.extended  # make test grades exercise 11's solution and untouched notebook with this real job already (tests/test_grading.py)
def test_the_real_two_rank_job_passes_the_solution_and_fails_the_untouched_function(tmp_path):
    checks.real_distributed_accuracy(script(tmp_path, RIGHT))
    with pytest.raises(AssertionError, match="still raises NotImplementedError"):
        checks.real_distributed_accuracy(script(tmp_path, WRONG["untouched"][0]))


def right_arithmetic():
    def accumulation_steps(global_batch, batch, world):
        if global_batch % (batch * world):
            raise ValueError("does not divide")
        return global_batch // (batch * world)
    return (lambda b, a, w: b * a * w), (lambda lr, base, new: lr * new / base), accumulation_steps


def test_batch_arithmetic_passes_the_formulas():
    checks.batch_arithmetic(*right_arithmetic())


@pytest.mark.parametrize("which, wrong, hint", [
    (0, lambda b, a, w: b * w, "the accumulation steps multiply the global batch too"),
    (0, lambda b, a, w: b * a, "multiply by the world size"),
    (1, lambda lr, base, new: lr * base / new, "the ratio is upside down"),
    (1, lambda lr, base, new: lr * (new / base) ** 0.5, "square-root scaling"),
    (2, lambda g, b, w: g // (b * w), "raise ValueError"),
    (2, lambda g, b, w: g // b, "accumulation steps = global batch / (batch per rank x world size)"),
])
def test_batch_arithmetic_catches(which, wrong, hint, fails_with):
    functions = list(right_arithmetic())
    functions[which] = wrong
    with fails_with(hint):
        checks.batch_arithmetic(*functions)


def test_the_sample_counter_sees_samples_read_through_the_dataset_or_its_tensors():
    model, dataset = metrics.make_case(10)
    ranks = metrics.ThreadRanks(2)
    counter = metrics.SampleCounter(model, dataset, ranks)
    ranks.run(lambda: counter(dataset.tensors[0][metrics.dist.get_rank()::2]))
    assert [sorted(c) for c in counter.seen] == [[0, 2, 4, 6, 8], [1, 3, 5, 7, 9]]
    assert metrics._coverage_hint(counter, 10, 2) is None
    counter.seen[1].clear()
    assert "were never evaluated" in metrics._coverage_hint(counter, 10, 2)
