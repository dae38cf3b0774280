"""A hang to diagnose: rank 0 sleeps, rank 1 waits for it in a barrier in the learner's own module."""
import time

import engine
import torch.distributed as dist

engine.setup()
print(f"rank {dist.get_rank()} started", flush=True)
if dist.get_rank() == 0:
    time.sleep(3600)
else:
    engine.wait_for_everyone()
