# Hidden check: save_snapshot() writes its temporary file beside the snapshot, so the rename works when the snapshot is on shared storage, another file system than /tmp (run in the kernel as rank 0, renames across folders refused as across file systems)
# points: 1
import errno
import os
from pathlib import Path
from unittest import mock

import torch
import torch.distributed as dist

from ddp_lessons import scripts
from ddp_lessons.i18n import choose

script = scripts.load_module("scripts/12_restartable.py", "hidden_12_restartable")


class OneRank(torch.nn.Module):
    """Stands in for DDP on rank 0: the model is in .module, as in DDP."""

    def __init__(self, module):
        super().__init__()
        self.module = module


renamed = []


def across_file_systems(rename):
    """os.replace / os.rename as on a cluster node whose /tmp is local and the snapshot's folder shared:
    a rename from another folder fails as it would across file systems."""
    def refusing(source, target, *args, **kwargs):
        renamed.append((str(source), str(target)))
        if Path(source).resolve().parent != Path(target).resolve().parent:
            raise OSError(errno.EXDEV, "Invalid cross-device link (simulated: another file system)", str(source))
        return rename(source, target, *args, **kwargs)
    return refusing


folder = Path("runs/hidden_12_shared_storage").resolve()
folder.mkdir(parents=True, exist_ok=True)
path = folder / "snapshot.pt"
path.unlink(missing_ok=True)
torch.manual_seed(0)
model = torch.nn.Linear(4, 1)
optimizer = torch.optim.SGD(model.parameters(), lr=0.05, momentum=0.9)
error = None
with mock.patch.object(dist, "get_rank", lambda *args, **kwargs: 0), \
        mock.patch.object(dist, "barrier", lambda *args, **kwargs: None), \
        mock.patch.object(os, "replace", across_file_systems(os.replace)), \
        mock.patch.object(os, "rename", across_file_systems(os.rename)):
    try:
        script.save_snapshot(OneRank(model), optimizer, 1, 3, str(path))
    except OSError as raised:
        error = raised
elsewhere = [source for source, target in renamed if Path(source).resolve().parent != folder]
for source in elsewhere:
    Path(source).unlink(missing_ok=True)  # the temporary file the refused rename left behind
assert error is None and path.exists(), choose({
    "en": "with the snapshot on shared storage ({folder}) and the temporary file elsewhere ({elsewhere}, on a "
          "cluster node often its local /tmp), the rename failed: {error}. os.replace is atomic only within one "
          "file system; write the temporary file in the snapshot's own folder, e.g. f'{{path}}.tmp' (with "
          "tempfile, pass dir=os.path.dirname(path))",
    "es": "con el snapshot en almacenamiento compartido ({folder}) y el archivo temporal en otro sitio "
          "({elsewhere}, en un nodo de clúster a menudo su /tmp local), el renombrado falló: {error}. os.replace "
          "es atómico solo dentro de un mismo sistema de archivos; escriba el archivo temporal en la carpeta del "
          "propio snapshot, p. ej. f'{{path}}.tmp' (con tempfile, pase dir=os.path.dirname(path))"},
    folder=folder.name, elsewhere=", ".join(elsewhere) or "?", error=error)
saved = torch.load(path, map_location="cpu", weights_only=True)
assert (saved["epoch"], saved["step"]) == (1, 3), choose({
    "en": "the snapshot saved as epoch 1, step 3 holds epoch {epoch}, step {step}",
    "es": "el snapshot guardado como época 1, paso 3 contiene la época {epoch}, paso {step}"},
    epoch=saved.get("epoch"), step=saved.get("step"))
print("✓ hidden: the temporary file sits beside the snapshot, so the rename works on shared storage")
