"""Smoke test for `ddp_lessons doctor`: every rank all-reduces its rank number and checks the sum."""

import torch
import torch.distributed as dist

from ddp_lessons import backend, records
from ddp_lessons.i18n import tr

choice = backend.choose()
if choice.device.type == "cuda":
    torch.cuda.set_device(choice.device)
dist.init_process_group(backend=choice.backend, device_id=choice.device_id)  # binds nccl to the GPU
rank, world = dist.get_rank(), dist.get_world_size()
value = torch.tensor([float(rank)], device=choice.device)
dist.all_reduce(value)  # SUM by default
expected = world * (world - 1) / 2
records.write("smoke", {"backend": choice.backend, "device": str(choice.device),
                        "sum": value.item(), "expected": expected})
print(tr("{backend}; all_reduce sum = {got:g} (expected {expected:g})", backend=choice.describe(), got=value.item(),
         expected=expected))
dist.destroy_process_group()
