"""bench-comm's results: sweep points from rank records, predicted vs measured rows, the table, the
shipped references (synthetic records, no launch)."""
import json
from pathlib import Path

import pytest

from ddp_lessons import comm_model, comm_results


def rank_sweep(scale):
    return [{"world": 2, "bytes": 1024, "seconds": [1.0 * scale, 3.0, 2.0]},
            {"world": 2, "bytes": 4096, "seconds": [4.0, 4.0 * scale, 5.0]}]


def test_a_sweep_point_is_the_median_over_repeats_of_the_slowest_rank():
    points = comm_results.sweep_points([rank_sweep(1.0), rank_sweep(2.5)])
    assert points == [(1024, 2, 2.5), (4096, 2, 5.0)]  # repeats (2.5, 3, 2) and (4, 10, 5)


def profile(backward_ms, step_s):
    # mlp-like: two small gradients ready early, one large at the end of backward
    return {"model": "mlp", "batch": 64, "param_bytes": [40, 12800, 4_000_000],
            "ready_ms": [1.0, 1.5, backward_ms], "backward_ms": backward_ms, "step_s": step_s}


def run(built, every, never, in_flight):
    return {"model": "mlp", "bucket_cap_mb": None, "batch": 64, "first_cap_bytes": 2 ** 20,
            "cap_bytes": 25 * 2 ** 20, "buckets_built": built,
            "step_s": {"every": every, "never": never}, "allreduce_s": in_flight}


FIT = comm_model.Fit(alpha=1e-4, beta=1e-9)  # 0.1 ms per call, 1 GB/s


def test_a_row_predicts_from_the_slowest_rank_and_compares_with_the_measurement():
    profiles = [profile(5.0, [0.010, 0.011, 0.012]), profile(6.0, [0.012, 0.010, 0.013])]
    runs = [run([4_012_840], [0.020] * 3, [0.012] * 3, [0.005] * 3),
            run([4_012_840], [0.021] * 3, [0.011] * 3, [0.004] * 3)]
    row = comm_results.model_row(profiles, runs, FIT, world=2)
    assert row["buckets_predicted"] == [4_012_840] and row["layout_matches"]
    allreduce = 1e-4 + 1e-9 * 4_012_840
    assert row["predicted"]["comm_s"] == pytest.approx(allreduce)
    assert row["predicted"]["exposed_s"] == pytest.approx(allreduce)  # ready at the end of backward
    assert row["predicted"]["compute_s"] == pytest.approx(0.012)  # steps' slowest rank: .012, .011, .013
    assert row["measured"]["exposed_s"] == pytest.approx(0.009)
    assert row["measured"]["in_flight_s"] == 0.004  # the last rank to arrive: the all-reduce's own time
    assert row["ratio"]["step"] == pytest.approx((0.012 + allreduce) / 0.021)
    assert "mlp, bucket_cap_mb 25 MB (default), 1 bucket(s)" in comm_results.summary_line(row)
    assert comm_results.format_rows([row]).splitlines()[1].startswith("mlp     25 MB (default)       1")


def test_a_layout_that_differs_from_ddps_is_flagged_and_gpus_have_no_in_flight_time():
    runs = [run([12_840, 4_000_000], [0.02], [0.01], [None])]
    row = comm_results.model_row([profile(5.0, [0.01])], runs, FIT, world=2)
    assert not row["layout_matches"] and row["measured"]["in_flight_s"] is None and row["ratio"]["comm"] is None


def test_best_caps_compare_predicted_and_measured_steps():
    rows = [{"bucket_cap_mb": 1.0, "predicted": {"step_s": 0.10}, "measured": {"step_s": 0.13}},
            {"bucket_cap_mb": None, "predicted": {"step_s": 0.11}, "measured": {"step_s": 0.12}}]
    assert comm_results.best_caps(rows) == {"predicted": 1.0, "measured": None}


def test_references_name_their_sources():
    refs = comm_results.references()
    assert all(r["url"].startswith("https://github.com/") for r in refs["nccl_tests"] + refs["gloo"])
    resnet50 = refs["ddp_benchmark"]["p50_s_per_iter"]["resnet50"]
    assert 1 - resnet50["ddp_1gpu_ex_s"] / resnet50["no_ddp_ex_s"] == pytest.approx(0.030, abs=0.001)
    losses = [1 - m["ddp_1gpu_ex_s"] / m["no_ddp_ex_s"] for m in refs["ddp_benchmark"]["p50_s_per_iter"].values()]
    assert (round(min(losses), 3), round(max(losses), 3)) == (0.014, 0.051)  # the README's 1.4-5.1 %


def test_references_read_in_the_notebook_s_language_with_the_same_figures():
    english, spanish = comm_results.references("en"), comm_results.references("es")
    entries = [(e, s) for kind in ("nccl_tests", "gloo") for e, s in zip(english[kind], spanish[kind])]
    entries.append((english["ddp_benchmark"], spanish["ddp_benchmark"]))
    raw = json.loads((Path(comm_results.__file__).parent / "data" / "comm_references.json").read_text("utf-8"))
    written = [entry["es"] for kind in ("nccl_tests", "gloo") for entry in raw[kind]] + [raw["ddp_benchmark"]["es"]]
    for (en, es), spanish_words in zip(entries, written):
        assert set(en) == set(es) and "es" not in en  # the same fields, no language block left
        assert set(spanish_words) == set(en) & set(comm_results.REFERENCE_WORDS)  # every shown word has its Spanish
        assert {k: v for k, v in en.items() if k not in comm_results.REFERENCE_WORDS} == \
            {k: v for k, v in es.items() if k not in comm_results.REFERENCE_WORDS}  # figures and links as published
    assert spanish["gloo"][0]["setup"].startswith("benchmark de gloo, 2 servidores")
    assert english["gloo"][0]["setup"].startswith("gloo benchmark, 2 servers")


def test_documents_round_trip_and_others_are_refused(tmp_path):
    path = comm_results.save({"schema": comm_results.SCHEMA, "rows": []}, tmp_path / "b.json")
    assert comm_results.load(path)["rows"] == []
    (tmp_path / "other.json").write_text('{"schema": "ddp_lessons.bench/1"}')
    with pytest.raises(ValueError, match="not a"):
        comm_results.load(tmp_path / "other.json")
