# Hidden check: Trainer.train resumes right after a stop at epoch 0 and at epoch 2, not only at epoch 1 (run in the kernel, one rank)
# points: 1
from pathlib import Path
from unittest import mock

import torch
import torch.distributed as dist
from torch.utils.data import DataLoader
from torch.utils.data.distributed import DistributedSampler

from ddp_lessons import scripts
from ddp_lessons.checks.sampler import torch_sampler_shard
from ddp_lessons.i18n import choose

script = scripts.load_module("scripts/07_resume.py", "hidden_07_resume")


class OneRank(torch.nn.Module):
    """Stands in for DDP on rank 0 of 2: the model is in .module, as in DDP."""

    def __init__(self, module):
        super().__init__()
        self.module = module

    def forward(self, x):
        return self.module(x)


def hidden_run(snapshot, stop_after):
    """Rank 0 of 2 in a new process: a fresh sampler, model and optimizer; what train() returns."""
    dataset = script.Numbered(script.SIZE)
    sampler = DistributedSampler(dataset, num_replicas=2, rank=0, shuffle=True, seed=script.SEED)
    torch.manual_seed(0)
    model = OneRank(torch.nn.Linear(4, 1))
    optimizer = torch.optim.SGD(model.parameters(), lr=0.05)
    trainer = script.Trainer(model, DataLoader(dataset, batch_size=script.BATCH, sampler=sampler), optimizer,
                             torch.device("cpu"), str(snapshot))
    with mock.patch.object(dist, "get_rank", lambda *args, **kwargs: 0):
        return trainer.train(script.EPOCHS, stop_after)


for stop in (0, 2):
    snapshot = Path(f"runs/hidden_07_stop_{stop}.pt")
    snapshot.parent.mkdir(exist_ok=True)
    snapshot.unlink(missing_ok=True)
    runs = [hidden_run(snapshot, stop), hidden_run(snapshot, None)]
    trained = [list(run) for run in runs]
    right = all(list(run[e]) == torch_sampler_shard(script.SIZE, 2, 0, e, script.SEED) for run in runs for e in run)
    assert trained == [list(range(stop + 1)), list(range(stop + 1, script.EPOCHS))] and right, choose({
        "en": "stopped after epoch {stop} and resumed, your script trained epochs {first}, then {resumed} (an "
              "uninterrupted run trains each of 0 to {last} once, in its own order{orders}). The check cell stops "
              "after epoch 1; look at what is different about epoch {stop} in your code, for example a test of "
              "the snapshot's epoch for truth (`if finished:`), which is false for epoch 0",
        "es": "detenido tras la época {stop} y reanudado, su script entrenó las épocas {first} y luego {resumed} "
              "(una ejecución sin interrupciones entrena cada una de 0 a {last} una vez, en su propio orden"
              "{orders}). La celda de comprobación se detiene tras la época 1; busque qué tiene de distinto la "
              "época {stop} en su código, por ejemplo una prueba de verdad sobre la época del snapshot "
              "(`if finished:`), que es falsa para la época 0"},
        stop=stop, first=trained[0], resumed=trained[1], last=script.EPOCHS - 1,
        orders="" if right else choose({"en": "; some of your epochs were not in theirs",
                                        "es": "; algunas de sus épocas no lo estaban"}))
print("✓ hidden: stopped after epoch 0 or 2, the resumed run goes on where the snapshot ends")
