"""Entrenamiento con DDP, script de referencia: solo torch, lanzado por torchrun en una máquina, en varias o bajo SLURM.

    torchrun --standalone --nproc_per_node 2 train_ddp.py --epochs 5 --snapshot snapshot.pt

Una GPU por rank local con nccl, o la CPU con gloo si se pasa --cpu (nunca por su cuenta).
Reiniciable: el rank 0 escribe un snapshot tras cada época (en un archivo temporal que luego renombra,
así que un fallo nunca deja medio archivo); con `torchrun --max-restarts 3` un trabajo fallido se reinicia
y cada rank se reanuda desde el último snapshot. Interrumpible: con SIGTERM o SIGUSR1 todos los ranks se
detienen tras el mismo paso y salen; la siguiente ejecución (un trabajo de SLURM reencolado) se reanuda desde el último snapshot.
El checksum de los pesos finales se imprime y se guarda en el snapshot.
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

STOP = {"signal": 0}  # lo fija el manejador de señales; el bucle de entrenamiento lo comprueba tras cada paso


def setup(cpu):
    """Se une al grupo de procesos: nccl con una GPU por rank local, o gloo en la CPU si se pide; devuelve el dispositivo."""
    local_rank = int(os.environ["LOCAL_RANK"])  # torchrun: el índice de este proceso en esta máquina
    local_ranks, gpus = int(os.environ["LOCAL_WORLD_SIZE"]), torch.cuda.device_count()
    if cpu:
        dist.init_process_group("gloo")
        return torch.device("cpu")
    if gpus < local_ranks:  # nunca recurrir a la CPU en silencio: una GPU que falta es un error que hay que ver
        raise RuntimeError(f"{local_ranks} ranks en esta máquina pero {gpus} GPU(s) visibles: pida una "
                           "GPU por rank (sbatch --gpus-per-node, CUDA_VISIBLE_DEVICES) o pase --cpu")
    device = torch.device("cuda", local_rank)
    torch.cuda.set_device(device)
    dist.init_process_group("nccl", device_id=device)
    return device


def make_dataset(size=1024, features=8):
    """Un problema que se puede aprender, idéntico en todos los procesos: y = x @ w + ruido."""
    generator = torch.Generator().manual_seed(0)
    x = torch.randn(size, features, generator=generator)
    w = torch.randn(features, 1, generator=generator)
    return TensorDataset(x, x @ w + 0.1 * torch.randn(size, 1, generator=generator))


def checksum(model):
    """Prefijo hexadecimal del SHA-256 de los dtypes, formas y bytes de los pesos: igual significa idéntico bit a bit."""
    digest = hashlib.sha256()
    for tensor in model.state_dict().values():
        flat = tensor.detach().cpu().contiguous().reshape(-1)
        digest.update(f"{flat.dtype}{tuple(tensor.shape)}".encode())
        digest.update(flat.view(torch.uint8).numpy().tobytes())
    return digest.hexdigest()[:16]


def save_snapshot(model, optimizer, epoch, path):
    """El rank 0 escribe un archivo temporal y lo renombra (atómico); todos los ranks esperan a que termine."""
    if dist.get_rank() == 0:
        snapshot = {"model": model.module.state_dict(), "optimizer": optimizer.state_dict(),
                    "epoch": epoch, "checksum": checksum(model.module)}
        torch.save(snapshot, f"{path}.tmp")
        os.replace(f"{path}.tmp", path)  # los lectores ven el snapshot anterior o el nuevo, nunca la mitad
    dist.barrier()


def load_snapshot(model, optimizer, path, device):
    """Cada rank carga el último snapshot, si existe; devuelve la época desde la que empezar."""
    if not os.path.exists(path):
        return 0
    snapshot = torch.load(path, map_location=device, weights_only=True)
    model.load_state_dict(snapshot["model"])
    optimizer.load_state_dict(snapshot["optimizer"])
    return snapshot["epoch"] + 1


def global_mean(total, count, device):
    """La media sobre las muestras de todos los ranks: all-reduce de las sumas y de los recuentos (una media ponderada por recuento)."""
    both = torch.tensor([total, count], dtype=torch.float64, device=device)
    dist.all_reduce(both)
    return (both[0] / both[1]).item()


def stop_signal(device):
    """La señal que recibió cualquier rank (0: ninguna), acordada por todos los ranks para que se detengan en el mismo paso."""
    flag = torch.tensor([STOP["signal"]], device=device)
    dist.all_reduce(flag, op=dist.ReduceOp.MAX)
    return int(flag.item())


def train(model, optimizer, sampler, loader, first_epoch, args, device):
    """Entrena desde `first_epoch`, con un snapshot tras cada época; devuelve 0, o la señal que lo detuvo."""
    rank, marker = dist.get_rank(), f"{args.snapshot}.crashed"  # demostración: el fallo ocurre una sola vez
    for epoch in range(first_epoch, args.epochs):
        sampler.set_epoch(epoch)  # un barajado nuevo en cada época, el mismo en todos los ranks
        total, count = 0.0, 0
        for step, (x, y) in enumerate(loader):
            if (epoch, step, rank) == (args.crash_epoch, 3, args.crash_rank) and not os.path.exists(marker):
                open(marker, "w").close()
                raise RuntimeError(f"fallo inyectado: rank {rank}, época {epoch}, paso {step}")
            x, y = x.to(device), y.to(device)
            optimizer.zero_grad()
            loss = F.mse_loss(model(x), y)
            loss.backward()  # aquí DDP promedia los gradientes entre los ranks
            optimizer.step()
            total, count = total + loss.item() * len(x), count + len(x)
            if sig := stop_signal(device):  # todos los ranks se detienen tras este mismo paso
                if rank == 0:
                    print(f"{signal.Signals(sig).name} en la época {epoch}, paso {step}: se detiene; "
                          f"la siguiente ejecución vuelve a empezar en la época {epoch}")
                return sig
        loss = global_mean(total, count, device)
        save_snapshot(model, optimizer, epoch, args.snapshot)
        if rank == 0:
            print(f"época {epoch}: pérdida {loss:.4f}, snapshot guardado")
    return 0


def main(args):
    for sig in (signal.SIGTERM, signal.SIGUSR1):  # SLURM: desalojo, límite de tiempo, requeue
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
    first_epoch = load_snapshot(model, optimizer, args.snapshot, device)  # antes de DDP: todos los ranks
    model = DDP(model, device_ids=[device.index] if device.type == "cuda" else None)
    if rank == 0:
        print(f"world {dist.get_world_size()}, {device.type}, reinicio {restarts}, "
              f"empieza en la época {first_epoch}")
    stopped = train(model, optimizer, sampler, loader, first_epoch, args, device)
    if rank == 0 and not stopped:
        print(f"checksum final: {checksum(model.module)}")
    del model  # libere DDP antes que su grupo de procesos (si no, con gloo torch puede abortar al salir)
    gc.collect()
    dist.destroy_process_group()
    if stopped:
        raise SystemExit(128 + stopped)  # distinto de 0: el trabajo no ha terminado


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--epochs", type=int, default=5)
    parser.add_argument("--batch-size", type=int, default=32, help="muestras por paso, por rank")
    parser.add_argument("--lr", type=float, default=0.02)
    parser.add_argument("--snapshot", default="snapshot.pt", help="se escribe en cada época y se reanuda desde él")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--cpu", action="store_true", help="entrena en la CPU con gloo (por defecto: GPUs, nccl)")
    parser.add_argument("--crash-epoch", type=int, default=-1, help="demostración: falla una vez en esta época")
    parser.add_argument("--crash-rank", type=int, default=1, help="demostración: el rank que falla")
    main(parser.parse_args())
