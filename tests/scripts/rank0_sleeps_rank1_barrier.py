"""A hang to diagnose: rank 0 sleeps, rank 1 waits for it in a barrier."""
import time

import torch.distributed as dist

dist.init_process_group(backend="gloo")
print(f"rank {dist.get_rank()} started", flush=True)
if dist.get_rank() == 0:
    time.sleep(3600)
else:
    dist.barrier()
