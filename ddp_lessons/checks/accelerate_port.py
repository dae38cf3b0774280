"""Check of exercise 14: a DDP script with gradient accumulation, an evaluation and a resume, ported to
Accelerate, takes the same steps, evaluates the same samples, resumes, and ends with the same weights.

Both scripts record, on each rank, where they started (``first_epoch``), their optimizer steps, the
samples they trained on, their evaluation (``mse``, ``eval_samples``) and the final weights; the port
also records what Accelerate made of the job (processes, distributed type, the prepared model's type
and the sampler under its loader). The port runs twice: one epoch, then to the end from its snapshot.
"""

from __future__ import annotations

import os
from pathlib import Path

from ddp_lessons import launch, records
from ddp_lessons.checks.common import Rows, close, difference, flat, passed, ranks_are, recorded, written
from ddp_lessons.i18n import tr

TOLERANCE = 1e-5
"""Largest |difference| allowed per weight: the ranks split each global batch differently (lesson 14)."""


def _ran_as_ddp(rows: Rows, nproc: int) -> None:
    for row in rows:
        assert row["num_processes"] == nproc, tr(
            "Accelerate saw {processes} process(es), {distributed_type}: on a machine without (enough) GPUs "
            "create Accelerator(cpu=True), or it does not join torchrun's process group",
            processes=row["num_processes"], distributed_type=row["distributed_type"])
        assert row["model_type"] == "DistributedDataParallel", tr(
            "the model is a {model_type}, not DistributedDataParallel: pass it to accelerator.prepare "
            "(together with the optimizer and the DataLoader) and train the model prepare returns",
            model_type=row["model_type"])


@recorded("14")
def accelerate_port(ddp_rows: Rows, first_rows: Rows, resumed_rows: Rows, nproc: int = 2, epochs: int = 2,
                    accumulate: int = 2) -> None:
    """`ddp_rows`: the DDP script's records after `epochs` epochs; `first_rows`: the port's after its
    first epoch; `resumed_rows`: the port's after it resumed from its snapshot and finished."""
    for rows, name in ((ddp_rows, "ddp"), (first_rows, "port"), (resumed_rows, "port")):
        ranks_are(rows, nproc, name)
    _ran_as_ddp(first_rows, nproc)
    ddp = ddp_rows[0]
    steps_per_epoch, samples_per_epoch = ddp["optimizer_steps"] // epochs, ddp["samples_seen"] // epochs
    for row in first_rows:
        assert row["samples_seen"] != nproc * samples_per_epoch, tr(
            "process {rank} trained on {samples} samples in one epoch, the whole dataset: pass the DataLoader "
            "to accelerator.prepare, so each process gets its share", rank=row["rank"], samples=row["samples_seen"])
        assert row["samples_seen"] == samples_per_epoch, tr(
            "process {rank} trained on {samples} samples in one epoch, the DDP script's ranks on {expected}: "
            "same batch size per process", rank=row["rank"], samples=row["samples_seen"], expected=samples_per_epoch)
        assert row["optimizer_steps"] != steps_per_epoch * accumulate, tr(
            "process {rank} stepped the optimizer {steps} times in one epoch, after every batch; the DDP script "
            "steps {expected} times, once every {accumulate} batches: create the Accelerator with "
            "gradient_accumulation_steps=args.accumulate and train each batch inside "
            "`with accelerator.accumulate(model):`",
            rank=row["rank"], steps=row["optimizer_steps"], expected=steps_per_epoch, accumulate=accumulate)
        assert row["optimizer_steps"] == steps_per_epoch, tr(
            "process {rank} stepped the optimizer {steps} times in one epoch, the DDP script {expected}: one "
            "step every {accumulate} batches",
            rank=row["rank"], steps=row["optimizer_steps"], expected=steps_per_epoch, accumulate=accumulate)
    for row in resumed_rows:
        assert row["first_epoch"] != 0, tr(
            "run again with the same --snapshot folder, the port started at epoch 0 again: register the "
            "epoch with accelerator.register_for_checkpointing(progress) and call resume(accelerator, "
            "args.snapshot) after accelerator.prepare, before the training loop")
        assert row["first_epoch"] == 1, tr("after one epoch, the resumed port started at epoch {epoch}",
                                           epoch=row["first_epoch"])
        assert row["eval_samples"] <= ddp["eval_samples"], tr(
            "process {rank} evaluated {samples} samples, the dataset has {expected}: the last round of an "
            "uneven loader is padded with repeated samples; gather with accelerator.gather_for_metrics, which "
            "drops them (accelerator.gather keeps them)",
            rank=row["rank"], samples=row["eval_samples"], expected=ddp["eval_samples"])
        assert row["eval_samples"] == ddp["eval_samples"], tr(
            "process {rank} evaluated {samples} samples, the dataset has {expected}: let each process score "
            "its share of a prepared DataLoader, and gather the results of all processes with "
            "accelerator.gather_for_metrics", rank=row["rank"], samples=row["eval_samples"],
            expected=ddp["eval_samples"])
    for row in resumed_rows[1:]:
        assert close(row["weights"], resumed_rows[0]["weights"]), tr(
            "process {rank} ended with other weights than process 0: train the model that "
            "accelerator.prepare returned, and step with accelerator.backward(loss) and optimizer.step()",
            rank=row["rank"])
    gap = difference(resumed_rows[0]["weights"], ddp["weights"])
    if flat(resumed_rows[0]["weights"]).shape != flat(ddp["weights"]).shape or gap > TOLERANCE:
        assert first_rows[0]["sampler"] == "SeedableRandomSampler", tr(
            "the final weights differ from DDP's (max |difference| {gap:.3g}) and the loader shuffles with "
            "a {sampler}: create the Accelerator with "
            "dataloader_config=DataLoaderConfiguration(use_seedable_sampler=True), so the shuffle is "
            "seeded like DistributedSampler(seed=...)", gap=gap, sampler=first_rows[0]["sampler"])
        raise AssertionError(tr(
            "the final weights differ from DDP's by up to {gap:.3g} (allowed: {tolerance:g}): call "
            "accelerator.backward(loss) inside accelerator.accumulate (it divides the loss by the "
            "accumulation steps, as the DDP script does), and keep the seed, learning rate, momentum and "
            "batch size", gap=gap, tolerance=TOLERANCE))
    mse, expected = resumed_rows[0]["mse"], ddp["mse"]
    assert abs(mse - expected) <= 1e-4 * expected, tr(
        "the port's evaluation gave MSE {mse:.6g}, the DDP script's {expected:.6g}: the mean of the squared "
        "errors of every sample, each counted once", mse=mse, expected=expected)
    passed(tr("{nproc} processes, DistributedDataParallel, {steps} optimizer steps and {samples} samples per "
              "epoch and process; resumed at epoch 1; evaluated {eval_samples} samples (MSE {mse:.4g}); final "
              "weights within {tolerance:g} of the DDP script's (max |difference| {gap:.2g})",
              nproc=nproc, steps=steps_per_epoch, samples=samples_per_epoch, eval_samples=ddp["eval_samples"],
              mse=mse, tolerance=TOLERANCE, gap=gap))


@recorded("14")
def accelerate_port_run(ddp_script: str | os.PathLike, port_script: str | os.PathLike,
                        nproc: int = 2, epochs: int = 2, accumulate: int = 2, timeout: float = 150) -> None:
    """Launch the DDP script for `epochs` epochs, the port for 1 and then again to `epochs` from its
    snapshot, all with torchrun; then `accelerate_port` their records."""
    written(port_script)
    root = records.new_run_dir(Path(port_script).stem)
    args = ["--accumulate", str(accumulate)]
    ddp = launch.run_torchrun(ddp_script, nproc, timeout=timeout, run_dir=root / "ddp",
                              args=[*args, "--epochs", str(epochs), "--snapshot", str(root / "ddp-snapshot")])
    snapshot = str(root / "port-snapshot")
    try:
        first = launch.run_torchrun(port_script, nproc, timeout=timeout, run_dir=root / "port-1-epoch",
                                    args=[*args, "--epochs", "1", "--snapshot", snapshot])
    except launch.RankFailedError as error:
        raise AssertionError(tr("the port fails in its first epoch; fix this first:\n{error}",
                                error=error)) from None
    try:
        resumed = launch.run_torchrun(port_script, nproc, timeout=timeout, run_dir=root / "port-resumed",
                                      args=[*args, "--epochs", str(epochs), "--snapshot", snapshot])
    except launch.RankFailedError as error:
        assert "already exists" not in str(error), tr(
            "run again with the same --snapshot folder, the port wrote checkpoint_0 again, which exists: "
            "call resume(accelerator, args.snapshot) after accelerator.prepare, before the training loop "
            "(it loads the newest complete snapshot and numbers the next one after it), and register the "
            "epoch with accelerator.register_for_checkpointing(progress) before it")
        raise AssertionError(tr("run again from its snapshot, the port fails:\n{error}", error=error)) from None
    accelerate_port(records.load(ddp.run_dir, "ddp"), records.load(first.run_dir, "port"),
                    records.load(resumed.run_dir, "port"), nproc, epochs, accumulate)
