"""`python -m ddp_lessons bench-live`: registered as a command, and its report's arithmetic."""
from ddp_lessons.tooling import bench_live as bench
from ddp_lessons.tooling import cli


def test_bench_live_is_a_course_command():
    assert cli.COMMANDS["bench-live"][0] == "ddp_lessons.tooling.bench_live"


def test_the_report_gives_medians_goals_and_the_launch_to_cell_ratio():
    figures = {"nproc": 2, "cores": 2, "start": 9.0, "load_before": 1.0, "load_after": 1.5,
               "trivial_cell": [0.02, 0.01, 0.5], "all_reduce_cell": [0.04, 0.05, 0.03],
               "fresh_launch": [8.0, 12.0, 10.0]}
    text = bench.report(figures)
    assert "0.020 s  (goal <= 0.5 s)" in text and "0.040 s  (goal <= 1 s)" in text
    assert "10.00 s" in text and "250 x" in text  # 10 s / 0.04 s
    assert "load average 1.00 before, 1.50 after" in text


def test_the_launched_script_does_the_same_work_as_the_live_cell():
    assert "dist.all_reduce(payload)" in bench.LAUNCH_SCRIPT and bench.ALL_REDUCE_CELL == "dist.all_reduce(payload)"
    assert f"torch.ones({bench.MB // 4}" in bench.LAUNCH_SCRIPT and f"torch.ones({bench.MB // 4}" in bench.SETUP_CELL
