"""``grade --slurm``: the job array's pieces (nothing run), then a small class graded on the real one-node
SLURM cluster the tests start (tests/slurm_cluster.py): the same gradebook as local ``--jobs``, a task
that fails twice reported by name, ``--resume``, and Ctrl-C cancelling the array."""
import csv
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from ddp_lessons.grading import slurm
from ddp_lessons.grading.limits import GiB, Limits
from ddp_lessons.grading.results import Notebook
from ddp_lessons.tooling import cli
from grading_course import CORRECT, answer, hidden_checks, make_course, submit
from slurm_cluster import SlurmCluster, require_slurm

# --- the pieces ----------------------------------------------------------------------------------------


def test_tasks_mix_the_exercises_and_hold_at_most_per_task_notebooks():
    notebooks = [Notebook(f"s{i:02}", exercise) for i in range(10) for exercise in ("01_a", "02_b", "03_c")]
    tasks = slurm.deal(notebooks, 8)
    assert len(tasks) == 4 and max(map(len, tasks)) == 8
    assert sorted(n for task in tasks for n in task) == sorted(notebooks)
    assert all(len({n.exercise for n in task}) == 3 for task in tasks)  # no task of only the costly exercise


def test_per_task_grows_only_when_the_array_would_pass_its_cap():
    assert slurm.per_task(slurm.Options(), 100) == slurm.PER_TASK
    assert slurm.per_task(slurm.Options(), 300 * 16 * 3) == 15
    assert slurm.per_task(slurm.Options(per_task=2), 300 * 16 * 3) == 2


def test_by_default_the_array_is_one_wave_of_what_the_partition_runs_at_once():
    # a one-node 2-CPU cluster runs one task at a time: 40 notebooks in one task pay one start, not five
    assert slurm.per_task(slurm.Options(), 40, slots=1) == 40
    assert slurm.per_task(slurm.Options(), 4800, slots=64) == 75  # 4 nodes x 32 cores: 64 tasks of 75
    assert slurm.per_task(slurm.Options(), 100, slots=64) == slurm.PER_TASK  # never below 8 a task
    assert slurm.per_task(slurm.Options(per_task=3), 40, slots=1) == 3
    assert slurm.per_task(slurm.Options(tasks_in_flight=16), 4800, slots=64) == 300  # one wave of what it may run
    # ... but the default time limit (each notebook at its timeout, + 5 min) must fit the partition's
    assert slurm.per_task(slurm.Options(), 40, slots=1, max_minutes=4 * 60, notebook_timeout=900) == 15
    assert slurm.task_minutes(15, 1, 900) <= 4 * 60 < slurm.task_minutes(16, 1, 900)
    assert slurm.per_task(slurm.Options(jobs=2), 40, slots=1, max_minutes=4 * 60, notebook_timeout=900) == 30
    assert slurm.per_task(slurm.Options(), 40, slots=1, max_minutes=60, notebook_timeout=900) == 3  # not 8: fits
    assert slurm.per_task(slurm.Options(time_per_task="8:00:00"), 40, slots=1, max_minutes=60) == 40  # theirs


@pytest.mark.parametrize("text, minutes", [("infinite", None), ("UNLIMITED", None), ("30:00", 30),
                                           ("4:00:00", 240), ("2-00:00:00", 2880), ("1-12:30:01", 2191),
                                           ("n/a", None)])
def test_sinfo_time_limits_read_as_minutes(text, minutes):
    assert slurm.parse_minutes(text) == minutes


def test_capacity_counts_the_tasks_each_node_of_the_partition_runs():
    sinfo = ("debug*|n1|2|infinite\n"
             "gpu|g1|64|1-00:00:00\ngpu|g2|64|1-00:00:00\nteach|n1|2|4:00:00\nteach|n2|33|4:00:00\n")
    assert slurm.capacity(sinfo, None, 2) == (1, None)  # the default partition (*)
    assert slurm.capacity(sinfo, "gpu", 4) == (32, 24 * 60)
    assert slurm.capacity(sinfo, "teach", 2) == (1 + 16, 240)
    assert slurm.capacity(sinfo, "nope", 2) == (None, None)
    assert slurm.capacity("", None, 2) == (None, None)


def test_sbatch_asks_for_two_cpus_per_notebook_the_memory_limit_and_each_notebooks_timeout(tmp_path):
    options = slurm.Options(partition="teach", account="ddp101", tasks_in_flight=20, jobs=2,
                            sbatch_args=("--qos=short",))
    command = slurm.sbatch_command(tmp_path, 0, 50, 8, options, Limits(memory=4 * GiB), 900)
    assert command[:2] == ["sbatch", "--parsable"] and "--array=0-49%20" in command
    assert {"--cpus-per-task=4", "--mem=9216M", "--time=65", "--partition=teach", "--account=ddp101",
            "--qos=short", f"--output={tmp_path}/slurm/round-1/task-%a.out"} <= set(command)
    assert command[-3:] == [str(tmp_path / "slurm" / "grade.sbatch"), str(tmp_path), "0"]
    assert "--mem" not in " ".join(slurm.sbatch_command(tmp_path, 1, 2, 1, slurm.Options(time_per_task="0:30:00"),
                                                        Limits(memory=None), 900))
    assert slurm.task_minutes(8, 1, 900) == 125


@pytest.mark.parametrize("log, why", [
    ("slurmstepd: error: *** JOB 12 ON n1 CANCELLED AT 2026-12-03T10:00:00 DUE TO TIME LIMIT ***",
     "ran past its time limit"),
    ("slurmstepd: error: *** JOB 12 ON n1 CANCELLED AT 2026-12-03T10:00:00 ***", "was cancelled"),
    ("slurmstepd: error: Detected 1 oom-kill event(s) in StepId=12.batch.", "ran out of the memory it asked for"),
    ("alice/05_sampler.ipynb: 3/4 (12.0 s)", None)])
def test_why_slurm_ended_a_task_is_read_from_its_log(tmp_path, log, why):
    (tmp_path / "task-0.out").write_text(f"task 0 of round 1 on n1\n{log}\n")
    assert slurm.why_ended(tmp_path / "task-0.out") == why


def test_a_task_whose_results_and_marker_are_on_disk_is_done_while_slurm_still_lists_it(tmp_path, monkeypatch):
    """The driver does not wait for SLURM to purge a finished task (COMPLETING, or squeue's lag); a task
    still listed without its marker is not done, even with every result written."""
    import io

    from ddp_lessons.grading import jobs, results, scoring

    tasks = [[Notebook("alice", "01_a")], [Notebook("bob", "01_a")]]
    listed = {0: "COMPLETING", 1: "RUNNING"}
    monkeypatch.setattr(slurm, "submit", lambda command, env: "7")
    monkeypatch.setattr(slurm, "queue_states", lambda job_id, env: dict(listed))
    looks = []

    def sleep(seconds):  # between looks at the queue: the tasks write their results, then their markers
        looks.append(seconds)
        for index, task in enumerate(tasks):
            results.write_result(tmp_path, task[0], scoring.unscored(task[0].student, "01_a", [], scoring.GRADED,
                                                                     ""), None)
            if index == 0 or len(looks) > 2:
                slurm.marker(tmp_path, 0, index).write_text("{}")
        if len(looks) > 5:
            raise AssertionError("still waiting")

    monkeypatch.setattr(slurm.time, "sleep", sleep)
    stream = io.StringIO()
    failed = slurm.run_round(tmp_path, 0, tasks, jobs.Settings(tmp_path, tmp_path), slurm.Options(), None,
                             slurm.Progress(stream), 2, 0)
    assert failed == {} and len(looks) == 3, (looks, stream.getvalue())
    lines = stream.getvalue().splitlines()
    assert lines[1].startswith("SLURM job 7: 0 pending, 1 running, 1 done, 0 failed of 2 task(s); 2/2"), lines
    assert lines[-1].startswith("SLURM job 7: 0 pending, 0 running, 2 done, 0 failed of 2 task(s); 2/2"), lines


def test_a_resumed_class_gets_round_folders_of_its_own_and_an_old_log_is_not_its_verdict(tmp_path, monkeypatch):
    """--resume into a run folder whose first try left round-1 and round-2 (a log that ran past its time, a
    done-marker): the new array writes round-3, and while its task is not yet listed by squeue (sbatch
    returned, the queue lags) the old log does not fail it."""
    from ddp_lessons.grading import jobs, results, scoring

    notebook = Notebook("alice", "01_a")
    settings = jobs.Settings(tmp_path / "submissions", tmp_path)
    settings.submission(notebook).parent.mkdir(parents=True)
    settings.submission(notebook).write_text("{}")
    run = tmp_path / "run"
    for number in (0, 1):
        slurm.round_folder(run, number).mkdir(parents=True)
        (slurm.round_folder(run, number) / "task-0.out").write_text(
            "task 0 of round 1 on n1\nslurmstepd: error: *** JOB 3 ON n1 CANCELLED AT 2026-12-03T10:00:00 DUE TO "
            "TIME LIMIT ***\n")
        slurm.marker(run, number, 0).write_text("{}")
    assert slurm.next_round(run) == 2 and slurm.next_round(tmp_path / "fresh") == 0
    submitted, looks = [], []
    monkeypatch.setattr(slurm, "submit", lambda command, env: submitted.append(command) or "8")
    monkeypatch.setattr(slurm, "queue_states", lambda job_id, env: {})  # not listed yet, then gone

    def sleep(seconds):  # the task grades its notebook after the driver's first look
        looks.append(seconds)
        results.write_result(run, notebook, scoring.unscored("alice", "01_a", [], scoring.GRADED, ""), None)
        slurm.marker(run, 2, 0).write_text("{}")

    monkeypatch.setattr(slurm.time, "sleep", sleep)
    ungraded = slurm.grade(settings, [notebook], run, slurm.Options(per_task=1))
    assert ungraded == {} and len(submitted) == 1 and len(looks) == 1, (ungraded, submitted, looks)
    assert f"--output={run}/slurm/round-3/task-%a.out" in submitted[0] and submitted[0][-1] == "2"
    assert slurm.read_round(run, 2) == (1, [[notebook]])


def test_the_job_script_runs_the_task_entry_point_with_this_python():
    script = slurm.job_script("/opt/course/.venv/bin/python")
    assert script.startswith("#!/bin/bash\n")
    assert 'exec "/opt/course/.venv/bin/python" -m ddp_lessons.grading.task "$1" "$2" "$SLURM_ARRAY_TASK_ID"' in script


# --- a real cluster ----------------------------------------------------------------------------------------

HANG = "import time\n    time.sleep(3600)"


def grade(cluster, submissions, solution, out, *options, wait=True):
    """``python -m ddp_lessons grade`` against `cluster` (a subprocess: Ctrl-C is a real SIGINT)."""
    command = [sys.executable, "-m", "ddp_lessons", "grade", str(submissions), "--out", str(out),
               "--solutions", str(solution.parent), "--cell-timeout", "600", "--lang", "en", *options]  # its lines
    log = open(out.with_suffix(".log"), "w")
    process = subprocess.Popen(command, env=cluster.env, stdout=log, stderr=subprocess.STDOUT, text=True)
    log.close()
    if wait:
        process.wait(timeout=600)
    return process


def running_task(cluster, timeout=120):
    """The id (``JOB_INDEX``) of the first array task SLURM runs, once it runs."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        lines = cluster.run("squeue", "-h", "-r", "-o", "%i %T").stdout.split("\n")
        running = [line.split()[0] for line in lines if line.endswith(" RUNNING")]
        if running:
            return running[0]
        time.sleep(0.5)
    raise TimeoutError(f"no task ran within {timeout} s\n{cluster.logs()}")


def wait_for(condition, timeout=120, what="condition"):
    deadline = time.monotonic() + timeout
    while not condition():
        if time.monotonic() > deadline:
            raise TimeoutError(what)
        time.sleep(0.5)


@pytest.mark.slow
def test_a_class_graded_on_slurm_gets_the_points_of_local_grading_and_no_notebook_is_lost(tmp_path):
    require_slurm()
    solution, exercise = make_course(tmp_path)
    hidden = hidden_checks(tmp_path)
    submissions = tmp_path / "submissions"
    submit(submissions, "alice", answer(exercise, *CORRECT))
    submit(submissions, "bob", answer(exercise, "return x + 2", CORRECT[1]))  # fails the hidden check
    (submissions / "erin").mkdir()  # not submitted: scored by the driver, no task
    local = tmp_path / "local" / "grades.csv"
    local.parent.mkdir()
    assert cli.main(["grade", str(submissions), "--out", str(local), "--solutions", str(solution.parent),
                     "--cell-timeout", "600", "--hidden", str(hidden), "--jobs", "1", "--lang", "en"]) == 0
    with SlurmCluster(tmp_path / "slurm") as cluster:
        # what sizes the array by default: the real sinfo's answer for this one-node cluster
        assert slurm.query_capacity(slurm.Options(), cluster.env) == (cluster.cpus // 2 or None, None)
        debug = slurm.query_capacity(slurm.Options(partition="debug", jobs=2), cluster.env)
        assert debug == (cluster.cpus // 4 or None, None)
        on_slurm = tmp_path / "slurm-run" / "grades.csv"
        on_slurm.parent.mkdir()
        done = grade(cluster, submissions, solution, on_slurm, "--hidden", str(hidden), "--slurm", "--per-task", "1")
        printed = on_slurm.with_suffix(".log").read_text()
        assert done.returncode == 0, printed + cluster.logs()
        assert "submitted SLURM job" in printed and "2 task(s) of up to 1 notebook(s)" in printed, printed
        assert "0 pending, 0 running, 2 done, 0 failed of 2 task(s); 3/3 notebooks graded" in printed, printed
        for name in ("grades.csv", "grades-wide.csv", "grades-lms.csv"):  # the same gradebook, hidden check included
            assert (on_slurm.parent / name).read_text() == (local.parent / name).read_text(), name
        with open(on_slurm, newline="") as f:
            assert [(r["student"], r["points"]) for r in csv.DictReader(f)] == [("alice", "7"), ("bob", "2"),
                                                                                ("erin", "0")]

        # carol's notebook hangs: each try of her task is cancelled while it runs, so it fails twice; --resume
        # sends only her notebook, and she is named, not scored
        submit(submissions, "carol", answer(exercise, HANG, CORRECT[1]))
        driver = grade(cluster, submissions, solution, on_slurm, "--hidden", str(hidden), "--slurm", "--resume",
                       wait=False)
        first = running_task(cluster)
        assert cluster.run("scancel", first).returncode == 0
        # the first run used round-1; this one's rounds are 2 and 3, logged in folders of their own
        wait_for(lambda: "round 3" in on_slurm.with_suffix(".log").read_text(), what="a second round")
        second = running_task(cluster)
        assert second.split("_")[0] != first.split("_")[0]  # a new array: the failed task, once more
        assert cluster.run("scancel", second).returncode == 0
        assert driver.wait(timeout=300) == 2
        printed = on_slurm.with_suffix(".log").read_text()
        assert "--resume: 3 of 4 notebooks already graded" in printed and "1 task(s) of up to 1" in printed, printed
        assert "task 0 of round 2 was cancelled: 1 notebook(s) not graded" in printed, printed
        assert "/slurm/round-3" in printed and (on_slurm.parent / "grades-run/slurm/round-1/task-0.done").exists()
        assert "NOT GRADED (1 notebooks, no points given; grade them with --resume):" in printed, printed
        assert "carol/99_synthetic: not graded: its SLURM task failed twice (last: was cancelled)" in printed, printed
        with open(on_slurm, newline="") as f:
            rows = {r["student"]: r for r in csv.DictReader(f)}
        assert (rows["carol"]["points"], rows["alice"]["points"]) == ("", "7")
        assert "carol,,7,7,7" not in (on_slurm.parent / "grades-wide.csv").read_text()

        # Ctrl-C while carol's task runs: the array is cancelled, and the command says so
        driver = grade(cluster, submissions, solution, on_slurm, "--hidden", str(hidden), "--slurm", "--resume",
                       wait=False)
        job = running_task(cluster).split("_")[0]
        driver.send_signal(signal.SIGINT)
        assert driver.wait(timeout=120) == 130
        printed = on_slurm.with_suffix(".log").read_text()
        assert f"interrupted: cancelled SLURM job {job} (scancel {job}); 3 of 4 notebooks are graded" in printed, printed
        wait_for(lambda: not cluster.run("squeue", "-h", "-j", job).stdout.strip(), 60, "the array left the queue")
