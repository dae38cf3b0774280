"""The benchmark runner: its plan, its settings, its output schema, and that it excludes startup
(the results document's arithmetic: test_scaling_results.py)."""
import argparse

import pytest

from ddp_lessons import bench
from helpers import MACHINE_KEYS, ROW_KEYS, RUN_KEYS, rows_at


def test_world_sizes_double_up_to_the_devices_and_include_the_limit():
    assert bench.default_world_sizes(1) == [1]
    assert bench.default_world_sizes(2) == [1, 2]
    assert bench.default_world_sizes(6) == [1, 2, 4, 6]
    assert bench.default_world_sizes(16) == [1, 2, 4, 8, 16]


def test_plan_keeps_weak_batch_per_rank_and_splits_strong_global_batch():
    settings = bench.Settings(models=("cnn",), scalings=("weak", "strong"), batch=64, global_batch=256)
    for world in (1, 2, 4):
        by_name = {e["name"]: e for e in bench.plan(settings, world, cores=4)}
        assert by_name["cnn/weak"]["per_rank_batch"] == 64
        assert by_name["cnn/strong"]["per_rank_batch"] == 256 // world
        assert by_name["cnn/weak"]["sync"] == ["every", "never"]


def test_sweeps_and_oversubscription_are_planned_only_with_several_ranks():
    settings = bench.Settings(models=("cnn", "mlp"), scalings=("weak",), bucket_sweep=(0.25, 1.0),
                              accumulate=4, oversubscribe=True)
    assert [e["name"] for e in bench.plan(settings, 1, cores=8)] == ["cnn/weak", "mlp/weak"]
    by_name = {e["name"]: e for e in bench.plan(settings, 2, cores=8)}
    assert by_name["mlp/weak/bucket=0.25MB"]["bucket_cap_mb"] == 0.25
    assert by_name["mlp/weak/bucket=1MB"]["sync"] == ["every"]
    assert by_name["mlp/weak/accumulate=4"]["sync"] == ["every", "last"]
    assert by_name["mlp/weak/accumulate=4"]["accumulate"] == 4
    assert by_name["cnn/weak/oversubscribed"]["threads"] == 8  # every rank uses every core
    assert by_name["cnn/weak"]["threads"] is None  # the script then uses max(1, cores // world)


def test_command_line_arguments_become_settings():
    parser = argparse.ArgumentParser()
    bench.add_arguments(parser)
    args = parser.parse_args(["--world-sizes", "1", "2", "--models", "mlp", "--bucket-sweep", "0.5",
                              "--accumulate", "4", "--oversubscribe", "--threads", "1"])
    settings = bench.settings_from_args(args)
    assert settings.world_sizes == [1, 2] and settings.models == ("mlp",)
    assert settings.bucket_sweep == (0.5,) and settings.accumulate == 4
    assert settings.oversubscribe and settings.threads == 1
    capped = bench.settings_from_args(parser.parse_args(["--max-world", "1"]))
    assert capped.world_sizes == [1]


ONE_RANK = bench.Settings(world_sizes=[1], models=("cnn",), scalings=("weak",), batch=32, steps=20,
                          warmup=5, threads=1)


@pytest.fixture(scope="module")
def one_rank(tmp_path_factory):
    """A 1-rank run saved to JSON and read back. (Its step time against the loop without torchrun is a
    benchmark, not a test: tools/bench_overhead.py.)"""
    folder = tmp_path_factory.mktemp("bench")
    with pytest.MonkeyPatch.context() as patch:
        patch.chdir(folder)  # run directories go to ./runs
        result = bench.run_bench(ONE_RANK, echo=False)
        yield bench.load(bench.save(result, folder / "bench.json"))


@pytest.mark.slow
def test_saved_results_follow_the_schema(one_rank):
    result = one_rank
    assert result["schema"] == bench.SCHEMA
    assert MACHINE_KEYS <= set(result["machine"]) and result["machine"]["backend"] in ("gloo", "nccl")
    [run] = result["runs"]
    assert set(run) == RUN_KEYS and run["startup_s"] > 0
    assert {(r["experiment"], r["sync"]) for r in result["rows"]} == {("cnn/weak", "every"),
                                                                      ("cnn/weak", "never")}
    for row in result["rows"]:
        assert set(row) == ROW_KEYS and row["step_s"]["count"] == ONE_RANK.steps
    assert bench.select(result, "cnn/weak", "never")[0]["allreduce_per_step"] == 0
    step = bench.select(result, "cnn/weak", "every")[0]["step_s"]["median"]
    assert run["startup_s"] > 10 * step  # torchrun's start-up is reported apart from the steps


@pytest.mark.slow
def test_allreduce_counts_follow_bucket_size_and_no_sync(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)  # run directories go to ./runs
    settings = bench.Settings(world_sizes=[2], models=("mlp",), scalings=("weak",), batch=8,
                              steps=2, warmup=2, bucket_sweep=(0.001, 0.25), accumulate=4)
    result = bench.run_bench(settings, echo=False)
    counts = {(r["experiment"], r["sync"]): r["allreduce_per_step"] for r in result["rows"]}
    assert counts == {("mlp/weak", "every"): 1, ("mlp/weak", "never"): 0,
                      # buckets close once they reach the cap, in the order gradients are ready
                      ("mlp/weak/bucket=0.001MB", "every"): 5, ("mlp/weak/bucket=0.25MB", "every"): 2,
                      ("mlp/weak/accumulate=4", "every"): 4, ("mlp/weak/accumulate=4", "last"): 1}


@pytest.mark.parametrize("gpus, cores, sizes", [
    (0, 1, [1, 2]),        # a 1-core CPU: two CPU ranks share the core
    (0, 2, [1, 2]),
    (1, 16, [1, 2]),       # one GPU: two ranks share it (gloo)
    (2, 16, [1, 2]),
    (4, 16, [1, 2, 4]),
    (8, 16, [1, 2, 4, 8]),
])
def test_world_sizes_always_include_two_ranks(monkeypatch, gpus, cores, sizes):
    """Lesson 9's first cell and `python -m ddp_lessons bench` plan the same world sizes."""
    monkeypatch.setattr(bench.backend, "gpu_count", lambda: gpus)
    monkeypatch.setattr(bench.backend, "cpu_cores", lambda: cores)
    assert bench.world_sizes_for(bench.devices_available(), max_world=8) == sizes
    planned = []
    monkeypatch.setattr(bench, "run_world", lambda settings, world, echo: planned.append(world) or
                        (rows_at(world), {"world_size": world, "backend": "gloo", "device": "cpu"}))
    monkeypatch.setattr(bench, "machine", lambda: {"gpus": [], "cpu_model": "x", "cpu_cores": cores,
                                                   "torch": "2.13"})
    parser = argparse.ArgumentParser()
    bench.add_arguments(parser)
    bench.run_bench(bench.settings_from_args(parser.parse_args(["--max-world", "8"])))
    assert planned == sizes
    settings = bench.Settings(bucket_sweep=(0.25,), accumulate=4, oversubscribe=True)
    names = {e["name"] for e in bench.plan(settings, max(sizes), cores)}
    assert {"cnn/weak/oversubscribed", "mlp/weak/bucket=0.25MB", "mlp/weak/accumulate=4"} <= names


