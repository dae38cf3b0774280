"""Figures for the lessons (matplotlib; every function returns its Figure and works headless).

Topic modules: `coverage` (DistributedSampler shards), `diagrams` (DataParallel vs DDP, rank
layouts, traffic), `gradients` (DDP vs single-process gradients), `timeline` (backward compute vs
bucket all-reduce), `training` (loss curves), `scaling` (speedup, efficiency, compute vs
communication), `collectives` (lesson 2's live playground: per-rank values around a collective,
barrier waits), `measure` (lesson 11: accuracy counted four ways, logged loss, batch and lr),
`precision` (lesson 13: loss, step time, all-reduce bytes), `memory` (lesson 15: bytes per
rank by ledger row, DDP / ZeRO-1 / FSDP2, and `reshard_after_forward`), `pipeline` (lesson 17: each rank's
time waiting for data); `figures` makes and renders figures
for all of them.
"""
