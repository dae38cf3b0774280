"""The benchmark runner: its plan, its arithmetic, its output schema, and that it excludes startup."""
import argparse
import json
import statistics
from pathlib import Path

import pytest

from ddp_lessons import bench

FACTS_PROVENANCE = ("measured 2026-11 by the course authors on a 16-core x86-64 host (torch 2.11, gloo on "
                    "CPU, torchrun): small CNN ~1.1M params, 1 thread/rank, samples/s only; weak scaling "
                    "batch 64 per rank, strong scaling global batch 256; not measured with this runner")
ROW_KEYS = {"experiment", "sync", "world_size", "model", "scaling", "per_rank_batch", "global_batch",
            "accumulate", "threads_per_rank", "bucket_cap_mb", "step_s", "samples_per_s",
            "allreduce_per_step", "allreduce_s", "speedup", "efficiency", "efficiency_range"}
SPREAD_KEYS = {"median", "q1", "q3", "min", "max", "count"}
RUN_KEYS = {"world_size", "backend", "device", "choice", "launch_wall_s", "startup_s",
            "torchrun_and_python_start_s", "init_process_group_s", "ddp_construct_s", "measuring_s",
            "teardown_s", "load_average"}
MACHINE_KEYS = {"cpu_model", "cpu_cores", "gpus", "torch", "python", "platform", "backend", "device"}


def rank_record(step_s, allreduces=1, name="cnn/weak", per_rank_batch=8, sync=("every",)):
    """A rank's record as bench_train.py writes it, with one measurement."""
    modes = {mode: {"step_s": list(step_s), "allreduces": [allreduces] * len(step_s),
                    "allreduce_s": [0.001] * len(step_s)} for mode in sync}
    return {"measurements": [{"name": name, "model": "cnn", "scaling": "weak",
                              "per_rank_batch": per_rank_batch, "accumulate": 1, "sync": list(sync),
                              "bucket_cap_mb": 25.0, "threads": 1, "modes": modes}]}


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


def test_spread_reports_median_quartiles_and_extremes():
    stats = bench.spread([5.0, 1.0, 3.0, 2.0, 4.0])
    assert stats == {"median": 3.0, "q1": 2.0, "q3": 4.0, "min": 1.0, "max": 5.0, "count": 5}
    assert bench.spread([7.0])["q1"] == bench.spread([7.0])["q3"] == 7.0


def test_each_step_counts_as_its_slowest_rank():
    ranks = [rank_record([0.10, 0.30, 0.20]), rank_record([0.20, 0.10, 0.20])]
    [row] = bench.rows_from_records(ranks, world=2)
    assert row["step_s"]["median"] == statistics.median([0.20, 0.30, 0.20])
    assert row["global_batch"] == 16 and row["samples_per_s"] == pytest.approx(16 / 0.20)
    assert row["allreduce_per_step"] == 1 and ROW_KEYS - {"speedup", "efficiency",
                                                          "efficiency_range"} == set(row)


def test_speedup_is_samples_per_second_ratio_and_efficiency_divides_by_ranks():
    one = bench.rows_from_records([rank_record([0.08, 0.10, 0.12])], world=1)  # 80 samples/s
    two = bench.rows_from_records([rank_record([0.09, 0.1, 0.11])] * 2, world=2)  # 160 samples/s
    four = bench.rows_from_records([rank_record([0.2, 0.2, 0.2])] * 4, world=4)  # 160 samples/s
    rows = bench.add_speedup(one + two + four)
    assert [r["speedup"] for r in rows] == pytest.approx([1.0, 2.0, 2.0])
    assert [r["efficiency"] for r in rows] == pytest.approx([1.0, 1.0, 0.5])
    # the range pairs world 1's quartiles with world n's opposite quartiles
    low, high = rows[1]["efficiency_range"]
    assert low == pytest.approx(0.09 / 0.105) and high == pytest.approx(0.11 / 0.095)
    assert low <= rows[1]["efficiency"] <= high


def test_rows_without_a_one_rank_baseline_get_no_speedup():
    [row] = bench.add_speedup(bench.rows_from_records([rank_record([0.1, 0.1])] * 2, world=2))
    assert row["speedup"] is None and row["efficiency"] is None and row["efficiency_range"] is None


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


def test_facts_reference_carries_facts_numbers_and_its_provenance():
    doc = bench.reference("facts_16core_cpu")
    assert doc["provenance"] == FACTS_PROVENANCE
    weak = {r["world_size"]: r["samples_per_s"] for r in bench.select(doc, "cnn/weak")}
    strong = {r["world_size"]: r["samples_per_s"] for r in bench.select(doc, "cnn/strong")}
    assert weak == {1: 1269, 2: 2301, 4: 3194, 8: 6141, 16: 9415}
    assert strong == {1: 923, 2: 1988, 4: 3595, 8: 5849}
    assert all(r["step_s"] is None for r in doc["rows"])  # only samples/s were measured
    assert bench.select(doc, "cnn/weak")[-1]["efficiency"] == pytest.approx(9415 / 1269 / 16)


def test_shipped_runner_reference_is_a_complete_measurement_of_its_machine():
    doc = bench.reference("runner_2core_cpu")
    assert MACHINE_KEYS <= set(doc["machine"]) and doc["machine"]["cpu_cores"] == 2
    assert "ddp_lessons.bench" in doc["provenance"]
    assert [run["world_size"] for run in doc["runs"]] == [1, 2]
    for row in doc["rows"]:
        assert set(row) == ROW_KEYS and set(row["step_s"]) == SPREAD_KEYS


def test_load_refuses_other_json(tmp_path):
    path = tmp_path / "other.json"
    path.write_text(json.dumps({"rows": []}))
    with pytest.raises(ValueError, match="not a ddp_lessons.bench/1 document"):
        bench.load(path)


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
                        (_rows_at(world), {"world_size": world, "backend": "gloo", "device": "cpu"}))
    monkeypatch.setattr(bench, "machine", lambda: {"gpus": [], "cpu_model": "x", "cpu_cores": cores,
                                                   "torch": "2.13"})
    parser = argparse.ArgumentParser()
    bench.add_arguments(parser)
    bench.run_bench(bench.settings_from_args(parser.parse_args(["--max-world", "8"])))
    assert planned == sizes
    settings = bench.Settings(bucket_sweep=(0.25,), accumulate=4, oversubscribe=True)
    names = {e["name"] for e in bench.plan(settings, max(sizes), cores)}
    assert {"cnn/weak/oversubscribed", "mlp/weak/bucket=0.25MB", "mlp/weak/accumulate=4"} <= names


def _rows_at(world, name="cnn/weak", seconds=0.1, threads=1):
    return bench.rows_from_records([rank_record([seconds] * 3, name=name)] * world, world)


def _oversubscription_result(device, right_threads, over_threads, right_s=0.1, over_s=0.2):
    rows = _rows_at(1) + _rows_at(2, seconds=right_s) + _rows_at(2, "cnn/weak/oversubscribed", over_s)
    for row in rows:
        row["threads_per_rank"] = over_threads if "over" in row["experiment"] else right_threads
    runs = [{"world_size": w, "device": device} for w in (1, 2)]
    return {"rows": bench.add_speedup(rows), "runs": runs}


@pytest.mark.parametrize("device, right, over, meaningful", [
    ("cpu", 1, 2, True),        # 2 ranks x 1 thread vs 2 x 2 on 2 cores: the claim is tested
    ("cpu", 1, 1, False),       # a 1-core CPU: "oversubscribed" is the same thread count
    ("cuda:0", 8, 16, False),   # 2 ranks sharing 1 GPU: compute is on the GPU
    ("cuda:1", 8, 16, False),   # 2 GPUs, nccl
])
def test_oversubscription_is_asserted_only_where_threads_matter(device, right, over, meaningful):
    found = bench.oversubscription(_oversubscription_result(device, right, over))
    assert found["meaningful"] is meaningful and found["world_size"] == 2
    assert found["slowdown"] == pytest.approx(2.0)
    assert found["device"] == device and found["why"]


def test_oversubscription_of_the_16_core_reference_comes_from_its_throughput():
    doc = bench.reference("facts_16core_cpu")
    pair = bench.select(doc, "cnn/weak") + bench.select(doc, "cnn/weak/oversubscribed")
    rows = {r["experiment"]: r for r in pair if r["world_size"] == 4}
    found = bench.oversubscription(doc)
    assert found["device"] == "cpu" and found["meaningful"] and found["world_size"] == 4
    expected = rows["cnn/weak"]["samples_per_s"] / rows["cnn/weak/oversubscribed"]["samples_per_s"]
    assert found["slowdown"] == pytest.approx(expected) and found["slowdown"] > 1


def test_oversubscription_not_measured_gives_none():
    assert bench.oversubscription({"rows": _rows_at(1), "runs": []}) is None


PROVENANCE_FIELDS = ("label", "provenance", "method", "source", "created", "machine")


DATA = Path(bench.__file__).parent / "data"
MEASURED_FILES = sorted(p.stem for p in DATA.glob("*.json")  # all but the quizzes and lesson 16's
                        if p.stem.split(".")[0] not in ("quizzes", "comm_references"))  # published figures
REFERENCE_FILES = [name for name in MEASURED_FILES  # the bench's own documents
                   if json.loads((DATA / f"{name}.json").read_text()).get("schema") == bench.SCHEMA]


def test_the_bench_has_reference_documents():
    assert "runner_2core_cpu" in REFERENCE_FILES and "facts_16core_cpu" in REFERENCE_FILES


@pytest.mark.parametrize("name", MEASURED_FILES)
def test_every_measured_data_file_describes_its_machine_and_method_itself(name):
    doc = json.loads((DATA / f"{name}.json").read_text())
    missing = [f for f in PROVENANCE_FIELDS if not doc.get(f)]
    assert not missing, f"{name}.json lacks provenance fields {missing}"
    assert doc["machine"]["cpu_cores"] and doc["machine"]["backend"] and doc["machine"]["device"]


@pytest.mark.parametrize("name", REFERENCE_FILES)
def test_every_bench_reference_loads_and_cites_nothing_the_repository_lacks(name):
    doc = bench.reference(name)
    described = doc["label"] + doc["provenance"] + doc["method"] + doc["source"]
    assert "FACTS.md" not in described, "point to nothing the repository lacks"
