"""Runs a student's all-reduce (``ring_allreduce(tensor)``, or the function ``--function`` names) on 2, 3 and 4
ranks (or ``--worlds``) and records what it did (exercise 16).

Launched by ``checks.ring_allreduce`` with torchrun on the largest world (gloo, CPU tensors). For
each world size n in turn, ranks 0..n-1 form a process group of their own (a file store in the run
directory, a short timeout so a deadlocked ring fails instead of hanging) and all-reduce seeded
tensors of several sizes, some not divisible by n, holding integers (float32 sums are then exact
in any order). Each rank records, per tensor: whether the result equals ``dist.all_reduce``'s, the
bytes it sent point to point and the collectives it called (`comm_count` sees every c10d call,
whichever API made it: ``send``, ``isend``, ``batch_isend_irecv``), each point-to-point message in
order with its peer and bytes (``sends``, ``recvs``: [peer, bytes] pairs), and any error.
"""

import argparse
import contextlib
import datetime
import os
import random
import sys
import traceback
from pathlib import Path

import torch
import torch.distributed as dist

from ddp_lessons import comm_count, records, scripts

TIMEOUT = datetime.timedelta(seconds=15)


def sizes_for(world: int) -> list[int]:
    """Tensor sizes tried on `world` ranks: divisible, not divisible (one so small that torch.chunk
    returns fewer than `world` chunks on 4 ranks), and a seeded random one."""
    rng = random.Random(1000 + world)
    return [world * 8, world * 2 + 1, 1000 + world - 1, rng.randrange(20_000, 200_000)]


class Messages(comm_count.Collectives):
    """`comm_count.Collectives` that also lists each point-to-point message: [peer, bytes] in call order."""

    def __init__(self) -> None:
        super().__init__()
        self.sends: list[list[int]] = []
        self.recvs: list[list[int]] = []

    def __torch_dispatch__(self, func, types, args=(), kwargs=None):
        name = getattr(func._overloadpacket, "__name__", "")
        if getattr(func._overloadpacket, "_qualified_op_name", "").startswith("c10d::") and name in ("send", "recv_"):
            (self.sends if name == "send" else self.recvs).append([int(args[2]), comm_count._nbytes(args[0])])
        return super().__torch_dispatch__(func, types, args, kwargs)


def load_student(path: str, function: str = "ring_allreduce"):
    """The student's all-reduce `function`, imported from `path`."""
    return getattr(scripts.load_module(path, "student_ring"), function)


def try_world(student, world: int, rank: int, store_dir: Path) -> dict:
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
            with Messages() as calls:  # every c10d call the student's code makes
                try:
                    student(tensor)
                except Exception as exc:  # the student's error, recorded for the hint
                    error = f"{type(exc).__name__}: {exc}".splitlines()[0][:300]
                    error_trace = traceback.format_exc()[-1500:]
            seen = calls.summary()
            case = {"numel": numel, "bytes": numel * 4, "sent": seen.get("send", {}).get("bytes", 0),
                    "collectives": sorted(set(seen) - {"send", "recv"}), "error": error,
                    "equal": error is None and torch.equal(tensor, expected),
                    "unchanged": torch.equal(tensor, original),
                    "averaged": torch.allclose(tensor, expected / world),
                    "wrong_elements": int((tensor != expected).sum()),
                    "sends": calls.sends, "recvs": calls.recvs}
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
    parser.add_argument("script", help="the student's file defining the all-reduce function")
    parser.add_argument("--function", default="ring_allreduce", help="the function's name")
    parser.add_argument("--worlds", type=int, nargs="+", default=[2, 3, 4])
    args = parser.parse_args()
    rank = int(os.environ["RANK"])
    torch.set_num_threads(1)
    record = {"worlds": [], "import_error": None}
    try:
        student = load_student(args.script, args.function)
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
            outcome = try_world(student, world, rank, store_dir)
            record["worlds"].append(outcome)
            failed = any(case["error"] for case in outcome["cases"])
            sync.set(f"done-{world}-{rank}", "error" if failed else "ok")  # i18n: code (store keys)
        done += [f"done-{world}-{r}" for r in range(world)]
    records.write("ring", record)


if __name__ == "__main__":
    main()
    # A ring that failed half-way leaves gloo's threads with sends nobody received; their
    # destructors can abort() at interpreter shutdown ("terminate called without an active
    # exception"), after the record is written. Leave without running them.
    sys.stdout.flush()
    sys.stderr.flush()
    os._exit(0)
