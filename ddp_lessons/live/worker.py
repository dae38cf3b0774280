"""What torchrun runs on every rank of a live group (``%ranks start``): join the process group, then
serve notebook cells as an ipyparallel engine until the group is stopped.

The arguments are the engine's (``--profile-dir``, ``--cluster-id``): they say where the
controller's connection file is. A cell runs in this rank's namespace, which starts with
``torch``, ``dist``, ``rank``, ``world_size``, ``device`` and ``choice``.
"""

import os
import sys

import torch
import torch.distributed as dist

from ddp_lessons import backend
from ddp_lessons.live import watchdog


def main(engine_argv: list[str]) -> None:
    watchdog.watch_kernel()  # the kernel gone (even killed): this rank goes too
    choice = backend.choose()  # nccl + cuda:LOCAL_RANK with a GPU per rank, else gloo
    if choice.device.type == "cuda":
        torch.cuda.set_device(choice.device)
    dist.init_process_group(backend=choice.backend)  # RANK, WORLD_SIZE, MASTER_ADDR/PORT from torchrun
    rank, world_size = dist.get_rank(), dist.get_world_size()
    namespace = {"torch": torch, "dist": dist, "rank": rank, "world_size": world_size,
                 "device": choice.device, "choice": choice}

    from ipyparallel.engine.app import IPEngine

    # id=rank asks the controller for engine id == rank; the kernel still maps ids to ranks by
    # what each engine reports, so nothing depends on the controller granting it.
    engine = IPEngine(user_ns=namespace, id=rank, enable_nanny=False, wait_for_url_file=120)
    engine.initialize(engine_argv)
    engine.start()  # serves cells until SIGTERM
    os._exit(0)


if __name__ == "__main__":
    main(sys.argv[1:])
