"""Rank 1 raises a ValueError after the group is up; rank 0 waits at a barrier."""
import torch.distributed as dist

dist.init_process_group(backend="gloo")
if dist.get_rank() == 1:
    raise ValueError("rank 1 cannot read shard 7")
dist.barrier()
