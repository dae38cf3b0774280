"""Run one part of exercise 10's training script on real ranks, apart from the other parts.

``python -m torch.distributed.run ... bug_hunt_probe.py SCRIPT --part train|model``:

* ``train``: the script's ``Trainer.train`` for 3 epochs, with a plain model and data loader of
  this probe's own (so only the loop's own collectives are tested); rank 0's first checkpoint is
  made slow (`SLOW_SAVE`), and each rank records the epochs it began before rank 0's checkpoint of
  the previous epoch was complete;
* ``model``: 3 training steps of the script's ``Net``, wrapped by the script's ``wrap``.

The process group's timeout is cut to `GROUP_TIMEOUT` so that a hang ends as an error on every
rank, with a traceback saying where each rank waited. Used by `ddp_lessons.checks.bug_hunt`.
"""
import argparse
import gc
import time
from datetime import timedelta
from unittest import mock

import torch
import torch.distributed as dist
import torch.nn.functional as F
from torch.nn.parallel import DistributedDataParallel as DDP
from torch.utils.data import DataLoader
from torch.utils.data.distributed import DistributedSampler

from ddp_lessons import records, scripts
from ddp_lessons.i18n import tr

GROUP_TIMEOUT = timedelta(seconds=10)
SLOW_SAVE = 1.5
"""Seconds rank 0's first checkpoint takes in the probe, as a save to a network file system might."""
_init_process_group = dist.init_process_group


def _init_with_short_timeout(*args, **kwargs):
    """`dist.init_process_group` with this probe's short timeout (the script calls it in setup())."""
    return _init_process_group(*args, **{**kwargs, "timeout": GROUP_TIMEOUT})


def probe_train(script, rank, device):
    """Trainer.train for 3 epochs on a plain linear model: every rank must get through every epoch."""
    torch.manual_seed(0)
    model = torch.nn.Linear(4, 1).to(device)
    model = DDP(model, device_ids=[device.index] if device.type == "cuda" else None)
    dataset = script.Numbered()
    loader = DataLoader(dataset, batch_size=8, sampler=DistributedSampler(dataset, seed=0))
    optimizer = torch.optim.SGD(model.parameters(), lr=0.05)
    trainer = script.Trainer(model, loader, optimizer, device, records.run_dir() / "checkpoint.pt", rank)
    saved = records.run_dir() / "checkpoints-complete"  # a line per checkpoint, written once it is complete
    real_save = torch.save

    def slow_save(*args, **kwargs):
        if not saved.exists():
            time.sleep(SLOW_SAVE)
        real_save(*args, **kwargs)
        with open(saved, "a") as marks:
            marks.write("complete\n")

    early, run_epoch = [], trainer._run_epoch

    def watched_run_epoch(epoch):
        if epoch > 0 and (saved.read_text().count("\n") if saved.exists() else 0) < epoch:
            early.append(epoch)  # the previous epoch's checkpoint is not complete yet
        return run_epoch(epoch)

    trainer._run_epoch = watched_run_epoch
    with mock.patch.object(torch, "save", slow_save):
        epochs = len(trainer.train(3))
    print(tr("rank {rank} finished {epochs} epochs", rank=rank, epochs=epochs))
    records.write("probe-train", {"epochs": epochs, "started_before_checkpoint": early})
    return model


def probe_model(script, rank, local_rank, device):
    """3 SGD steps of the script's Net, wrapped by the script's wrap()."""
    torch.manual_seed(0)
    model = script.wrap(script.Net(), device, rank, local_rank)
    optimizer = torch.optim.SGD(model.parameters(), lr=0.05)
    for step in range(3):
        x = torch.randn(8, 4, device=device)
        optimizer.zero_grad()
        F.mse_loss(model(x), x.sum(dim=1, keepdim=True)).backward()
        optimizer.step()
        print(tr("rank {rank}: step {step} done", rank=rank, step=step))
    records.write("probe-model", {"steps": 3})
    return model


def main():
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("script")
    parser.add_argument("--part", choices=["train", "model"], required=True)
    args = parser.parse_args()
    dist.init_process_group = _init_with_short_timeout
    script = scripts.load_module(args.script, "bug_hunt")
    rank, local_rank, device = script.setup()
    model = probe_train(script, rank, device) if args.part == "train" else \
        probe_model(script, rank, local_rank, device)
    del model
    gc.collect()
    dist.destroy_process_group()


if __name__ == "__main__":
    main()
