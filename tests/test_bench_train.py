"""The bench's training loop as importable code: does one step of it run in this process, in a process
group of one (gloo), without torchrun, and count the all-reduces each sync mode makes?"""

from ddp_lessons.scripts import bench_train


def one_step_plan(sync, accumulate=1, name="mlp/weak"):
    """A plan entry (as `bench.plan` writes them) timing a single step of the mlp on 4 samples."""
    return {"name": name, "model": "mlp", "scaling": "weak", "per_rank_batch": 4, "accumulate": accumulate,
            "sync": list(sync), "bucket_cap_mb": 25.0, "threads": 1, "steps": 1, "warmup": 0}


def test_one_step_runs_in_process_and_counts_one_allreduce_per_synced_step(group_of_one, capsys):
    [result] = bench_train.run_plans([one_step_plan(("every", "never"))], group_of_one)
    every, never = result["modes"]["every"], result["modes"]["never"]
    assert every["allreduces"] == [1] and never["allreduces"] == [0]  # the mlp fits one 25 MB bucket
    assert len(every["step_s"]) == 1 and every["step_s"][0] > 0 and every["allreduce_s"][0] > 0
    assert result["threads"] == 1 and result["ddp_construct_s"] > 0
    assert capsys.readouterr().out.startswith("mlp/weak sync=every: ")  # the line bench prints per plan


def test_no_sync_accumulation_all_reduces_only_on_the_last_micro_batch(group_of_one):
    [result] = bench_train.run_plans([one_step_plan(("every", "last"), accumulate=3)], group_of_one)
    assert result["modes"]["every"]["allreduces"] == [3]
    assert result["modes"]["last"]["allreduces"] == [1]


def test_the_bench_imports_the_module_torchrun_runs_by_path():
    from ddp_lessons import bench
    assert bench.load_script() is bench_train
    assert bench.script_path().samefile(bench_train.__file__)
