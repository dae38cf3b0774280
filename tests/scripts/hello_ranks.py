"""Each rank joins the group, all-reduces its rank and records what it saw."""
import os
import sys

import torch
import torch.distributed as dist

from ddp_lessons import backend, records

choice = backend.choose()
dist.init_process_group(backend=choice.backend)
rank, world = dist.get_rank(), dist.get_world_size()
total = torch.tensor([float(rank)])
dist.all_reduce(total)
print(f"hello from rank {rank} of {world}; sum of ranks = {total.item():g}")
print(f"rank {rank} says this on stderr", file=sys.stderr)
records.write("hello", {"world": world, "sum": total.item(), "args": sys.argv[1:],
                        "master_addr": os.environ["MASTER_ADDR"]})
dist.destroy_process_group()
