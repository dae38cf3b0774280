"""Check of exercise 7: `sampler.set_epoch(epoch)` gives each epoch a new order, the same on every rank."""

from __future__ import annotations

from ddp_lessons.checks.common import Rows, passed
from ddp_lessons.checks.sampler import torch_sampler_shard


def set_epoch_used(rows: Rows) -> None:
    """Each epoch visits the data in a new order, exactly as DistributedSampler with set_epoch(epoch)."""
    size, seed, world = rows[0]["size"], rows[0]["seed"], len(rows)
    got = [[row["visited"][e] for row in rows] for e in range(len(rows[0]["visited"]))]
    expected = [[torch_sampler_shard(size, world, r, e, seed) for r in range(world)]
                for e in range(len(got))]
    assert any(epoch != got[0] for epoch in got[1:]), (
        f"all {len(got)} epochs visited the data in the same order (rank 0: {got[0][0]}): call "
        "sampler.set_epoch(epoch) at the start of each epoch, before iterating the DataLoader")
    for e in range(1, len(got)):
        assert got[e] != expected[e - 1], (
            f"epoch {e} used epoch {e - 1}'s order: set_epoch comes too late; call "
            "sampler.set_epoch(epoch) before the loop over the DataLoader")
    for e, (seen, wanted) in enumerate(zip(got, expected)):
        for rank, (s, w) in enumerate(zip(seen, wanted)):
            assert s == w, f"epoch {e}, rank {rank} visited {s}, expected {w} (set_epoch({e}))"
    passed(f"{len(got)} epochs, each in a new order; in each, the ranks' shards cover all {size} samples")
