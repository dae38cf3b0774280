# Hidden check: load_checkpoint() loads onto the device it is given, on every rank of a multi-node GPU job
# points: 1
import os
from unittest import mock

import torch
import torch.distributed as dist

from ddp_lessons import scripts
from ddp_lessons.i18n import choose

load_checkpoint = scripts.load_module("scripts/08_checkpoint.py", "hidden_08_checkpoint").load_checkpoint


class Model:
    """Stands in for the plain model on a GPU this machine does not need to have: records what it loads."""

    def __init__(self):
        self.loaded = None

    def load_state_dict(self, state, *args, **kwargs):
        self.loaded = state

    def to(self, *args, **kwargs):
        return self


asked = []


def fake_load(path, *args, **kwargs):
    asked.append(kwargs.get("map_location", args[0] if args else None))
    return {"0.weight": torch.zeros(1)}


# rank 5 of 8: the second of two nodes with 4 GPUs each, so its GPU is cuda:1
with mock.patch.dict(os.environ, {"RANK": "5", "LOCAL_RANK": "1", "WORLD_SIZE": "8", "LOCAL_WORLD_SIZE": "4"}), \
        mock.patch.object(dist, "get_rank", return_value=5), mock.patch.object(dist, "get_world_size", return_value=8), \
        mock.patch("torch.cuda.is_available", return_value=True), mock.patch("torch.cuda.device_count", return_value=4), \
        mock.patch("torch.cuda.current_device", return_value=1), mock.patch("torch.load", fake_load):
    load_checkpoint(Model(), "checkpoint.pt", torch.device("cuda", 1))
where = asked[-1] if asked else None
place = torch.device(where) if isinstance(where, (str, torch.device)) else None
assert place is not None and (place == torch.device("cuda", 1) or place.type == "cpu"), choose({
    "en": "on rank 5 of a job on 2 nodes with 4 GPUs each, load_checkpoint(model, path, cuda:1) asked torch.load "
          "for map_location={where!r}: that node's GPUs are cuda:0 to cuda:3, and this rank's model is on cuda:1. "
          "Load onto the device the function receives: map_location=device",
    "es": "en el rank 5 de un trabajo en 2 nodos de 4 GPU cada uno, load_checkpoint(model, path, cuda:1) pidió a "
          "torch.load map_location={where!r}: las GPU de ese nodo son de cuda:0 a cuda:3, y el modelo de este rank "
          "está en cuda:1. Cargue en el dispositivo que recibe la función: map_location=device"},
    where=str(where))
print("✓ hidden: on a multi-node GPU job each rank loads the checkpoint onto its own GPU")
