"""`python -m ddp_lessons doctor`: what this machine offers the course, plus a 2-rank smoke test
(and one at one rank per GPU where that differs)."""

from __future__ import annotations

import argparse
import json
import os
import platform
import sys
import tempfile
from typing import Any

import torch
import torch.distributed as dist

from ddp_lessons import backend, launch, records, scripts
from ddp_lessons.i18n import tr
from ddp_lessons.runtime import stacks


def smoke_script() -> str:
    """Path of the packaged all_reduce smoke-test script."""
    return scripts.path("smoke_allreduce.py")


def report(nproc: int = 2, timeout: float = 60.0, smoke: bool = True) -> dict[str, Any]:
    """Versions, hardware, available backends, the course's choice, and the smoke-test outcome."""
    gpus = backend.gpu_count()
    choice = backend.choose(local_rank=0, local_world_size=nproc)
    info: dict[str, Any] = {
        "python": platform.python_version(),
        "torch": torch.__version__,
        "cuda_build": torch.version.cuda,
        "cpu_cores": backend.cpu_cores(),
        "gpus": [torch.cuda.get_device_name(i) for i in range(gpus)],
        "backends_available": {"gloo": dist.is_gloo_available(), "nccl": dist.is_nccl_available()},
        "chosen": {"nproc": nproc, "backend": choice.backend, "device": str(choice.device),
                   "threads_per_rank": choice.threads, "reason": choice.reason},
    }
    capture = stacks.check()
    info["stack_capture"] = {"tool": capture.tool, "note": capture.note}
    from ddp_lessons.grading import limits  # how `grade` would bound each notebook here
    info["grading_limits"] = limits.summary()
    info.update(gpu_details(gpus))
    if smoke:
        info["smoke_test"] = _smoke(nproc, timeout)
        if info.get("one_rank_per_gpu") and gpus != nproc:
            info["smoke_test_per_gpu"] = _smoke(gpus, timeout)
    return info


def gpu_details(gpus: int) -> dict[str, Any]:
    """What the report adds about GPUs: the choice with one rank per GPU, or why none is visible."""
    if gpus:
        choice = backend.choose(local_rank=0, local_world_size=gpus)
        return {"one_rank_per_gpu": {"nproc": gpus, "backend": choice.backend, "device": str(choice.device),
                                     "threads_per_rank": choice.threads, "reason": choice.reason}}
    if not torch.version.cuda:
        return {}
    hidden = os.environ.get("CUDA_VISIBLE_DEVICES")
    hint = (tr("CUDA_VISIBLE_DEVICES={hidden!r} hides every GPU; unset it", hidden=hidden)
            if hidden is not None and not hidden.strip()
            else tr("check `nvidia-smi` and the NVIDIA driver; in a container, start it with GPU access "
                    "(docker run --gpus all, with the NVIDIA container toolkit); check CUDA_VISIBLE_DEVICES"))
    return {"gpu_hint": tr("this torch is a CUDA {cuda} build but sees no GPU: {hint}", cuda=torch.version.cuda,
                           hint=hint)}


def _format_gpu_details(info: dict[str, Any]) -> list[str]:
    """Report lines for `gpu_details` and the one-rank-per-GPU smoke test."""
    lines = [tr("GPU hint: {hint}", hint=info["gpu_hint"])] if info.get("gpu_hint") else []
    per_gpu = info.get("one_rank_per_gpu")
    if per_gpu:
        devices = "cuda:0" + (f"..{per_gpu['nproc'] - 1}" if per_gpu["nproc"] > 1 else "")
        lines.append(tr("course choice for one rank per GPU ({nproc} local ranks): {backend} on {devices} ({reason})",
                        nproc=per_gpu["nproc"], backend=per_gpu["backend"], devices=devices,
                        reason=per_gpu["reason"]))
    smoke = info.get("smoke_test_per_gpu")
    if smoke is not None:
        lines.append(tr("smoke test, one rank per GPU: PASSED ({nproc}-rank all_reduce with {backend}, {seconds} s)",
                        nproc=per_gpu["nproc"], backend=smoke["backend"], seconds=smoke["seconds"])
                     if smoke["passed"] else
                     tr("smoke test, one rank per GPU: FAILED (NCCL peer-to-peer or a small /dev/shm are common causes "
                        "in containers: rerun with NCCL_DEBUG=INFO)") + f"\n{smoke.get('error', smoke)}")
    return lines


def _smoke(nproc: int, timeout: float) -> dict[str, Any]:
    try:
        with tempfile.TemporaryDirectory(prefix="ddp-doctor-") as run_dir:
            result = launch.run_torchrun(smoke_script(), nproc=nproc, timeout=timeout,
                                         run_dir=run_dir, echo=False)
            rows = records.load(run_dir, "smoke")
    except (launch.LaunchError, launch.RankFailedError, launch.RunTimeoutError,
            FileNotFoundError) as exc:
        return {"passed": False, "error": str(exc)}
    passed = len(rows) == nproc and all(r["sum"] == r["expected"] for r in rows)
    return {"passed": passed, "seconds": round(result.wall_seconds, 2),
            "backend": rows[0]["backend"], "sums": [r["sum"] for r in rows]}


def format_report(info: dict[str, Any]) -> str:
    """The report as readable lines."""
    chosen = info["chosen"]
    lines = [
        tr("python {python}, torch {torch} (CUDA build: {cuda})", python=info["python"], torch=info["torch"],
           cuda=info["cuda_build"] or tr("none")),
        tr("CPU cores available: {cores}", cores=info["cpu_cores"]),
        tr("GPUs: {gpus}", gpus=", ".join(info["gpus"]) if info["gpus"] else tr("none")),
        tr("backends: {backends}", backends=", ".join(f"{k} {tr('yes') if v else tr('no')}"
                                                      for k, v in info["backends_available"].items())),
        tr("course choice for {nproc} local ranks: {backend} on {device}, {threads} thread(s) per rank ({reason})",
           nproc=chosen["nproc"], backend=chosen["backend"], device=chosen["device"],
           threads=chosen["threads_per_rank"], reason=chosen["reason"]),
    ]
    capture = info.get("stack_capture")
    if capture is not None:
        lines.append(tr("stacks of hung ranks: {tool} works", tool=capture["tool"]) if capture["tool"] else
                     tr("stacks of hung ranks: cannot be captured here"))
        lines[-1] += f" ({capture['note']})" if capture["note"] else ""
    grading = info.get("grading_limits")
    if grading is not None:
        kinds = {"memory": tr("memory"), "processes": tr("processes"), "disk": tr("disk"), "output": tr("output")}
        lines.append(tr("grading limits here: {limits}", limits=", ".join(
            tr("{kind} by {how}", kind=name, how=grading[kind]) for kind, name in kinds.items())))
        lines[-1] += tr(" (no cgroup: {why})", why=grading["why_no_cgroup"]) if grading.get("why_no_cgroup") else ""
    smoke = info.get("smoke_test")
    if smoke is not None:
        if smoke["passed"]:
            lines.append(tr("smoke test: PASSED ({nproc}-rank all_reduce with {backend}, {seconds} s including torchrun "
                            "start-up)", nproc=chosen["nproc"], backend=smoke["backend"], seconds=smoke["seconds"]))
        else:
            lines.append(tr("smoke test: FAILED") + f"\n{smoke.get('error', smoke)}")
    return "\n".join(lines + _format_gpu_details(info))


def pin_problems(constraints: str, installed=None) -> list[str]:
    """Why this environment differs from a pip constraints file (`make test` refuses to run then)."""
    from importlib import metadata
    installed = installed or metadata.version
    problems = []
    for line in open(constraints).read().splitlines():
        name, sep, wanted = line.split("#", 1)[0].strip().partition("==")
        if not sep:
            continue
        try:
            have = installed(name.strip())
        except metadata.PackageNotFoundError:
            have = None
        if have is None or have.split("+", 1)[0] != wanted.strip():
            problems.append(tr("{name} {have} installed, {constraints} pins {wanted}", name=name.strip(),
                               have=have or tr("missing"), constraints=constraints, wanted=wanted.strip()))
    return problems


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="ddp_lessons doctor", description=__doc__)
    add_arguments(parser)
    return run(parser.parse_args(argv))


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--json", action="store_true", help="print the report as JSON")
    parser.add_argument("--nproc", type=int, default=2, help="ranks for the smoke test (default 2)")
    parser.add_argument("--no-smoke", action="store_true", help="skip the torchrun smoke test")
    parser.add_argument("--check-pins", metavar="CONSTRAINTS",
                        help="only check the installed packages against a constraints file (make test)")


def run(args: argparse.Namespace) -> int:
    if getattr(args, "check_pins", None):
        problems = pin_problems(args.check_pins)
        for problem in problems:
            print(tr("{problem}: this environment is not the pinned test environment; remove it (rm -rf .venv) and "
                     "run make test again, which reinstalls the pinned versions", problem=problem))
        return 1 if problems else 0
    info = report(nproc=args.nproc, smoke=not args.no_smoke)
    print(json.dumps(info, indent=2) if args.json else format_report(info))
    smokes = [info.get("smoke_test"), info.get("smoke_test_per_gpu")]
    return 0 if all(smoke is None or smoke["passed"] for smoke in smokes) else 1


if __name__ == "__main__":
    sys.exit(main())
