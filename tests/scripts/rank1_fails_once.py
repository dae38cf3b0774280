"""Rank 1 raises in the job's first attempt only; a restarted job records its restart count."""
import os

import torch.distributed as dist

from ddp_lessons import records

dist.init_process_group(backend="gloo")
attempt = int(os.environ["TORCHELASTIC_RESTART_COUNT"])
if dist.get_rank() == 1 and attempt == 0:
    raise ValueError("rank 1 fails in the first attempt")
dist.barrier()
records.write("attempt", {"restart_count": attempt})
dist.destroy_process_group()
