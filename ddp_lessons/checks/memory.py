"""Checks of exercise 15: the student's bytes-per-rank formula, against the ZeRO paper and against real runs.

`bytes_formula` needs no launch: the ZeRO paper's figure (mixed precision, Ψ = 7.5e9, 64 GPUs) and a
few rules of fp32. `bytes_measured` picks a random MLP (widths multiples of 6, so every shard divides
evenly), a world size of 2 or 3 and Adam or SGD with momentum, launches the exercise's script, and
compares the formula with the measured ledger, averaged over the ranks (ZeRO-1's shares differ by rank;
their mean is the formula's). Adam's ``step`` counters (4 bytes per tensor) are left out. A mismatch
names the usual mistake: forgetting Adam's second state, dividing what a strategy does not divide,
counting DDP's bucket views twice, or sharding with FSDP2 so that full parameters stay gathered.
"""

from __future__ import annotations

import math
import random
from collections.abc import Callable, Mapping

from ddp_lessons import launch, records, sharding
from ddp_lessons.checks.common import Rows, passed, ranks_are, recorded
from ddp_lessons.i18n import tr

Formula = Callable[..., Mapping[str, float]]
ROWS = ("parameters", "gradients", "optimizer")
SHARDED = {"ddp": (), "zero1": ("optimizer",), "zero2": ("optimizer", "gradients"),
           "fsdp": ("optimizer", "gradients", "parameters")}


def _states(optimizer: str) -> str:
    """What `optimizer` keeps per parameter, as a hint."""
    return {"adam": tr("Adam keeps two states per parameter, exp_avg and exp_avg_sq, each as large as the "
                       "parameters"),
            "momentum": tr("SGD with momentum keeps one state per parameter, its momentum_buffer"),
            "sgd": tr("plain SGD keeps no state at all")}[optimizer]


def _who(strategy: str) -> str:
    """What `strategy` shards, as a hint."""
    return {"ddp": tr("DDP shards nothing: every rank is a full replica"),
            "zero1": tr("ZeRO-1 shards only the optimizer state; every rank still holds all parameters and "
                        "gradients"),
            "zero2": tr("ZeRO-2 shards the optimizer state and the gradients; every rank keeps all parameters"),
            "fsdp": tr("FSDP2 (ZeRO-3) shards parameters, gradients and optimizer state")}[strategy]


def _call(formula: Formula, psi: float, world_size: int, strategy: str, optimizer: str,
          precision: str) -> dict[str, float]:
    """The student's rows for one setting, checked for shape."""
    got = formula(psi, world_size, strategy, optimizer=optimizer, precision=precision)
    assert isinstance(got, Mapping) and set(ROWS) <= set(got), tr(
        "bytes_per_rank(...) must return a dict with the keys {keys}, got {got!r}", keys=list(ROWS), got=got)
    return {row: float(got[row]) for row in ROWS}


def _hint(row: str, got: float, want: float, world_size: int, strategy: str, optimizer: str) -> str:
    """Why `got` is not `want` for `row` of `strategy`, as far as the ratio tells."""
    ratio = got / want if want else math.inf
    sharded = row in SHARDED[strategy]
    if math.isclose(ratio, world_size) and sharded:
        return tr("{who}: divide the {row} row by the world size", who=_who(strategy), row=row)
    if math.isclose(ratio, 1 / world_size) and not sharded:
        return tr("{who}: do not divide the {row} row by the world size", who=_who(strategy), row=row)
    if row == "gradients" and math.isclose(ratio, 2) and strategy in ("ddp", "zero1"):
        return tr("the run uses gradient_as_bucket_view=True: the gradients are views into DDP's buckets, "
                  "so count that memory once, not gradients plus buckets")
    if row == "optimizer" and (math.isclose(ratio, 0.5) or math.isclose(ratio, 2)) and optimizer != "sgd":
        per_parameter = 4 * sharding.OPTIMIZER_STATES[optimizer]
        return tr("{states}: count each state once ({per_parameter} bytes per parameter in fp32)",
                  states=_states(optimizer), per_parameter=per_parameter)
    if row == "optimizer" and want == 0:
        return _states(optimizer)
    return tr("check the bytes per parameter of this row and whether this strategy divides it")


def _compare(got: Mapping[str, float], want: Mapping[str, float], world_size: int, strategy: str,
             optimizer: str, where: str) -> None:
    for row in ROWS:
        assert math.isclose(got[row], want[row], rel_tol=1e-9, abs_tol=1e-9), tr(
            "{where}: the {row} row should be {want:,.0f} bytes per rank, your formula says {got:,.0f}: {hint}",
            where=where, row=row, want=want[row], got=got[row],
            hint=_hint(row, got[row], want[row], world_size, strategy, optimizer))


@recorded("15")
def bytes_formula(formula: Formula) -> None:
    """Check `formula(psi, world_size, strategy, optimizer=, precision=)` without running anything."""
    for optimizer in sharding.OPTIMIZER_STATES:  # fp32 first: 4 bytes per parameter, gradient and state
        for strategy in sharding.STRATEGIES:
            for world_size in (1, 8):
                want = sharding.predict(1000, world_size, strategy, optimizer, "fp32")
                _compare(_call(formula, 1000, world_size, strategy, optimizer, "fp32"), want, world_size,
                         strategy, optimizer, f"{strategy}, {optimizer}, fp32, Ψ = 1000, {world_size} rank(s)")
    for strategy in sharding.STRATEGIES:  # the paper's accounting: 2 + 2 + 12 bytes per parameter
        want = sharding.predict(7.5e9, 64, strategy, "adam", "mixed")
        got = _call(formula, 7.5e9, 64, strategy, "adam", "mixed")
        if math.isclose(got["optimizer"], want["optimizer"] * 8 / 12):
            raise AssertionError(tr("mixed precision: the ZeRO paper's optimizer state also holds an fp32 master "
                                    "copy of the weights, 4 bytes per parameter, besides Adam's two fp32 states: "
                                    "K = 12"))
        _compare(got, want, 64, strategy, "adam",
                 tr("{strategy}, mixed precision, Ψ = 7.5e9 on 64 GPUs", strategy=strategy))
    passed(tr("every fp32 strategy and optimizer, and the ZeRO paper's figure (120, 31.4, 16.6, 1.9 GB per GPU)"))


def _mean(rows: Rows, ledger: str, row: str) -> float:
    return sum(r[ledger][row] for r in rows) / len(rows)


def _measured(rows: Rows, at_forward: Rows | None = None) -> dict[str, float]:
    """Mean bytes per rank after the step (gradients with DDP's buckets, optimizer without Adam's step
    counters); with `at_forward`, the parameters are those gathered at the end of forward (ZeRO-2)."""
    counters = sum(r["by_state"].get("step", 0) for r in rows) / len(rows)
    parameters = _mean(at_forward, "forward", "gathered") if at_forward else _mean(rows, "step", "parameters")
    return {"parameters": parameters,
            "gradients": _mean(rows, "step", "gradients") + _mean(rows, "step", "buckets"),
            "optimizer": _mean(rows, "step", "optimizer") - counters}


def random_setting(seed: int) -> dict:
    """A small MLP (widths multiples of 6), a world size of 2 or 3 and an optimizer, from `seed`."""
    rng = random.Random(seed)
    widths = [6 * rng.randint(1, 12) for _ in range(rng.randint(3, 4))]
    return {"widths": widths, "world_size": rng.choice([2, 3]), "optimizer": rng.choice(["adam", "momentum"]),
            "psi": sum(a * b + b for a, b in zip(widths, widths[1:]))}


@recorded("15")
def bytes_measured(formula: Formula, script: str, part: str, seed: int | None = None) -> None:
    """Launch `script` for `part` ("replicas": DDP, ZeRO-1; "sharded": FSDP2 as ZeRO-3 and ZeRO-2) on a
    random setting (from `seed`) and compare `formula` with the measured ledgers."""
    seed = random.randrange(10**6) if seed is None else seed
    s = random_setting(seed)
    strategies = PARTS[part]
    for strategy in strategies:  # a formula that raises fails here, before any launch
        _call(formula, s["psi"], s["world_size"], strategy, s["optimizer"], "fp32")
    run = launch.run_torchrun(script, s["world_size"], echo=False, args=[
        "--widths", ",".join(map(str, s["widths"])), "--optimizer", s["optimizer"], "--part", part])
    ledgers = {name: records.load(run.run_dir, f"ledger-{name}") for name in LEDGERS[part]}
    check_ledgers(formula, s, ledgers, part, seed)


PARTS = {"replicas": ("ddp", "zero1"), "sharded": ("fsdp", "zero2")}
LEDGERS = {"replicas": ("ddp", "zero1"), "sharded": ("fsdp-reshard", "fsdp-keep")}


def check_ledgers(formula: Formula, setting: dict, ledgers: Mapping[str, Rows], part: str, seed: int) -> None:
    """Compare `formula` with the ranks' ledgers of one launch of the exercise's script."""
    s = setting
    for name, rows in ledgers.items():
        ranks_are(rows, s["world_size"], f"ledger-{name}")
    if part == "sharded":
        fsdp_sharded(ledgers["fsdp-reshard"], ledgers["fsdp-keep"], s["psi"])
        measured = {"fsdp": _measured(ledgers["fsdp-reshard"]),
                    "zero2": _measured(ledgers["fsdp-keep"], at_forward=ledgers["fsdp-keep"])}
    else:
        measured = {name: _measured(rows) for name, rows in ledgers.items()}
    where = tr("widths {widths} (Ψ = {psi:,}), {world_size} ranks, {optimizer}, seed {seed}", widths=s["widths"],
               psi=s["psi"], world_size=s["world_size"], optimizer=s["optimizer"], seed=seed)
    for strategy in PARTS[part]:
        got = _call(formula, s["psi"], s["world_size"], strategy, s["optimizer"], "fp32")
        _compare(got, measured[strategy], s["world_size"], strategy, s["optimizer"],
                 tr("{strategy} measured with {where}", strategy=strategy, where=where))
    first, second = PARTS[part]
    passed(tr("{first} and {second}: your formula equals the measured ledger ({where})", first=first,
              second=second, where=where))


def fsdp_sharded(reshard: Rows, keep: Rows, psi: int) -> None:
    """The student's `shard` made each Linear a block, then the root, all sharded, resharding as asked."""
    for row in reshard + keep:
        assert row["sharded"] == row["parameters"], tr(
            "rank {rank}: {unsharded} of {total} parameters are not sharded: call fully_shard(layer, mesh=mesh, "
            "...) on every Linear, then on the model", rank=row["rank"],
            unsharded=row["parameters"] - row["sharded"], total=row["parameters"])
        assert row["blocks"] == row["linears"], tr(
            "{missing} of the {linears} Linear layers are not blocks of their own: call fully_shard(layer, "
            "mesh=mesh, ...) on each, so that forward gathers one block's parameters at a time instead of the "
            "whole model's", missing=row["linears"] - row["blocks"], linears=row["linears"])
        assert row["root"], tr("the model itself is not sharded: after the layers, call fully_shard(model, "
                               "mesh=mesh, ...) too; the root takes any parameter outside the blocks and "
                               "drives FSDP2's initialization")
    for row in reshard:
        gathered = row["forward"]["gathered"]
        assert gathered == 0, tr(
            "rank {rank}: with reshard_after_forward=True, {gathered:,} bytes of full parameters were still "
            "gathered at the end of forward: pass reshard_after_forward to every fully_shard call, the model's "
            "too (left out, FSDP2 keeps the root gathered after forward)", rank=row["rank"], gathered=gathered)
    for row in keep:
        gathered = row["forward"]["gathered"]
        assert gathered == 4 * psi, tr(
            "rank {rank}: with reshard_after_forward=False the full parameters (4Ψ = {full:,} bytes) should stay "
            "gathered until backward, but {gathered:,} were: pass reshard_after_forward to each fully_shard call",
            rank=row["rank"], full=4 * psi, gathered=gathered)
