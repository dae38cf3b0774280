"""Each rank takes STEPS slow steps of a small all-reduce and reports its progress (records.progress)."""
import sys
import time

import torch
import torch.distributed as dist

from ddp_lessons import backend, records

steps = int(sys.argv[1]) if len(sys.argv) > 1 else 20
seconds_per_step = float(sys.argv[2]) if len(sys.argv) > 2 else 0.05
dist.init_process_group(backend=backend.choose().backend)
for step in range(1, steps + 1):
    time.sleep(seconds_per_step)  # stands in for a training step's compute
    dist.all_reduce(torch.ones(4))
    records.progress(step, steps, samples=32 * step)
dist.destroy_process_group()
