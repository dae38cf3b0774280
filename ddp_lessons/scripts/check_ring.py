"""Runs a student's ``ring_allreduce(tensor)`` on 2, 3 and 4 ranks and records what it did (exercise 16).

Launched by ``checks.ring_allreduce`` with torchrun on the largest world (gloo, CPU tensors). For
each world size n in turn, ranks 0..n-1 form a process group of their own (a file store in the run
directory, a short timeout so a deadlocked ring fails instead of hanging) and all-reduce seeded
tensors of several sizes, some not divisible by n, holding integers (float32 sums are then exact
in any order). Each rank records, per tensor: whether the result equals ``dist.all_reduce``'s, the
bytes its ``send``/``isend`` calls sent (``batch_isend_irecv`` goes through ``isend``), the
collectives it called, and any error.
"""

import argparse
import contextlib
import datetime
import importlib.util
import os
import random
import threading
import traceback
from pathlib import Path

import torch
import torch.distributed as dist
from torch.distributed import distributed_c10d as c10d

from ddp_lessons import records

COLLECTIVES = ("all_reduce", "reduce", "broadcast", "all_gather", "all_gather_into_tensor", "gather",
               "scatter", "reduce_scatter", "reduce_scatter_tensor", "all_to_all", "all_to_all_single")
TIMEOUT = datetime.timedelta(seconds=15)


class Observer:
    """Wraps dist's send/isend (counting bytes) and collectives (noting names) while `watching`."""

    def __init__(self):
        self.watching, self.sent, self.collectives = False, 0, []
        self._inside = threading.local()

    def wrap(self, name, original, count_bytes):
        def observed(tensor, *args, **kwargs):
            if not self.watching or getattr(self._inside, "busy", False):  # e.g. send calling isend
                return original(tensor, *args, **kwargs)
            if count_bytes:
                self.sent += tensor.numel() * tensor.element_size()
            else:
                self.collectives.append(name)
            self._inside.busy = True
            try:
                return original(tensor, *args, **kwargs)
            finally:
                self._inside.busy = False
        observed.__name__ = name
        return observed

    def install(self) -> None:
        """Replace the functions in torch.distributed and distributed_c10d alike (P2POp checks that
        its op *is* distributed_c10d.isend)."""
        for name in ("send", "isend", *COLLECTIVES):
            original = getattr(c10d, name, None)
            if original is None:
                continue
            wrapper = self.wrap(name, original, name in ("send", "isend"))
            setattr(c10d, name, wrapper)
            if hasattr(dist, name):
                setattr(dist, name, wrapper)

    @contextlib.contextmanager
    def watch(self):
        self.watching, self.sent, self.collectives = True, 0, []
        try:
            yield self
        finally:
            self.watching = False


def sizes_for(world: int) -> list[int]:
    """Tensor sizes tried on `world` ranks: divisible, not divisible (one so small that torch.chunk
    returns fewer than `world` chunks on 4 ranks), and a seeded random one."""
    rng = random.Random(1000 + world)
    return [world * 8, world * 2 + 1, 1000 + world - 1, rng.randrange(20_000, 200_000)]


def load_student(path: str):
    """The student's ring_allreduce, imported from `path`."""
    spec = importlib.util.spec_from_file_location("student_ring", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module.ring_allreduce


def try_world(student, world: int, rank: int, observer: Observer, store_dir: Path) -> dict:
    """Join a group of `world` ranks and run every size; return this rank's record for it."""
    store = dist.FileStore(str(store_dir / f"store-world{world}"), world)
    dist.init_process_group("gloo", store=store, rank=rank, world_size=world, timeout=TIMEOUT)
    cases = []
    try:
        for numel in sizes_for(world):
            generator = torch.Generator().manual_seed(100 * world + rank)
            original = torch.randint(-1000, 1000, (numel,), generator=generator).float()
            expected = original.clone()
            dist.all_reduce(expected)
            tensor, error = original.clone(), None
            with observer.watch():
                try:
                    student(tensor)
                except Exception as exc:  # the student's error, recorded for the hint
                    error = f"{type(exc).__name__}: {exc}".splitlines()[0][:300]
                    error_trace = traceback.format_exc()[-1500:]
            case = {"numel": numel, "bytes": numel * 4, "sent": observer.sent,
                    "collectives": sorted(set(observer.collectives)), "error": error,
                    "equal": error is None and torch.equal(tensor, expected),
                    "unchanged": torch.equal(tensor, original),
                    "averaged": torch.allclose(tensor, expected / world),
                    "wrong_elements": int((tensor != expected).sum())}
            if error is not None:
                case["traceback"] = error_trace
            cases.append(case)
            if error is not None:
                break  # the group may be broken (a peer timed out in the middle of a ring)
    finally:
        with contextlib.suppress(Exception):
            dist.destroy_process_group()
    return {"world": world, "cases": cases}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("script", help="the student's file defining ring_allreduce(tensor)")
    parser.add_argument("--worlds", type=int, nargs="+", default=[2, 3, 4])
    args = parser.parse_args()
    rank = int(os.environ["RANK"])
    torch.set_num_threads(1)
    record = {"worlds": [], "import_error": None}
    observer = Observer()
    observer.install()  # before the import: `from torch.distributed import isend` gets the wrapper too
    try:
        student = load_student(args.script)
    except Exception as exc:
        record["import_error"] = f"{type(exc).__name__}: {exc}".splitlines()[0][:300]
        records.write("ring", record)
        return
    store_dir = records.run_dir().resolve()
    store_dir.mkdir(parents=True, exist_ok=True)
    # the worlds run one after another: a rank joins world n once every rank of the earlier worlds
    # is done with them (a deadlocked ring there ends with the group's timeout)
    sync = dist.FileStore(str(store_dir / "store-sync"), int(os.environ["WORLD_SIZE"]))
    sync.set_timeout(datetime.timedelta(seconds=600))
    done: list[str] = []
    for world in args.worlds:
        if done:
            sync.wait(done)
            if any(sync.get(key) == b"error" for key in done):
                break  # a failure the next world would repeat (often a deadlock: 15 s each)
        if rank < world:
            outcome = try_world(student, world, rank, observer, store_dir)
            record["worlds"].append(outcome)
            failed = any(case["error"] for case in outcome["cases"])
            sync.set(f"done-{world}-{rank}", "error" if failed else "ok")
        done += [f"done-{world}-{r}" for r in range(world)]
    records.write("ring", record)


if __name__ == "__main__":
    main()
