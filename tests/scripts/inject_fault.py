"""Fault injection: rank FAULT_RANK fails in one way while the other ranks wait in a barrier.

Usage: inject_fault.py FAULT RANK, FAULT one of raise, exit3, sigkill, sigsegv; RANK -1 = the last.
"""
import ctypes
import os
import signal
import sys
import time

import torch.distributed as dist

fault, fault_rank = sys.argv[1], int(sys.argv[2])
dist.init_process_group(backend="gloo")
rank, world = dist.get_rank(), dist.get_world_size()
fault_rank %= world
dist.barrier()
print(f"rank {rank} ready", flush=True)
if rank == fault_rank:
    time.sleep(0.5)  # the others are inside the barrier below: they lose their peer
    if fault == "raise":
        raise ValueError(f"rank {rank} cannot read shard 7")
    if fault == "exit3":
        os._exit(3)
    if fault == "sigkill":
        os.kill(os.getpid(), signal.SIGKILL)
    if fault == "sigsegv":
        ctypes.string_at(0)  # reads address 0: a real segmentation fault in native code
dist.barrier()
dist.destroy_process_group()
