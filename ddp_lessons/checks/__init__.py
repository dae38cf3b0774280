"""Checks for the exercises: one helper per check cell, each asserting with a hint (see exercises/).

A helper prints one ``✓`` line when its check passes, and otherwise raises AssertionError with a
message that says what is wrong and how to fix it. Pure-function exercises hand over the
student's function (``checks.sampler_shards(shard_indices)``); script exercises hand over what
the ranks recorded (``checks.ddp_gradients(records.load(run.run_dir, "gradients"))``).
`checkpointing` launches its script itself, under the observer ``scripts/observe_checkpoint_io.py``;
`restartable` under ``scripts/crash_during_snapshot.py``; `ring_allreduce` runs the student's function
under ``scripts/check_ring.py``.

Topic modules, by exercise: `gradients` (1 and 4), `process_group` (2), `devices` (3), `sampler` (5),
`no_sync` (6), `set_epoch` (7), `checkpoint` (8), `scaling` (9), `bug_hunt` (10), `metrics` (11),
`restart` (12), `amp` (13), `accelerate_port` (14), `memory` (15), `ring` (16), `modern_loop` (17); `common` holds what they share.

Hints are `ddp_lessons.i18n.tr` templates, shown in the exercise's language (Spanish in exercises/es/);
tests/test_translations.py makes the checks of every translated exercise use them.
"""

from ddp_lessons.checks.accelerate_port import accelerate_port, accelerate_port_run
from ddp_lessons.checks.amp import amp_run, amp_training
from ddp_lessons.checks.bug_hunt import (bug_symptoms, device_ids_per_node, every_parameter_gets_a_gradient,
                                         new_order_each_epoch, one_shard_per_rank, ranks_stay_in_step)
from ddp_lessons.checks.checkpoint import checkpointing
from ddp_lessons.checks.devices import device_and_backend, torchrun_env
from ddp_lessons.checks.gradients import averaged_gradients, ddp_gradients, device_ids_on_every_node, replica_gradients
from ddp_lessons.checks.memory import bytes_formula, bytes_measured
from ddp_lessons.checks.metrics import batch_arithmetic, distributed_accuracy, real_distributed_accuracy
from ddp_lessons.checks.modern_loop import checkpoint_keys, input_pipeline, run_modern_loop
from ddp_lessons.checks.no_sync import gradient_accumulation
from ddp_lessons.checks.process_group import (launched_records, mean_across_ranks, process_group_setup,
                                              setup_on_simulated_gpus)
from ddp_lessons.checks.restart import restartable
from ddp_lessons.checks.ring import alpha_beta, halving_doubling, latency_steps, predicted_time, ring_allreduce
from ddp_lessons.checks.sampler import coverage_counts, sampler_shards
from ddp_lessons.checks.scaling import strong_scaling, weak_scaling
from ddp_lessons.checks.set_epoch import resumed_in_order

__all__ = [
    "replica_gradients", "averaged_gradients",  # 1
    "process_group_setup", "launched_records", "mean_across_ranks", "setup_on_simulated_gpus",  # 2
    "torchrun_env", "device_and_backend",  # 3
    "device_ids_on_every_node", "ddp_gradients",  # 4
    "sampler_shards", "coverage_counts",  # 5
    "gradient_accumulation",  # 6
    "resumed_in_order",  # 7
    "checkpointing",  # 8
    "strong_scaling", "weak_scaling",  # 9
    "device_ids_per_node", "one_shard_per_rank", "new_order_each_epoch", "ranks_stay_in_step",
    "every_parameter_gets_a_gradient", "bug_symptoms",  # 10
    "distributed_accuracy", "real_distributed_accuracy", "batch_arithmetic",  # 11
    "restartable",  # 12
    "amp_run", "amp_training",  # 13
    "accelerate_port", "accelerate_port_run",  # 14
    "bytes_formula", "bytes_measured",  # 15
    "ring_allreduce", "halving_doubling", "alpha_beta", "predicted_time", "latency_steps",  # 16
    "run_modern_loop", "checkpoint_keys", "input_pipeline",  # 17
]
