"""Check of exercise 7: `sampler.set_epoch(epoch)` gives each epoch a new order, the same on every rank."""

from __future__ import annotations

from ddp_lessons.checks.common import Rows, passed, recorded
from ddp_lessons.checks.sampler import torch_sampler_shard
from ddp_lessons.i18n import tr


@recorded("07")
def set_epoch_used(rows: Rows) -> None:
    """Each epoch visits the data in a new order, exactly as DistributedSampler with set_epoch(epoch)."""
    size, seed, world = rows[0]["size"], rows[0]["seed"], len(rows)
    got = [[row["visited"][e] for row in rows] for e in range(len(rows[0]["visited"]))]
    expected = [[torch_sampler_shard(size, world, r, e, seed) for r in range(world)]
                for e in range(len(got))]
    assert any(epoch != got[0] for epoch in got[1:]), tr(
        "all {epochs} epochs visited the data in the same order (rank 0: {order}): call "
        "sampler.set_epoch(epoch) at the start of each epoch, before iterating the DataLoader",
        epochs=len(got), order=got[0][0])
    for e in range(1, len(got)):
        assert got[e] != expected[e - 1], tr(
            "epoch {epoch} used epoch {previous}'s order: set_epoch comes too late; call "
            "sampler.set_epoch(epoch) before the loop over the DataLoader", epoch=e, previous=e - 1)
    for e, (seen, wanted) in enumerate(zip(got, expected)):
        for rank, (s, w) in enumerate(zip(seen, wanted)):
            assert s == w, tr("epoch {epoch}, rank {rank} visited {got}, expected {expected} (set_epoch({epoch}))",
                              epoch=e, rank=rank, got=s, expected=w)
    passed(tr("{epochs} epochs, each in a new order; in each, the ranks' shards cover all {size} samples",
              epochs=len(got), size=size))
