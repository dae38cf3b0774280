"""Run a script with its snapshot I/O observed, killing rank 0 in the middle of one snapshot:
SCRIPT [ARGS...] (exercise 12's check `checks.restartable` and lesson 14 launch it with torchrun).

Each rank runs SCRIPT as __main__ with torch.save, torch.load, dist.barrier, open, os.replace and
os.rename observed. The snapshot is what the script's ``--snapshot PATH`` names: that file, or every
file in that folder. With DDP_LESSONS_CRASH_AT_SAVE=k, in the job's first attempt, rank 0 dies while
writing its k-th snapshot (its k-th torch.save call, counting from 0), as a rank killed by the machine
would, at the first moment the snapshot itself is written:

* torch.save into the snapshot: half the bytes reach the file, then the process exits;
* torch.save to another file (a temporary one): it completes, and the process exits at the next write
  of the snapshot (an ``open`` for writing: after it truncated the file, e.g. in shutil.copy), just
  before a rename onto the snapshot (os.replace / os.rename: the old snapshot stays whole), or at the
  next dist.barrier if the snapshot was not written at all.

A snapshot written in place or copied into place is then broken; one written to a temporary file and
renamed is not. The calls go to the record 'snapshot-io-attempt<n>' of this rank, even when the script
fails: 'saves' (paths), 'loads' (path, weights_only, map_location as a string), 'barriers', and
'snapshot_writes' (how the snapshot was written other than by a rename, e.g. "open(..., 'wb')");
'events', their order: "save" (a torch.save), "snapshot" (a write of the snapshot: a torch.save or an
open for writing into it, a rename onto it), "barrier", "load"; 'module_keys', the keys starting with
"module." in what torch.save was given (a DDP wrapper's state dict; a few); 'device', the rank's own
device (`backend.choose`, as the course's scripts pick it).
"""

import builtins
import io
import os
import sys
from pathlib import Path

import torch
import torch.distributed as dist

from ddp_lessons import backend, records
from ddp_lessons.i18n import tr
from ddp_lessons.runtime.contract import CRASH_AT_SAVE_ENV, RESTART_COUNT_ENV
from ddp_lessons.scripts import run_as_main


def _name(f) -> str:
    """The path a call writes or reads, as a resolved string (repr for other file-likes)."""
    name = f if isinstance(f, (str, os.PathLike)) else getattr(f, "name", f)  # a Path's .name is its tail
    return str(Path(name).resolve()) if isinstance(name, (str, os.PathLike)) else repr(name)


def _snapshot_arg(args: list[str]) -> str | None:
    """The resolved path after ``--snapshot`` (or ``--snapshot=``) in the script's arguments."""
    for i, arg in enumerate(args):
        if arg == "--snapshot" and i + 1 < len(args):
            return str(Path(args[i + 1]).resolve())
        if arg.startswith("--snapshot="):
            return str(Path(arg.split("=", 1)[1]).resolve())
    return None


def _module_keys(obj, depth: int = 2) -> list[str]:
    """The keys starting with "module." in `obj` and the dicts it holds, `depth` levels down (a few)."""
    if not isinstance(obj, dict):
        return []
    keys = [key for key in obj if isinstance(key, str) and key.startswith("module.")]
    if depth:
        keys += [key for value in obj.values() for key in _module_keys(value, depth - 1)]
    return keys[:3]


def crash_during_snapshot(script: str, script_args: list[str]) -> None:
    """Run `script` as __main__ in this rank with its snapshot I/O observed (and rank 0 crashing)."""
    rank = int(os.environ["RANK"])
    attempt = int(os.environ.get(RESTART_COUNT_ENV, 0))
    crash_at = int(os.environ.get(CRASH_AT_SAVE_ENV, -1)) if rank == 0 and attempt == 0 else -1
    snapshot = _snapshot_arg(script_args)
    seen = {"saves": [], "loads": [], "barriers": 0, "snapshot_writes": [], "events": [], "module_keys": [],
            "device": str(backend.choose().device)}
    armed = {"now": False}  # the k-th save wrote elsewhere: die at the next write of the snapshot
    real = {"save": torch.save, "load": torch.load, "barrier": dist.barrier, "open": builtins.open,
            "replace": os.replace, "rename": os.rename}

    def in_snapshot(path: str) -> bool:
        return snapshot is not None and (path == snapshot or path.startswith(snapshot + os.sep))

    def die(how: str) -> None:
        records.write(f"snapshot-io-attempt{attempt}", {**seen, "crashed_in_save": crash_at, "crash": how})
        print(tr("rank 0 killed in its torch.save number {crash_at} (from 0): {how} (injected)", crash_at=crash_at,
                 how=how), flush=True)
        os._exit(1)

    def save(obj, f, *args, **kwargs):
        target = _name(f)
        seen["saves"].append(target)
        seen["events"].append("save")
        seen["module_keys"] = seen["module_keys"] or _module_keys(obj)
        if in_snapshot(target):
            seen["snapshot_writes"].append("torch.save")
            seen["events"].append("snapshot")
        if len(seen["saves"]) - 1 != crash_at:
            return real["save"](obj, f, *args, **kwargs)
        if not in_snapshot(target):
            armed["now"] = True
            return real["save"](obj, f, *args, **kwargs)
        data = io.BytesIO()
        real["save"](obj, data, *args, **kwargs)
        half = data.getvalue()[: len(data.getvalue()) // 2]
        if isinstance(f, (str, os.PathLike)):
            with real["open"](f, "wb") as out:
                out.write(half)
        else:
            f.write(half)
            f.flush()
        die(tr("in the middle of torch.save to {path}", path=os.path.relpath(target, os.path.dirname(snapshot))))

    def open_(file, mode="r", *args, **kwargs):
        writing = any(flag in mode for flag in "wax+")
        if writing and isinstance(file, (str, os.PathLike)) and in_snapshot(_name(file)):
            seen["snapshot_writes"].append(f"open(..., {mode!r})")
            seen["events"].append("snapshot")
            handle = real["open"](file, mode, *args, **kwargs)
            if armed["now"]:
                handle.close()
                die(tr("right after open(..., {mode!r}) on the snapshot", mode=mode))
            return handle
        return real["open"](file, mode, *args, **kwargs)

    def rename_onto(kind):
        def rename(src, dst, *args, **kwargs):
            if armed["now"] and in_snapshot(_name(dst)):
                die(tr("just before os.{kind} onto the snapshot", kind=kind))
            if in_snapshot(_name(dst)):
                seen["events"].append("snapshot")
            return real[kind](src, dst, *args, **kwargs)
        return rename

    def load(f, *args, **kwargs):
        seen["loads"].append({"path": _name(f), "weights_only": kwargs.get("weights_only"),
                              "map_location": str(kwargs.get("map_location", args[0] if args else None))})
        seen["events"].append("load")
        return real["load"](f, *args, **kwargs)

    def barrier(*args, **kwargs):
        if armed["now"]:
            die(tr("at dist.barrier(): the snapshot itself was never written"))
        seen["barriers"] += 1
        seen["events"].append("barrier")
        return real["barrier"](*args, **kwargs)

    torch.save, torch.load, dist.barrier = save, load, barrier
    builtins.open = io.open = open_
    os.replace, os.rename = rename_onto("replace"), rename_onto("rename")
    try:
        run_as_main(script, script_args)
    finally:
        records.write(f"snapshot-io-attempt{attempt}", seen)


if __name__ == "__main__":
    if len(sys.argv) < 2:
        sys.exit(__doc__)
    crash_during_snapshot(sys.argv[1], sys.argv[2:])
