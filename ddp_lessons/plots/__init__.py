"""Figures for the lessons (matplotlib; every function returns its Figure and works headless).

Topic modules: `coverage` (DistributedSampler shards), `diagrams` (DataParallel vs DDP, process
groups), `scaling` (speedup, efficiency, compute vs communication).
"""
