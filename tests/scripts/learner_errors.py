"""Errors a learner meets with a script brought from elsewhere, one per case (tests/test_signatures.py).

nccl:       PyTorch's ddp-tutorial-series multigpu_torchrun.py shape: backend="nccl", then the rank's GPU;
to-gpu:     gloo, then the model on GPU LOCAL_RANK (`.to(int)`), on a machine without CUDA;
fixed-port: MASTER_PORT fixed in the script (argv[2], a port another program holds).
"""
import os
import sys

import torch
import torch.distributed as dist

case, local_rank = sys.argv[1], int(os.environ["LOCAL_RANK"])
if case == "nccl":
    dist.init_process_group(backend="nccl")
    torch.cuda.set_device(local_rank)
elif case == "to-gpu":
    dist.init_process_group(backend="gloo")
    model = torch.nn.Linear(4, 1).to(local_rank)
elif case == "fixed-port":
    os.environ["MASTER_ADDR"], os.environ["MASTER_PORT"] = "127.0.0.1", sys.argv[2]
    dist.init_process_group(backend="gloo")
dist.destroy_process_group()
