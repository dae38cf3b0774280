# Hidden check: wrap() gives DDP the rank's own GPU when a node runs fewer ranks than it has GPUs
# points: 1
import os
from unittest import mock

import torch

from ddp_lessons import scripts
from ddp_lessons.i18n import choose

script = scripts.load_module(SCRIPT, "hidden_10_bug_hunt")  # as written now


class Model:
    """Stands in for a model on a GPU this machine does not need to have."""

    def to(self, *args, **kwargs):
        return self

    cuda = to


# 2 nodes with 4 GPUs each, 2 ranks per node (torchrun --nproc-per-node 2): rank 2 is node 1's local rank 0
for rank in range(4):
    local_rank, calls = rank % 2, []
    with mock.patch.object(script, "DDP", lambda module, *args, **kwargs: calls.append(kwargs.get("device_ids"))), \
            mock.patch.dict(os.environ, {"RANK": str(rank), "LOCAL_RANK": str(local_rank), "WORLD_SIZE": "4",
                                         "LOCAL_WORLD_SIZE": "2"}), \
            mock.patch("torch.cuda.device_count", return_value=4), mock.patch("torch.cuda.is_available", return_value=True), \
            mock.patch("torch.cuda.current_device", return_value=local_rank), mock.patch("torch.cuda.set_device"):
        script.wrap(Model(), torch.device("cuda", local_rank), rank, local_rank)
    got = [i if isinstance(i, int) else torch.device(i).index for i in (calls[0] or [])] if calls else None
    assert got == [local_rank], choose({
        "en": "on 2 nodes with 4 GPUs each, running 2 ranks per node, rank {rank} (local rank {local_rank}, its model "
              "on cuda:{local_rank}) asked DDP for GPU(s) {got}. A rule that only fits nodes running one rank per GPU "
              "(rank % torch.cuda.device_count()) breaks here: use the local rank, or the device the model is on",
        "es": "en 2 nodos de 4 GPU cada uno, con 2 ranks por nodo, el rank {rank} (rank local {local_rank}, su modelo "
              "en cuda:{local_rank}) pidió a DDP la(s) GPU {got}. Una regla que solo vale en nodos con un rank por GPU "
              "(rank % torch.cuda.device_count()) falla aquí: use el rank local, o el dispositivo donde está el "
              "modelo"},
        rank=rank, local_rank=local_rank, got=got)
print("✓ hidden: with fewer ranks per node than GPUs, every rank's DDP uses its own GPU")
