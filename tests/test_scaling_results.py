"""The bench's results document (`scaling_results`): spreads, slowest-rank steps, speedup and efficiency,
the shipped reference data, and where oversubscription is a meaningful claim."""
import json
import statistics
from pathlib import Path

import pytest

import ddp_lessons

from ddp_lessons.base import scaling_results
from helpers import MACHINE_KEYS, ROW_KEYS, SPREAD_KEYS, rank_record, rows_at

FACTS_PROVENANCE = ("measured 2026-11 by the course authors on a 16-core x86-64 host (torch 2.11, gloo on "
                    "CPU, torchrun): small CNN ~1.1M params, 1 thread/rank, samples/s only; weak scaling "
                    "batch 64 per rank, strong scaling global batch 256; not measured with this runner")
def test_spread_reports_median_quartiles_and_extremes():
    stats = scaling_results.spread([5.0, 1.0, 3.0, 2.0, 4.0])
    assert stats == {"median": 3.0, "q1": 2.0, "q3": 4.0, "min": 1.0, "max": 5.0, "count": 5}
    assert scaling_results.spread([7.0])["q1"] == scaling_results.spread([7.0])["q3"] == 7.0


def test_each_step_counts_as_its_slowest_rank():
    ranks = [rank_record([0.10, 0.30, 0.20]), rank_record([0.20, 0.10, 0.20])]
    [row] = scaling_results.rows_from_records(ranks, world=2)
    assert row["step_s"]["median"] == statistics.median([0.20, 0.30, 0.20])
    assert row["global_batch"] == 16 and row["samples_per_s"] == pytest.approx(16 / 0.20)
    assert row["allreduce_per_step"] == 1 and ROW_KEYS - {"speedup", "efficiency",
                                                          "efficiency_range"} == set(row)


def test_speedup_is_samples_per_second_ratio_and_efficiency_divides_by_ranks():
    one = scaling_results.rows_from_records([rank_record([0.08, 0.10, 0.12])], world=1)  # 80 samples/s
    two = scaling_results.rows_from_records([rank_record([0.09, 0.1, 0.11])] * 2, world=2)  # 160 samples/s
    four = scaling_results.rows_from_records([rank_record([0.2, 0.2, 0.2])] * 4, world=4)  # 160 samples/s
    rows = scaling_results.add_speedup(one + two + four)
    assert [r["speedup"] for r in rows] == pytest.approx([1.0, 2.0, 2.0])
    assert [r["efficiency"] for r in rows] == pytest.approx([1.0, 1.0, 0.5])
    # the range pairs world 1's quartiles with world n's opposite quartiles
    low, high = rows[1]["efficiency_range"]
    assert low == pytest.approx(0.09 / 0.105) and high == pytest.approx(0.11 / 0.095)
    assert low <= rows[1]["efficiency"] <= high


def test_rows_without_a_one_rank_baseline_get_no_speedup():
    [row] = scaling_results.add_speedup(scaling_results.rows_from_records([rank_record([0.1, 0.1])] * 2, world=2))
    assert row["speedup"] is None and row["efficiency"] is None and row["efficiency_range"] is None


def test_the_table_shows_sync_modes_and_headers_in_the_notebooks_language_aligned():
    one = scaling_results.rows_from_records([rank_record([0.1, 0.1], sync=("every", "last"))], world=1)
    two = scaling_results.rows_from_records([rank_record([0.05, 0.05], sync=("every", "never"))] * 2, world=2)
    result = {"rows": scaling_results.add_speedup(one + two)}  # world 2: twice the samples in half the time
    for lang, syncs, speedup, speedups in (("en", ["every", "last", "every", "never"], "speedup",
                                            ["1.00", "1.00", "4.00", "-"]),
                                           ("es", ["siempre", "al final", "siempre", "nunca"], "aceleración",
                                            ["1,00", "1,00", "4,00", "-"])):
        header, *lines = scaling_results.format_rows(result, lang=lang).splitlines()
        assert speedup in header and ("speedup" in header) == (lang == "en")
        world_end, speedup_end = header.index("world") + len("world"), header.index(speedup) + len(speedup)
        for line, sync, world, value in zip(lines, syncs, "1122", speedups, strict=True):
            assert line.split(maxsplit=1)[1].startswith(sync + " "), line
            assert line[:world_end].split()[-1] == world and line[world_end] == " ", (header, line)
            assert line[:speedup_end].split()[-1] == value and line[speedup_end] == " ", (header, line)


def test_facts_reference_carries_facts_numbers_and_its_provenance():
    doc = scaling_results.reference("facts_16core_cpu")
    assert doc["provenance"] == FACTS_PROVENANCE
    weak = {r["world_size"]: r["samples_per_s"] for r in scaling_results.select(doc, "cnn/weak")}
    strong = {r["world_size"]: r["samples_per_s"] for r in scaling_results.select(doc, "cnn/strong")}
    assert weak == {1: 1269, 2: 2301, 4: 3194, 8: 6141, 16: 9415}
    assert strong == {1: 923, 2: 1988, 4: 3595, 8: 5849}
    assert all(r["step_s"] is None for r in doc["rows"])  # only samples/s were measured
    assert scaling_results.select(doc, "cnn/weak")[-1]["efficiency"] == pytest.approx(9415 / 1269 / 16)


def test_shipped_runner_reference_is_a_complete_measurement_of_its_machine():
    doc = scaling_results.reference("runner_2core_cpu")
    assert MACHINE_KEYS <= set(doc["machine"]) and doc["machine"]["cpu_cores"] == 2
    assert "ddp_lessons.bench" in doc["provenance"]
    assert [run["world_size"] for run in doc["runs"]] == [1, 2]
    for row in doc["rows"]:
        assert set(row) == ROW_KEYS and set(row["step_s"]) == SPREAD_KEYS


def test_load_refuses_other_json(tmp_path):
    path = tmp_path / "other.json"
    path.write_text(json.dumps({"rows": []}))
    with pytest.raises(ValueError, match="not a ddp_lessons.bench/1 document"):
        scaling_results.load(path)


def oversubscription_result(device, right_threads, over_threads, right_s=0.1, over_s=0.2):
    rows = rows_at(1) + rows_at(2, seconds=right_s) + rows_at(2, "cnn/weak/oversubscribed", over_s)
    for row in rows:
        row["threads_per_rank"] = over_threads if "over" in row["experiment"] else right_threads
    runs = [{"world_size": w, "device": device} for w in (1, 2)]
    return {"rows": scaling_results.add_speedup(rows), "runs": runs}


@pytest.mark.parametrize("device, right, over, meaningful", [
    ("cpu", 1, 2, True),        # 2 ranks x 1 thread vs 2 x 2 on 2 cores: the claim is tested
    ("cpu", 1, 1, False),       # a 1-core CPU: "oversubscribed" is the same thread count
    ("cuda:0", 8, 16, False),   # 2 ranks sharing 1 GPU: compute is on the GPU
    ("cuda:1", 8, 16, False),   # 2 GPUs, nccl
])
def test_oversubscription_is_asserted_only_where_threads_matter(device, right, over, meaningful):
    found = scaling_results.oversubscription(oversubscription_result(device, right, over))
    assert found["meaningful"] is meaningful and found["world_size"] == 2
    assert found["slowdown"] == pytest.approx(2.0)
    assert found["device"] == device and found["why"]


def test_oversubscription_of_the_16_core_reference_comes_from_its_throughput():
    doc = scaling_results.reference("facts_16core_cpu")
    pair = scaling_results.select(doc, "cnn/weak") + scaling_results.select(doc, "cnn/weak/oversubscribed")
    rows = {r["experiment"]: r for r in pair if r["world_size"] == 4}
    found = scaling_results.oversubscription(doc)
    assert found["device"] == "cpu" and found["meaningful"] and found["world_size"] == 4
    expected = rows["cnn/weak"]["samples_per_s"] / rows["cnn/weak/oversubscribed"]["samples_per_s"]
    assert found["slowdown"] == pytest.approx(expected) and found["slowdown"] > 1


def test_oversubscription_not_measured_gives_none():
    assert scaling_results.oversubscription({"rows": rows_at(1), "runs": []}) is None


PROVENANCE_FIELDS = ("label", "provenance", "method", "source", "created", "machine")


DATA = Path(ddp_lessons.__file__).parent / "data"
MEASURED_FILES = sorted(p.stem for p in DATA.glob("*.json")  # all but the quizzes, lesson 16's published
                        if p.stem.split(".")[0] not in ("quizzes", "comm_references",  # figures and the
                                                        "error_examples"))  # messages (each cites its own source)
REFERENCE_FILES = [name for name in MEASURED_FILES  # the bench's own documents
                   if json.loads((DATA / f"{name}.json").read_text()).get("schema") == scaling_results.SCHEMA]


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
    doc = scaling_results.reference(name)
    described = doc["label"] + doc["provenance"] + doc["method"] + doc["source"]
    assert "FACTS.md" not in described, "point to nothing the repository lacks"
