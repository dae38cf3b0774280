"""Each rank records the identity torchrun gave it."""
import os

import torch.distributed as dist

from ddp_lessons import backend, records

dist.init_process_group(backend=backend.choose().backend)
records.write("identity", {k: int(os.environ[k]) for k in
                           ("RANK", "LOCAL_RANK", "WORLD_SIZE", "LOCAL_WORLD_SIZE", "GROUP_RANK")}
              | {"master_addr": os.environ["MASTER_ADDR"]})
print(f"local rank {os.environ['LOCAL_RANK']} on node {os.environ['GROUP_RANK']}")
dist.barrier()
dist.destroy_process_group()
