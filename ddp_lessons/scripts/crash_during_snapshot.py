"""Runner for exercise 12's check (`checks.restartable` launches it with torchrun): SCRIPT [ARGS...].

Each rank runs SCRIPT as __main__ with torch.save, torch.load and dist.barrier observed. With
DDP_LESSONS_CRASH_AT_SAVE=k, rank 0 dies in the middle of its k-th torch.save (counting from 0) in
the job's first attempt: half the bytes reach the file it writes to, then the process exits, as a
rank killed by the machine would. A snapshot written in place is then truncated; one written to a
temporary file and renamed is not. The calls go to the record 'snapshot-io-attempt<n>' of this
rank, even when the script fails.
"""

import io
import os
import sys
from pathlib import Path

import torch
import torch.distributed as dist

from ddp_lessons import records
from ddp_lessons.runtime.contract import CRASH_AT_SAVE_ENV, RESTART_COUNT_ENV
from ddp_lessons.scripts import run_as_main



def _name(f) -> str:
    """The path a torch.save/torch.load call writes or reads, as a resolved string."""
    name = getattr(f, "name", f)
    return str(Path(name).resolve()) if isinstance(name, (str, os.PathLike)) else repr(name)


def crash_during_snapshot(script: str, script_args: list[str]) -> None:
    """Run `script` as __main__ in this rank with its snapshot I/O observed (and rank 0 crashing)."""
    rank = int(os.environ["RANK"])
    attempt = int(os.environ.get(RESTART_COUNT_ENV, 0))
    crash_at = int(os.environ.get(CRASH_AT_SAVE_ENV, -1)) if rank == 0 and attempt == 0 else -1
    seen = {"saves": [], "loads": [], "barriers": 0}
    real_save, real_load, real_barrier = torch.save, torch.load, dist.barrier

    def save(obj, f, *args, **kwargs):
        seen["saves"].append(_name(f))
        if len(seen["saves"]) - 1 != crash_at:
            return real_save(obj, f, *args, **kwargs)
        data = io.BytesIO()
        real_save(obj, data, *args, **kwargs)
        half = data.getvalue()[: len(data.getvalue()) // 2]
        if isinstance(f, (str, os.PathLike)):
            Path(f).write_bytes(half)
        else:
            f.write(half)
            f.flush()
        records.write(f"snapshot-io-attempt{attempt}", {**seen, "crashed_in_save": crash_at})
        print(f"rank 0 killed while writing snapshot number {crash_at} (injected)", flush=True)
        os._exit(1)

    def load(f, *args, **kwargs):
        seen["loads"].append({"path": _name(f), "weights_only": kwargs.get("weights_only")})
        return real_load(f, *args, **kwargs)

    def barrier(*args, **kwargs):
        seen["barriers"] += 1
        return real_barrier(*args, **kwargs)

    torch.save, torch.load, dist.barrier = save, load, barrier
    try:
        run_as_main(script, script_args)
    finally:
        records.write(f"snapshot-io-attempt{attempt}", seen)


if __name__ == "__main__":
    if len(sys.argv) < 2:
        sys.exit(__doc__)
    crash_during_snapshot(sys.argv[1], sys.argv[2:])
