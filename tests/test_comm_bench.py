"""`python -m ddp_lessons bench-comm`: its plan, and (slow) that it runs a tiny configuration and prints
its table and one summary line per row."""
import json

import pytest

from ddp_lessons import comm_results
from ddp_lessons.tooling import cli, comm_bench


def test_the_plan_sweeps_2_to_world_ranks_and_runs_every_model_at_every_cap():
    settings = comm_bench.Settings(models=("cnn", "mlp"), bucket_caps=(1.0, None), sizes=(4096, 8192))
    plan = comm_bench.plan(settings, world=3)
    assert plan["sweep"]["worlds"] == [2, 3] and plan["sweep"]["sizes"] == [4096, 8192]
    assert [(m["model"], m["bucket_cap_mb"]) for m in plan["models"]] == [
        ("cnn", 1.0), ("cnn", None), ("mlp", 1.0), ("mlp", None)]


def test_default_bucket_caps_are_parsed_as_ddps_default():
    parser = __import__("argparse").ArgumentParser()
    comm_bench.add_arguments(parser)
    settings = comm_bench.settings_from_args(parser.parse_args(["--bucket-caps", "0.5", "default"]))
    assert settings.bucket_caps == (0.5, None)


@pytest.mark.slow
def test_bench_comm_runs_a_tiny_configuration_and_prints_its_table(tmp_path, capsys):
    out = tmp_path / "bench_comm.json"
    assert cli.main(["bench-comm", "--world", "2", "--sizes", "4096", "1048576", "--repeats", "2",
                     "--models", "mlp", "--bucket-caps", "default", "--steps", "2", "--step-warmup", "1",
                     "--quiet", "--output", str(out)]) == 0
    printed = capsys.readouterr().out
    assert "all-reduce sweep: time = " in printed and "knee at" in printed
    assert "mlp, bucket_cap_mb 25 MB (default), 1 bucket(s):" in printed and "step " in printed
    doc = comm_results.load(out)
    assert [p[:2] for p in doc["sweep"]["points"]] == [[4096, 2], [1048576, 2]]
    (row,) = doc["rows"]
    assert row["layout_matches"] and row["buckets_built"] == [4357160]
    assert doc["run"]["load_average"][0] is not None and json.dumps(doc)
