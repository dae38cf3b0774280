"""`checks.accelerate_port` (exercise 14) passes a faithful port and names what a wrong one got wrong.

The records are built here as 2 ranks would write them: the DDP script's, and the port's with one
field changed per mistake.
"""
import copy

import pytest

from ddp_lessons import checks

WEIGHTS = {"0.weight": [[0.1, -0.2], [0.3, 0.4]], "0.bias": [0.01, -0.02]}


def shifted(weights, by):
    return {name: [[v + by for v in row] if isinstance(row, list) else row + by for row in values]
            for name, values in weights.items()}


DDP_ROWS = [{"rank": r, "samples_seen": 512, "weights": WEIGHTS} for r in range(2)]
PORT_ROWS = [{"rank": r, "num_processes": 2, "distributed_type": "DistributedType.MULTI_CPU",
              "model_type": "DistributedDataParallel", "sampler": "SeedableRandomSampler",
              "samples_seen": 512, "weights": shifted(WEIGHTS, 3e-7)} for r in range(2)]


def port(**changes):
    rows = copy.deepcopy(PORT_ROWS)
    for row in rows:
        row.update(changes)
    return rows


def test_a_faithful_port_passes(capsys):
    checks.accelerate_port(DDP_ROWS, PORT_ROWS)
    assert "within 1e-05" in capsys.readouterr().out


@pytest.mark.parametrize("rows, hint", [
    (port(num_processes=1, distributed_type="DistributedType.NO"), "Accelerator(cpu=True)"),
    (port(model_type="Sequential"), "pass it to accelerator.prepare"),
    (port(samples_seen=1024), "pass the DataLoader to accelerator.prepare"),
    (port(samples_seen=256), "same batch size per process and same number of epochs"),
    (port(weights=shifted(WEIGHTS, 1e-3), sampler="RandomSampler"), "use_seedable_sampler=True"),
    (port(weights=shifted(WEIGHTS, 1e-3)), "torch.manual_seed(args.seed) before creating the model"),
])
def test_a_wrong_port_fails_with_the_hint(rows, hint, fails_with):
    with fails_with(hint):
        checks.accelerate_port(DDP_ROWS, rows)


def test_processes_that_end_apart_fail():
    rows = port()
    rows[1]["weights"] = shifted(WEIGHTS, 0.5)
    with pytest.raises(AssertionError, match="other weights than process 0"):
        checks.accelerate_port(DDP_ROWS, rows)
