"""DDP training to take home: torch only, launched by torchrun on one machine, many, or under SLURM.

    torchrun --standalone --nproc_per_node 2 train_ddp.py --epochs 5 --snapshot snapshot.pt

One GPU per local rank with nccl, or the CPU with gloo when you pass --cpu (never by itself).
Restartable: rank 0 writes a snapshot after every epoch (to a temporary file, then renamed, so a
crash never leaves half a file); with `torchrun --max-restarts 3` a failed job restarts and every
rank resumes from the last snapshot. Preemptible: on SIGTERM or SIGUSR1 every rank stops after the
same step and exits; the next run (a requeued SLURM job) resumes from the last snapshot.
The final weights' checksum is printed and kept in the snapshot.
"""
import argparse
import gc
import hashlib
import os
import signal

import torch
import torch.distributed as dist
import torch.nn.functional as F
from torch.nn.parallel import DistributedDataParallel as DDP
from torch.utils.data import DataLoader, TensorDataset
from torch.utils.data.distributed import DistributedSampler

STOP = {"signal": 0}  # set by the signal handler; the training loop checks it after every step


def setup(cpu):
    """Join the process group: nccl with one GPU per local rank, or gloo on the CPU if asked; the device."""
    local_rank = int(os.environ["LOCAL_RANK"])  # torchrun: this process's index on this machine
    local_ranks, gpus = int(os.environ["LOCAL_WORLD_SIZE"]), torch.cuda.device_count()
    if cpu:
        dist.init_process_group("gloo")
        return torch.device("cpu")
    if gpus < local_ranks:  # never fall back to the CPU silently: a missing GPU is a mistake to see
        raise RuntimeError(f"{local_ranks} ranks on this machine but {gpus} GPU(s) visible: ask for one "
                           "GPU per rank (sbatch --gpus-per-node, CUDA_VISIBLE_DEVICES) or pass --cpu")
    device = torch.device("cuda", local_rank)
    torch.cuda.set_device(device)
    dist.init_process_group("nccl", device_id=device)
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
    """The mean over every rank's samples: all-reduce the sums and the counts (a count-weighted mean)."""
    both = torch.tensor([total, count], dtype=torch.float64, device=device)
    dist.all_reduce(both)
    return (both[0] / both[1]).item()


def stop_signal(device):
    """The signal any rank received (0: none), agreed by all ranks so that they stop at the same step."""
    flag = torch.tensor([STOP["signal"]], device=device)
    dist.all_reduce(flag, op=dist.ReduceOp.MAX)
    return int(flag.item())


def train(model, optimizer, sampler, loader, first_epoch, args, device):
    """Train from `first_epoch`, snapshot after each epoch; returns 0, or the signal that stopped it."""
    rank, marker = dist.get_rank(), f"{args.snapshot}.crashed"  # demo: the crash happens only once
    for epoch in range(first_epoch, args.epochs):
        sampler.set_epoch(epoch)  # a new shuffle each epoch, the same on every rank
        total, count = 0.0, 0
        for step, (x, y) in enumerate(loader):
            if (epoch, step, rank) == (args.crash_epoch, 3, args.crash_rank) and not os.path.exists(marker):
                open(marker, "w").close()
                raise RuntimeError(f"injected crash: rank {rank}, epoch {epoch}, step {step}")
            x, y = x.to(device), y.to(device)
            optimizer.zero_grad()
            loss = F.mse_loss(model(x), y)
            loss.backward()  # DDP averages the gradients across ranks here
            optimizer.step()
            total, count = total + loss.item() * len(x), count + len(x)
            if sig := stop_signal(device):  # every rank stops after this same step
                if rank == 0:
                    print(f"{signal.Signals(sig).name} in epoch {epoch}, step {step}: stopping; "
                          f"the next run starts again at epoch {epoch}")
                return sig
        loss = global_mean(total, count, device)
        save_snapshot(model, optimizer, epoch, args.snapshot)
        if rank == 0:
            print(f"epoch {epoch}: loss {loss:.4f}, snapshot saved")
    return 0


def main(args):
    for sig in (signal.SIGTERM, signal.SIGUSR1):  # SLURM: preemption, time limit, requeue
        signal.signal(sig, lambda signum, frame: STOP.update(signal=signum))
    device = setup(args.cpu)
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
    stopped = train(model, optimizer, sampler, loader, first_epoch, args, device)
    if rank == 0 and not stopped:
        print(f"final checksum: {checksum(model.module)}")
    del model  # free DDP before its process group (with gloo, torch can abort at exit otherwise)
    gc.collect()
    dist.destroy_process_group()
    if stopped:
        raise SystemExit(128 + stopped)  # not 0: the job has not finished


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--epochs", type=int, default=5)
    parser.add_argument("--batch-size", type=int, default=32, help="samples per step, per rank")
    parser.add_argument("--lr", type=float, default=0.02)
    parser.add_argument("--snapshot", default="snapshot.pt", help="written every epoch, resumed from")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--cpu", action="store_true", help="train on the CPU with gloo (default: GPUs, nccl)")
    parser.add_argument("--crash-epoch", type=int, default=-1, help="demo: crash once in this epoch")
    parser.add_argument("--crash-rank", type=int, default=1, help="demo: the rank that crashes")
    main(parser.parse_args())
