"""Fingerprints of model weights: equal strings on every rank mean bit-identical parameters.

Taught in lessons 7 and 8: after training (or after loading a checkpoint) each rank records
``state_checksum(model)`` and the notebook checks that all ranks recorded the same string.
"""

from __future__ import annotations

import hashlib
from typing import Mapping

import torch

from ddp_lessons.i18n import tr


def state_checksum(state: torch.nn.Module | Mapping[str, torch.Tensor], length: int = 16) -> str:
    """Hex SHA-256 prefix of every tensor's dtype, shape and bytes, in order (names are ignored).

    Names are left out so that a DDP-wrapped model (keys ``module.*``), its ``.module`` and a
    loaded ``state_dict`` of the same weights all give the same checksum.
    """
    tensors = state.state_dict() if isinstance(state, torch.nn.Module) else state
    digest = hashlib.sha256()
    for name, tensor in tensors.items():
        if not isinstance(tensor, torch.Tensor):
            raise TypeError(tr("{name!r} is a {kind}, not a tensor", name=name, kind=type(tensor).__name__))
        flat = tensor.detach().cpu().contiguous().reshape(-1)
        digest.update(f"{flat.dtype}{tuple(tensor.shape)}".encode())
        digest.update(flat.view(torch.uint8).numpy().tobytes())
    return digest.hexdigest()[:length]
