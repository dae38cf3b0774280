"""`checks.bytes_formula` / `bytes_measured` (exercise 15) pass the solution's formula and name each usual mistake.

The measured part is tested on ledgers built from `sharding.rank_bytes` (what a run records, as the lesson
asserts), then on real launches of the solution's script and of broken copies of its `shard`.
"""
import math

import pytest

from ddp_lessons import checks, sharding
from ddp_lessons.checks import memory as memory_checks

DIVIDED = {"ddp": [], "zero1": ["optimizer"], "zero2": ["optimizer", "gradients"],
           "fsdp": ["optimizer", "gradients", "parameters"]}


def formula(mistake=None):
    """The solution's bytes_per_rank, with one `mistake` or none."""
    def bytes_per_rank(psi, world_size, strategy, optimizer="adam", precision="fp32"):
        states = {"sgd": 0, "momentum": 1, "adam": 2}[optimizer]
        if mistake == "one adam state" and optimizer == "adam":
            states = 1
        if mistake == "state for plain sgd" and optimizer == "sgd":
            states = 1
        if precision == "fp32":
            rows = {"parameters": 4 * psi, "gradients": 4 * psi, "optimizer": 4 * states * psi}
        else:
            master = 0 if mistake == "no master copy" else 4
            rows = {"parameters": 2 * psi, "gradients": 2 * psi, "optimizer": (master + 4 * states) * psi}
        if mistake == "buckets counted twice" and strategy in ("ddp", "zero1"):
            rows["gradients"] *= 2
        divided = list(DIVIDED[strategy])
        if mistake == "zero1 divides parameters" and strategy == "zero1":
            divided.append("parameters")
        if mistake == "zero2 keeps gradients" and strategy == "zero2":
            divided.remove("gradients")
        if mistake == "fsdp keeps parameters" and strategy == "fsdp":
            divided.remove("parameters")
        for row in divided:
            rows[row] /= world_size
        if mistake == "missing row":
            del rows["optimizer"]
        return rows
    return bytes_per_rank


def test_the_solution_passes_the_formula_check(capsys):
    checks.bytes_formula(formula())
    assert capsys.readouterr().out.startswith("✓ every fp32 strategy and optimizer, and the ZeRO paper's figure")


@pytest.mark.parametrize("mistake, hint", [
    ("one adam state", "Adam keeps two states per parameter"),
    ("state for plain sgd", "plain SGD keeps no state at all"),
    ("zero1 divides parameters", "ZeRO-1 shards only the optimizer state"),
    ("zero2 keeps gradients", "ZeRO-2 shards the optimizer state and the gradients"),
    ("fsdp keeps parameters", "FSDP2 (ZeRO-3) shards parameters, gradients and optimizer state"),
    ("buckets counted twice", "the gradients are views into DDP's buckets"),
    ("no master copy", "fp32 master copy of the weights"),
    ("missing row", "must return a dict with the keys"),
])
def test_each_usual_mistake_fails_the_formula_check_with_its_hint(mistake, hint, fails_with):
    with fails_with(hint):
        checks.bytes_formula(formula(mistake))


def recorded(setting, part):
    """The ledgers the exercise's script records for `setting`, built from the exact formulas."""
    widths, n, optimizer = setting["widths"], setting["world_size"], setting["optimizer"]
    shapes = [s for a, b in zip(widths, widths[1:]) for s in ((b, a), (b,))]
    counters = {"step": 4} if optimizer == "adam" else {}

    def row(rank, strategy, gathered=0):
        after = sharding.rank_bytes(shapes, n, rank, strategy, optimizer)
        owned = len(shapes) if strategy != "zero1" else len(sharding.zero1_partition(
            [math.prod(s) for s in shapes], n)[rank])
        return {"rank": rank, "step": {**after, "gathered": 0}, "forward": {"gathered": gathered},
                "by_state": {k: v * owned for k, v in counters.items()}, "parameters": len(shapes),
                "sharded": len(shapes), "linears": len(widths) - 1, "blocks": len(widths) - 1, "root": True}
    if part == "replicas":
        return {name: [row(r, name) for r in range(n)] for name in ("ddp", "zero1")}
    return {"fsdp-reshard": [row(r, "fsdp") for r in range(n)],
            "fsdp-keep": [row(r, "fsdp", gathered=4 * setting["psi"]) for r in range(n)]}


SEEDS = [3, 5, 8, 12]  # 2 and 3 ranks, Adam and momentum among them


def test_the_seeds_cover_both_world_sizes_and_optimizers():
    settings = [memory_checks.random_setting(seed) for seed in SEEDS]
    assert {s["world_size"] for s in settings} == {2, 3} and {s["optimizer"] for s in settings} == {"adam", "momentum"}
    assert all(w % 6 == 0 for s in settings for w in s["widths"])


@pytest.mark.parametrize("seed", SEEDS)
@pytest.mark.parametrize("part", ["replicas", "sharded"])
def test_the_solution_equals_the_ledgers_of_a_run(seed, part, capsys):
    setting = memory_checks.random_setting(seed)
    memory_checks.check_ledgers(formula(), setting, recorded(setting, part), part, seed)
    assert capsys.readouterr().out.startswith("✓")


@pytest.mark.parametrize("part, mistake, hint", [
    ("replicas", "one adam state", "Adam keeps two states"),
    ("replicas", "zero1 divides parameters", "every rank still holds all parameters and gradients"),
    ("replicas", "buckets counted twice", "count that memory once, not gradients plus buckets"),
    ("sharded", "zero2 keeps gradients", "divide the gradients row by the world size"),
    ("sharded", "fsdp keeps parameters", "divide the parameters row by the world size"),
])
def test_a_wrong_formula_fails_against_the_ledgers_with_its_hint(part, mistake, hint, fails_with):
    setting = memory_checks.random_setting(12)  # Adam, 3 ranks
    assert setting["optimizer"] == "adam" and setting["world_size"] == 3
    with fails_with(hint):
        memory_checks.check_ledgers(formula(mistake), setting, recorded(setting, part), part, 12)


@pytest.mark.parametrize("change, hint", [
    ({"blocks": 0}, "Linear layers are not blocks of their own"),
    ({"root": False}, "the model itself is not sharded"),
    ({"sharded": 0}, "parameters are not sharded"),
])
def test_a_wrong_shard_structure_fails_with_its_hint(change, hint, fails_with):
    setting = memory_checks.random_setting(4)
    ledgers = recorded(setting, "sharded")
    ledgers["fsdp-reshard"][1].update(change)
    with fails_with(hint):
        memory_checks.check_ledgers(formula(), setting, ledgers, "sharded", 4)


@pytest.mark.parametrize("ledger, gathered, hint", [
    ("fsdp-reshard", 1, "still gathered at the end of forward"),
    ("fsdp-keep", 0, "should stay gathered until backward"),
])
def test_resharding_not_as_asked_fails_with_its_hint(ledger, gathered, hint, fails_with):
    setting = memory_checks.random_setting(4)
    ledgers = recorded(setting, "sharded")
    ledgers[ledger][0]["forward"]["gathered"] = gathered
    with fails_with(hint):
        memory_checks.check_ledgers(formula(), setting, ledgers, "sharded", 4)


def test_a_formula_that_raises_fails_before_any_launch():
    def unfinished(*args, **kwargs):
        raise NotImplementedError()
    with pytest.raises(NotImplementedError):
        checks.bytes_measured(unfinished, "scripts/does_not_exist.py", part="replicas", seed=1)


# --- real runs of the solution's script -----------------------------------------------------------

@pytest.mark.slow
@pytest.mark.extended  # make test grades exercise 15's solution with these real runs already (tests/test_grading.py)
@pytest.mark.parametrize("part", ["replicas", "sharded"])
def test_the_solution_script_passes_on_a_real_run(solution_script, part, capsys):
    script = solution_script("15_memory", "15_shard.py")
    checks.bytes_measured(formula(), str(script), part=part, seed=3)
    assert capsys.readouterr().out.startswith("✓")


SOLVED_SHARD = ("    for layer in model:\n        if isinstance(layer, nn.Linear):\n"
                "            fully_shard(layer, mesh=mesh, reshard_after_forward=reshard_after_forward)\n"
                "    fully_shard(model, mesh=mesh, reshard_after_forward=reshard_after_forward)\n")


@pytest.mark.slow
@pytest.mark.parametrize("body, hint", [
    ("    fully_shard(model, mesh=mesh, reshard_after_forward=reshard_after_forward)\n",
     "are not blocks of their own"),
    pytest.param("    for layer in model:\n        if isinstance(layer, nn.Linear):\n"
                 "            fully_shard(layer, mesh=mesh)\n    fully_shard(model, mesh=mesh)\n",
                 "should stay gathered until backward",
                 marks=pytest.mark.extended),  # its hint is proven from ledgers above; one real run is kept
])
def test_a_broken_shard_fails_on_a_real_run(solution_script, fails_with, body, hint):
    script = solution_script("15_memory", "15_shard.py", {SOLVED_SHARD: body})
    with fails_with(hint):
        checks.bytes_measured(formula(), str(script), part="sharded", seed=3)


def test_in_a_spanish_notebook_the_hints_are_spanish(monkeypatch, fails_with, capsys):
    monkeypatch.setenv("DDP_LESSONS_LANG", "es")
    with fails_with("ZeRO-2 fragmenta el estado del optimizador y los gradientes; cada rank conserva todos los "
                    "parámetros: divida la fila «gradients» entre el world size"):
        checks.bytes_formula(formula("zero2 keeps gradients"))
    setting = memory_checks.random_setting(12)
    memory_checks.check_ledgers(formula(), setting, recorded(setting, "replicas"), "replicas", 12)
    assert capsys.readouterr().out.startswith("✓ ddp y zero1: su fórmula coincide con el inventario medido (anchos ")
