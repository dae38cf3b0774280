"""Check of exercise 14: a DDP script ported to Accelerate ends with the same weights (lesson 14).

Both scripts record, on each rank, the samples they trained on and the final weights; the port also
records what Accelerate made of the job (processes, distributed type, the prepared model's type and
the sampler under its loader).
"""

from __future__ import annotations

import os

from ddp_lessons import launch, records
from ddp_lessons.checks.common import Rows, close, difference, flat, passed, ranks_are

TOLERANCE = 1e-5
"""Largest |difference| allowed per weight: the ranks split each global batch differently (lesson 14)."""


def accelerate_port(ddp_rows: Rows, port_rows: Rows, nproc: int = 2) -> None:
    """The port ran on `nproc` processes as DDP, saw each sample once per epoch, and matches DDP's weights."""
    ranks_are(ddp_rows, nproc, "ddp")
    ranks_are(port_rows, nproc, "port")
    for row in port_rows:
        assert row["num_processes"] == nproc, (
            f"Accelerate saw {row['num_processes']} process(es), {row['distributed_type']}: on a machine "
            "without (enough) GPUs create Accelerator(cpu=True), or it does not join torchrun's process group")
        assert row["model_type"] == "DistributedDataParallel", (
            f"the model is a {row['model_type']}, not DistributedDataParallel: pass it to accelerator.prepare "
            "(together with the optimizer and the DataLoader) and train the model prepare returns")
    expected = ddp_rows[0]["samples_seen"]
    for row in port_rows:
        assert row["samples_seen"] != nproc * expected, (
            f"process {row['rank']} trained on {row['samples_seen']} samples, the whole dataset every epoch: "
            "pass the DataLoader to accelerator.prepare, so each process gets its share")
        assert row["samples_seen"] == expected, (
            f"process {row['rank']} trained on {row['samples_seen']} samples, the DDP script's ranks on "
            f"{expected}: same batch size per process and same number of epochs")
    for row in port_rows[1:]:
        assert close(row["weights"], port_rows[0]["weights"]), (
            f"process {row['rank']} ended with other weights than process 0: train the model that "
            "accelerator.prepare returned, and step with accelerator.backward(loss) and optimizer.step()")
    gap = difference(port_rows[0]["weights"], ddp_rows[0]["weights"])
    if flat(port_rows[0]["weights"]).shape != flat(ddp_rows[0]["weights"]).shape or gap > TOLERANCE:
        assert port_rows[0]["sampler"] == "SeedableRandomSampler", (
            f"the final weights differ from DDP's (max |difference| {gap:.3g}) and the loader shuffles with "
            f"a {port_rows[0]['sampler']}: create the Accelerator with "
            "dataloader_config=DataLoaderConfiguration(use_seedable_sampler=True), so the shuffle is "
            "seeded like DistributedSampler(seed=...)")
        raise AssertionError(
            f"the final weights differ from DDP's by up to {gap:.3g} (allowed: {TOLERANCE:g}): call "
            "torch.manual_seed(args.seed) before creating the model, and keep the DDP script's learning "
            "rate, momentum and batch size")
    passed(f"{nproc} processes, DistributedDataParallel, {expected} samples each; final weights within "
           f"{TOLERANCE:g} of the DDP script's (max |difference| {gap:.2g})")


def accelerate_port_run(ddp_script: str | os.PathLike, port_script: str | os.PathLike,
                        nproc: int = 2, timeout: float = 120) -> None:
    """Launch the DDP script and its Accelerate port with torchrun, then `accelerate_port` their records."""
    ddp = launch.run_torchrun(ddp_script, nproc, timeout=timeout)
    port = launch.run_torchrun(port_script, nproc, timeout=timeout)
    accelerate_port(records.load(ddp.run_dir, "ddp"), records.load(port.run_dir, "port"), nproc)
