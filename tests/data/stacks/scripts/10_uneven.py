import torch
import torch.distributed as dist
from torch.nn.parallel import DistributedDataParallel as DDP

dist.init_process_group(backend="gloo")
rank = dist.get_rank()
model = DDP(torch.nn.Linear(4, 1))
batches = 3 if rank == 0 else 2
for step in range(batches):
    loss = model(torch.randn(8, 4)).sum()
    loss.backward()
print(f"rank {rank} done", flush=True)
dist.barrier()
