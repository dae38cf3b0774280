"""How many notebooks the grader runs at once, and how it shares the cores between them."""
import subprocess
import sys

from ddp_lessons import backend
from ddp_lessons.grading import jobs


def test_default_jobs_is_half_the_cores_and_at_least_one():
    assert [jobs.default_jobs(cores) for cores in (1, 2, 3, 16)] == [1, 1, 1, 8]


def test_each_job_gets_its_share_of_the_cores_for_ranks_and_torch():
    env = jobs.job_environment(jobs=4, cores=16)
    assert env[backend.CORES_ENV] == env["OMP_NUM_THREADS"] == "4"
    assert jobs.job_environment(jobs=8, cores=2)[backend.CORES_ENV] == "1"


def test_nbval_command_loads_the_grader_plugin_with_the_cell_timeout(tmp_path):
    command = jobs.nbval_command(tmp_path / "nb.ipynb", tmp_path / "cells.jsonl", 30)
    assert command[command.index("ddp_lessons.grading.plugin") - 1] == "-p"
    assert "--nbval-cell-timeout=30" in command and command[-1] == str(tmp_path / "nb.ipynb")


def test_the_graders_pytest_starts_without_the_format_checker_grammar_nbformat_never_uses():
    probe = "import nbformat; print('pytest', pytest.__version__, sys.modules.get('rfc3987_syntax') is not None)"
    command = [sys.executable, "-c", jobs.PYTEST_MAIN.replace("sys.exit(pytest.main())", probe)]
    assert subprocess.run(command, capture_output=True, text=True, check=True).stdout.split()[::2] == [
        "pytest", "False"]
    version = subprocess.run([sys.executable, "-c", jobs.PYTEST_MAIN, "--version"], capture_output=True, text=True)
    assert version.returncode == 0 and "pytest" in version.stdout + version.stderr
