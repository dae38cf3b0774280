"""The bytes-per-rank formulas: the ZeRO paper's figures, torch's ZeRO-1 partition, FSDP2's padded shards."""
import random

import pytest
import torch
from torch.distributed.optim import ZeroRedundancyOptimizer

from ddp_lessons import sharding

GB = 1e9


def test_the_zero_papers_figure_for_a_7_5b_model_on_64_gpus():
    """Rajbhandari et al. 2020, figure 1: 120 GB, 31.4 GB, 16.6 GB, 1.9 GB per device."""
    figures = sharding.paper_figures(7.5e9, 64)
    assert [round(figures[s] / GB, 1) for s in ("ddp", "zero1", "zero2", "fsdp")] == [120.0, 31.4, 16.6, 1.9]
    for strategy, expected in figures.items():
        assert sharding.predict(7.5e9, 64, strategy, "adam", "mixed")["total"] == pytest.approx(expected)


@pytest.mark.parametrize("optimizer, states", [("sgd", 0), ("momentum", 1), ("adam", 2)])
def test_ddp_in_fp32_holds_4_bytes_per_parameter_per_copy(optimizer, states):
    rows = sharding.predict(1000, 8, "ddp", optimizer, tensors=3)
    assert rows["parameters"] == rows["gradients"] == 4000
    assert rows["optimizer"] == 4000 * states + (12 if optimizer == "adam" else 0)
    assert rows["buckets"] == 0  # gradients live in the buckets (gradient_as_bucket_view=True)
    assert sharding.predict(1000, 8, "ddp", optimizer, bucket_view=False)["buckets"] == 4000


def test_each_zero_stage_divides_one_more_row_and_never_the_activations():
    rows = {s: sharding.predict(1200, 4, s, "adam", activations=50) for s in sharding.STRATEGIES}
    assert [rows[s]["parameters"] for s in ("ddp", "zero1", "zero2", "fsdp")] == [4800, 4800, 4800, 1200]
    assert [rows[s]["gradients"] for s in ("ddp", "zero1", "zero2", "fsdp")] == [4800, 4800, 1200, 1200]
    assert [rows[s]["optimizer"] for s in ("ddp", "zero1", "zero2", "fsdp")] == [9600, 2400, 2400, 2400]
    assert {rows[s]["activations"] for s in rows} == {50}
    assert all(rows[s]["total"] == sum(rows[s][r] for r in sharding.ROWS) for s in rows)


def test_adams_step_counters_are_divided_under_zero_but_every_fsdp_rank_keeps_all():
    zero1, fsdp = (sharding.predict(120, 4, s, "adam", tensors=8)["optimizer"] for s in ("zero1", "fsdp"))
    assert zero1 == 960 / 4 + 32 / 4 and fsdp == 960 / 4 + 32


def test_world_size_one_is_ddp_for_every_strategy():
    ddp = sharding.predict(500, 1, "ddp", "adam", tensors=2)
    assert all(sharding.predict(500, 1, s, "adam", tensors=2) == ddp for s in sharding.STRATEGIES)


@pytest.mark.parametrize("bad", [dict(strategy="zero4"), dict(optimizer="lion"), dict(precision="fp8"),
                                 dict(world_size=0)])
def test_unknown_names_are_refused(bad):
    args = dict(psi=10, world_size=2, strategy="ddp", optimizer="adam", precision="fp32") | bad
    with pytest.raises(ValueError):
        sharding.predict(**args)


def test_zero1_gives_whole_parameters_largest_first_to_the_emptiest_rank():
    assert sharding.zero1_partition([100, 10, 60, 50], 2) == [[0, 1], [2, 3]]
    assert sharding.zero1_partition([5, 5, 5], 2) == [[0, 2], [1]]  # ties: stable order, lowest rank
    assert sharding.zero1_partition([7], 3) == [[0], [], []]


@pytest.mark.parametrize("world_size", [2, 3, 4])
def test_zero1_partition_is_the_one_zero_redundancy_optimizer_computes(group_of_one, world_size):
    """torch's own partition, recomputed as if the group had `world_size` ranks (a private method)."""
    rng = random.Random(world_size)
    params = [torch.nn.Parameter(torch.zeros(rng.choice([1, 3, 16, 40, 40, 64]))) for _ in range(9)]
    zero = ZeroRedundancyOptimizer(params, optimizer_class=torch.optim.Adam)
    zero.world_size, zero._partition_parameters_cache = world_size, []
    torchs = [[id(p) for p in group[0]["params"]] for group in zero._partition_parameters()]
    ours = [[id(params[i]) for i in owned] for owned in sharding.zero1_partition([p.numel() for p in params],
                                                                                  world_size)]
    assert [sorted(r) for r in ours] == [sorted(r) for r in torchs]


@pytest.mark.parametrize("dim0, world_size, expected", [
    (10, 3, [(4, 4), (4, 4), (2, 4)]),
    (1, 4, [(1, 1), (0, 1), (0, 1), (0, 1)]),
    (12, 4, [(3, 3)] * 4),
])
def test_fsdp_rows_are_torch_chunks_padded_to_equal_shards(dim0, world_size, expected):
    got = [sharding.fsdp_rows(dim0, world_size, r) for r in range(world_size)]
    assert got == expected
    assert sum(owned for owned, _ in got) == dim0
    assert [owned for owned, _ in got] == [len(c) for c in torch.arange(dim0).chunk(world_size)] + \
        [0] * (world_size - len(torch.arange(dim0).chunk(world_size)))


SHAPES = [(256, 64), (256,), (256, 256), (256,), (16, 256), (16,)]


@pytest.mark.parametrize("world_size", [1, 2, 4])
def test_exact_bytes_average_to_the_formula_when_shards_divide_evenly(world_size):
    psi = sum(torch.Size(s).numel() for s in SHAPES)
    for strategy in ("ddp", "zero1", "fsdp"):
        ranks = [sharding.rank_bytes(SHAPES, world_size, r, strategy) for r in range(world_size)]
        formula = sharding.predict(psi, world_size, strategy, tensors=len(SHAPES))
        for row in ("parameters", "gradients", "optimizer", "buckets"):
            assert sum(r[row] for r in ranks) / world_size == formula[row], (strategy, row)


def test_zero1_shards_are_uneven_for_a_model_with_few_large_tensors():
    ranks = [sharding.rank_bytes(SHAPES, 4, r, "zero1")["optimizer"] for r in range(4)]
    assert ranks[0] == 2 * 4 * 256 * 256 + 4 and max(ranks) > 2 * min(ranks)


def test_fsdp_pads_shards_it_stores_but_not_the_optimizer_state():
    rank2 = sharding.rank_bytes([(10, 10), (10,)], 3, 2, "fsdp")
    assert rank2 == {"parameters": (40 + 4) * 4, "gradients": (40 + 4) * 4,
                     "optimizer": 2 * (20 + 2) * 4 + 2 * 4, "buckets": 0}
    assert sharding.gathered_bytes([(10, 10), (10,)], 3) == (120 + 12) * 4


def test_rank_bytes_has_no_zero2_because_torch_has_none():
    with pytest.raises(ValueError, match="reshard_after_forward=False"):
        sharding.rank_bytes(SHAPES, 2, 0, "zero2")
