"""A rank that leaves early (issue 27), in two shapes; the last rank is the one that leaves.

break:  a rank-local early stop: it stops training after 2 steps and exits cleanly (code 0) while the
        others go on into backward(), whose all-reduce loses it ("Connection closed by peer");
return: it has no batches and returns before joining the group: the others wait for it, a hang.
"""
import gc
import os
import sys
import time

import torch
import torch.distributed as dist
from torch.nn.parallel import DistributedDataParallel as DDP

import engine


def main(shape):
    rank, world = int(os.environ["RANK"]), int(os.environ["WORLD_SIZE"])
    if shape == "return" and rank == world - 1:
        print(f"rank {rank}: no batches for this rank, nothing to do")
        return
    engine.setup()
    torch.manual_seed(0)
    model = DDP(torch.nn.Linear(4, 1))
    for step in range(5):
        loss = model(torch.randn(8, 4)).pow(2).mean()
        if rank == world - 1 and step == 2:  # "my validation loss stopped improving": only this rank stops
            print(f"step {step}: early stop")
            break
        loss.backward()
        print(f"step {step} done")
        time.sleep(0.2)
    del model
    gc.collect()
    dist.destroy_process_group()


if __name__ == "__main__":
    main(sys.argv[1])
