"""DDP training to take home: torch only, launched by torchrun on one machine, many, or under SLURM.

    torchrun --standalone --nproc_per_node 2 train_ddp.py --epochs 5 --snapshot snapshot.pt

Restartable: rank 0 writes a snapshot after every epoch (to a temporary file, then renamed, so a
crash never leaves half a file); with `torchrun --max-restarts 3` a failed job restarts and every
rank resumes from the last snapshot. The final weights' checksum is printed and kept in the snapshot.
"""
import argparse
import gc
import hashlib
import os

import torch
import torch.distributed as dist
import torch.nn.functional as F
from torch.nn.parallel import DistributedDataParallel as DDP
from torch.utils.data import DataLoader, TensorDataset
from torch.utils.data.distributed import DistributedSampler


def setup():
    """Join the process group: nccl with one GPU per local rank, else gloo on the CPU; the device."""
    local_rank = int(os.environ["LOCAL_RANK"])  # torchrun: this process's index on this machine
    if torch.cuda.device_count() >= int(os.environ["LOCAL_WORLD_SIZE"]):
        device = torch.device("cuda", local_rank)
        torch.cuda.set_device(device)
        dist.init_process_group("nccl", device_id=device)
    else:
        device = torch.device("cpu")
        dist.init_process_group("gloo")
    return device


def make_dataset(size=1024, features=8):
    """A learnable problem, identical in every process: y = x @ w + noise."""
    generator = torch.Generator().manual_seed(0)
    x = torch.randn(size, features, generator=generator)
    w = torch.randn(features, 1, generator=generator)
    return TensorDataset(x, x @ w + 0.1 * torch.randn(size, 1, generator=generator))


def checksum(model):
    """Hex SHA-256 prefix of the weights' dtypes, shapes and bytes: equal means bit-identical."""
    digest = hashlib.sha256()
    for tensor in model.state_dict().values():
        flat = tensor.detach().cpu().contiguous().reshape(-1)
        digest.update(f"{flat.dtype}{tuple(tensor.shape)}".encode())
        digest.update(flat.view(torch.uint8).numpy().tobytes())
    return digest.hexdigest()[:16]


def save_snapshot(model, optimizer, epoch, path):
    """Rank 0 writes a temporary file and renames it (atomic); every rank waits until it is done."""
    if dist.get_rank() == 0:
        snapshot = {"model": model.module.state_dict(), "optimizer": optimizer.state_dict(),
                    "epoch": epoch, "checksum": checksum(model.module)}
        torch.save(snapshot, f"{path}.tmp")
        os.replace(f"{path}.tmp", path)  # readers see the old snapshot or the new one, never half
    dist.barrier()


def load_snapshot(model, optimizer, path, device):
    """Every rank loads the last snapshot, if there is one; returns the epoch to start from."""
    if not os.path.exists(path):
        return 0
    snapshot = torch.load(path, map_location=device, weights_only=True)
    model.load_state_dict(snapshot["model"])
    optimizer.load_state_dict(snapshot["optimizer"])
    return snapshot["epoch"] + 1


def global_mean(total, count, device):
    """The mean over every rank's samples (gloo has no AVG, so sum the totals and counts)."""
    both = torch.tensor([total, count], dtype=torch.float64, device=device)
    dist.all_reduce(both)
    return (both[0] / both[1]).item()


def main(args):
    device = setup()
    rank, restarts = dist.get_rank(), int(os.environ.get("TORCHELASTIC_RESTART_COUNT", 0))
    torch.manual_seed(args.seed)
    dataset = make_dataset()
    sampler = DistributedSampler(dataset, shuffle=True, seed=args.seed)
    loader = DataLoader(dataset, batch_size=args.batch_size, sampler=sampler)
    model = torch.nn.Sequential(torch.nn.Linear(8, 32), torch.nn.ReLU(), torch.nn.Linear(32, 1))
    model = model.to(device)
    optimizer = torch.optim.SGD(model.parameters(), lr=args.lr, momentum=0.9)
    first_epoch = load_snapshot(model, optimizer, args.snapshot, device)  # before DDP: all ranks
    model = DDP(model, device_ids=[device.index] if device.type == "cuda" else None)
    if rank == 0:
        print(f"world {dist.get_world_size()}, {device.type}, restart {restarts}, "
              f"starting at epoch {first_epoch}")
    for epoch in range(first_epoch, args.epochs):
        sampler.set_epoch(epoch)  # a new shuffle each epoch, the same on every rank
        total, count = 0.0, 0
        for step, (x, y) in enumerate(loader):
            if (epoch, step, rank, restarts) == (args.crash_epoch, 3, args.crash_rank, 0):
                raise RuntimeError(f"injected crash: rank {rank}, epoch {epoch}, step {step}")
            x, y = x.to(device), y.to(device)
            optimizer.zero_grad()
            loss = F.mse_loss(model(x), y)
            loss.backward()  # DDP averages the gradients across ranks here
            optimizer.step()
            total, count = total + loss.item() * len(x), count + len(x)
        loss = global_mean(total, count, device)
        save_snapshot(model, optimizer, epoch, args.snapshot)
        if rank == 0:
            print(f"epoch {epoch}: loss {loss:.4f}, snapshot saved")
    if rank == 0:
        print(f"final checksum: {checksum(model.module)}")
    del model  # free DDP before its process group (with gloo, torch can abort at exit otherwise)
    gc.collect()
    dist.destroy_process_group()


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--epochs", type=int, default=5)
    parser.add_argument("--batch-size", type=int, default=32, help="samples per step, per rank")
    parser.add_argument("--lr", type=float, default=0.02)
    parser.add_argument("--snapshot", default="snapshot.pt", help="written every epoch, resumed from")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--crash-epoch", type=int, default=-1, help="demo: crash once in this epoch")
    parser.add_argument("--crash-rank", type=int, default=1, help="demo: the rank that crashes")
    main(parser.parse_args())
