"""A classic hang: rank 0 enters all_reduce, rank 1 never does."""
import time

import torch
import torch.distributed as dist

dist.init_process_group(backend="gloo")
print(f"rank {dist.get_rank()} started", flush=True)
if dist.get_rank() == 0:
    dist.all_reduce(torch.ones(1))
else:
    time.sleep(3600)
