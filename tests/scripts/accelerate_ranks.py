"""Each process says who it is under Accelerate; an argument makes it sleep (a hang) or fail (rank 1)."""
import sys
import time

from accelerate import Accelerator

accelerator = Accelerator(cpu=True)
print(f"process {accelerator.process_index} of {accelerator.num_processes}: {accelerator.distributed_type}",
      flush=True)
# every process has joined the group before any ends: a rank that finished first and left would close
# the connections a slower one is still opening (gloo's connectFullMesh fails then, not the script)
accelerator.wait_for_everyone()
if sys.argv[1:] == ["hang"]:
    time.sleep(600)
if sys.argv[1:] == ["fail"] and accelerator.process_index == 1:
    raise ValueError("rank 1 was told to fail")
accelerator.end_training()
