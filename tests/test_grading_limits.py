"""The grader's limits: memory, processes, disk and output per notebook, how each is enforced here,
and real grading runs of submissions that go over them next to an honest one.

Every real run is bounded so it cannot hurt a shared machine: limits of a few hundred MiB, hogs that
stop by themselves at 1 GiB, spawners of sleeping processes that end within a minute."""
import csv
import os
import subprocess
import sys
import time
from pathlib import Path

import pytest

from ddp_lessons.tooling import cli
from ddp_lessons.grading import cgroups, confine, feedback, jobs, limits, plugin, sandbox, scoring, watch
from ddp_lessons.grading.cells import CellRecord
from ddp_lessons.grading.limits import GiB, MiB, Limits, Plan
from grading_course import CORRECT, answer, make_course, submit

# --- values and words -------------------------------------------------------------------------------


@pytest.mark.parametrize("text, value", [("4G", 4 * GiB), ("4GiB", 4 * GiB), ("300M", 300 * MiB),
                                         ("512k", 512 << 10), ("1.5g", 3 * GiB // 2), ("1048576", MiB),
                                         ("none", None)])
def test_sizes_are_read_in_powers_of_1024(text, value):
    assert limits.parse_size(text) == value


@pytest.mark.parametrize("text", ["4 apples", "-1G", "0", ""])
def test_a_size_that_is_not_one_is_refused(text):
    with pytest.raises(ValueError):
        limits.parse_size(text)


def test_a_bad_limit_on_the_command_line_is_an_error_not_a_traceback(capsys, tmp_path):
    with pytest.raises(SystemExit):
        cli.main(["grade", str(tmp_path), "--memory", "lots"])
    assert "is not a size" in capsys.readouterr().err


def test_a_limit_is_said_in_words_with_its_value():
    bounds = Limits(memory=4 * GiB, processes=64, disk=50 * MiB, output=1536 << 10)
    assert [bounds.words(kind) for kind in limits.KINDS] == [
        "used more than 4 GiB of memory", "ran more than 64 processes and threads at once",
        "wrote more than 50 MiB to disk", "printed more than 1.5 MiB of output"]


# --- how each limit is enforced here, said in the first line -----------------------------------------

def test_first_line_names_every_limit_and_the_kernel_mechanism_with_a_cgroup():
    line = Plan(Limits(), sandboxed=True, cgroup="v2").line(300, 900)
    assert line.startswith("limits per notebook: memory 4 GiB (cgroup v2 memory limit), "
                           "512 processes+threads (cgroup v2 pids.max), disk 1 GiB (")
    assert "/tmp and /dev/shm as tmpfs of that size" in line and "output 16 MiB" in line
    assert line.endswith("cell 300 s, notebook 900 s") and "watchdog" not in line


def test_without_a_cgroup_the_first_line_says_the_watchdog_and_why_never_silently_unlimited():
    line = Plan(Limits(memory=None), sandboxed=False, cgroup=None,
                why_no_cgroup="systemd is not running here").line(60, 120)
    assert "memory UNLIMITED (--memory none)" in line
    assert "512 processes+threads (a watchdog counting its processes and threads every 0.25 s)" in line
    assert "TMPDIR inside the scratch folder" in line
    assert "no cgroup here (systemd is not running here)" in line and "can overshoot" in line


def test_an_old_bwrap_without_size_is_said_to_leave_tmp_uncapped():
    assert "/tmp NOT capped" in Plan(Limits(), sandboxed=True, cgroup="v1", tmpfs_size=False).by("disk")


def test_systemd_scope_command_sets_memory_swap_and_tasks():
    command = cgroups.systemd_command(300 * MiB, 64)
    assert command[:4] == ["systemd-run", "--scope", "--quiet", "--collect"] and command[-1] == "--"
    assert {"MemoryMax=314572800", "MemorySwapMax=0", "TasksMax=64"} <= set(command)
    assert ("--user" in command) == (os.geteuid() != 0)


# --- reading cgroups -------------------------------------------------------------------------------

HYBRID = """31 23 0:28 / /sys/fs/cgroup rw,relatime - tmpfs tmpfs rw,mode=755
35 31 0:32 / /sys/fs/cgroup/memory rw,relatime - cgroup cgroup rw,memory
39 31 0:36 /docker/abc /sys/fs/cgroup/pids rw,relatime - cgroup cgroup rw,pids
41 31 0:38 / /sys/fs/cgroup/unified rw,relatime - cgroup2 cgroup2 rw
"""


def test_mounts_and_memberships_are_read_from_proc(monkeypatch):
    found = cgroups.mounts(HYBRID)
    assert found == {"memory": (Path("/sys/fs/cgroup/memory"), "/"),
                     "pids": (Path("/sys/fs/cgroup/pids"), "/docker/abc"),
                     "v2": (Path("/sys/fs/cgroup/unified"), "/")}
    member = cgroups.memberships("8:pids:/docker/abc/x\n4:memory:/m\n2:cpu,cpuacct:/c\n0::/\n")
    assert member == {"pids": "/docker/abc/x", "memory": "/m", "v2": "/"}
    monkeypatch.setattr(cgroups, "mounts", lambda: found)
    monkeypatch.setattr(cgroups, "memberships", lambda: member)
    assert cgroups.own_dir("pids") == Path("/sys/fs/cgroup/pids/x")  # relative to the mount's root
    assert cgroups.own_dir("memory") == Path("/sys/fs/cgroup/memory/m")


@pytest.mark.parametrize("version, memory_file, stat", [
    ("v2", "memory.events", "anon 1000\nfile 99999\nshmem 24\n"),
    ("v1", "memory.oom_control", "cache 99999\ntotal_rss 1000\ntotal_shmem 24\n")])
def test_a_groups_counters_and_memory_in_use(tmp_path, version, memory_file, stat):
    (tmp_path / memory_file).write_text("oom_kill_disable 0\nunder_oom 0\noom_kill 2\n" if version == "v1"
                                        else "low 0\nhigh 0\nmax 5\noom 2\noom_kill 2\n")
    (tmp_path / "pids.events").write_text("max 3\n")
    (tmp_path / "memory.stat").write_text(stat)
    (tmp_path / "pids.current").write_text("7\n")
    group = cgroups.Group(version, {"memory": tmp_path, "pids": tmp_path})
    assert group.hits() == {"memory": 2, "processes": 3}
    assert group.memory_in_use() == 1024  # anonymous and tmpfs pages, not the page cache
    assert group.tasks() == (7, None)  # pids.peak exists on newer kernels only


def test_without_any_cgroup_mounted_the_probe_says_so(monkeypatch):
    monkeypatch.setattr(cgroups, "own_dir", lambda kind: None)
    assert cgroups.direct() == (None, "no cgroup v2 and no cgroup v1 memory/pids hierarchy is mounted")


def direct_cgroups():
    """This machine's direct cgroups, or skip saying why there are none."""
    version, direct, why = cgroups.probe()
    if direct is None:
        pytest.skip(f"no cgroup this test can create here: {why}")
    return direct


def leftovers(direct):
    return [path for parent in set(direct.parents.values()) for path in parent.glob(f"{cgroups.PREFIX}-{os.getpid()}-*")]


def test_confine_moves_the_job_into_its_cgroup_and_the_kernel_kills_a_hog_there():
    """A child over its cgroup's memory is killed by the kernel and counted; then the group is removed."""
    direct = direct_cgroups()
    group = direct.create(64 * MiB, 32)
    try:
        hog = "import time\nblocks = []\nfor _ in range(16):\n    blocks.append(b'x' * (16 << 20))\n    time.sleep(0.01)"
        command = [sys.executable, "-I", confine.__file__]
        for folder in sorted(set(group.dirs.values())):
            command += ["--cgroup-procs", str(folder / "cgroup.procs")]
        done = subprocess.run(command + ["--", sys.executable, "-c", hog], capture_output=True, timeout=60)
        assert done.returncode == -9, done.stderr  # SIGKILL from the OOM killer, at 64 MiB not 256
        assert group.hits()["memory"] >= 1
    finally:
        group.remove()
    assert leftovers(direct) == []


def test_confine_caps_file_size_and_core_dumps_and_raises_the_oom_score(tmp_path):
    probe = ("import resource\n"
             "print(resource.getrlimit(resource.RLIMIT_CORE)[0], open('/proc/self/oom_score_adj').read().strip())\n"
             "try:\n    with open('big', 'wb') as out:\n        out.write(b'x' * 5000)\nexcept OSError as error:\n    print(error.errno)")
    done = subprocess.run([sys.executable, "-I", confine.__file__, "--fsize", "4096", "--oom-score-adj", "500",
                           "--", sys.executable, "-c", probe], capture_output=True, text=True, cwd=tmp_path,
                          timeout=60)
    assert done.stdout.split() == ["0", "500", "27"], done.stderr  # 27: EFBIG, File too large


# --- which limit a cell hit: the plugin -------------------------------------------------------------

class FloodingKernel:
    """nbval's kernel as the plugin sees it: `messages` arrive on iopub, the shell reply after them."""

    def __init__(self, messages):
        self.iopub, self.shell = list(messages), [{"msg_type": "execute_reply"}]
        self.killed = False

    def get_message(self, stream, timeout=None):
        from queue import Empty
        queue = self.iopub if stream == "iopub" else self.shell
        if stream == "shell" and self.iopub:  # the reply comes once the output is out, as in a kernel
            time.sleep(timeout or 0)
            raise Empty
        if not queue:
            raise Empty
        return queue.pop(0)

    def is_alive(self):
        return not self.killed


def stream(text):
    return {"msg_type": "stream", "content": {"name": "stdout", "text": text}}


def test_output_is_counted_as_it_arrives_and_handed_to_nbval_in_order():
    kernel = FloodingKernel([stream("a" * 10), stream("b" * 10)])
    watch = plugin.watch_kernel(kernel, output_limit=100)
    assert kernel.get_message("shell", timeout=5)["msg_type"] == "execute_reply"  # output read meanwhile
    assert [kernel.get_message("iopub")["content"]["text"][0] for _ in range(2)] == ["a", "b"]
    assert watch.output == 20


def test_a_flood_stops_the_kernel_and_names_the_output_limit(monkeypatch):
    kernel = FloodingKernel([stream("x" * 600)] * 3)
    monkeypatch.setattr(plugin, "stop_kernel", lambda k: setattr(k, "killed", True))
    plugin.watch_kernel(kernel, output_limit=1000, output_words="printed more than 1000 B of output")
    with pytest.raises(plugin.OverLimit, match="printed more than 1000 B of output") as caught:
        kernel.get_message("shell", timeout=5)
    assert caught.value.kind == "output" and kernel.killed


@pytest.mark.parametrize("before, after, error, expected", [
    ({"memory": 0, "processes": 0}, {"memory": 1, "processes": 0}, "RankFailedError: rank 1 failed", "memory"),
    ({"memory": 0, "processes": 2}, {"memory": 0, "processes": 3}, "BlockingIOError: [Errno 11]", "processes"),
    ({}, {}, "OSError: [Errno 28] No space left on device", "disk"),
    ({}, {}, "OSError: [Errno 27] File too large", "disk"),
    ({"memory": 1}, {"memory": 1}, "AssertionError: hint", None)])
def test_a_cell_is_charged_with_the_limit_whose_counter_rose_while_it_ran(monkeypatch, before, after, error,
                                                                          expected):
    config = {"cgroup": "v2", "words": {kind: kind for kind in limits.KINDS}}
    monkeypatch.setattr(plugin, "limit_hits", lambda limits_config: after)
    assert plugin.limit_hit(config, before, error, None) == expected


# --- scoring and feedback --------------------------------------------------------------------------

def records(*entries):
    return {cell: CellRecord(cell, error=error, crashed=bool(limit), limit=limit) for cell, error, limit in entries}


def test_a_limit_voids_the_exercise_and_says_which_limit_in_which_cell(tmp_path):
    solution, exercise = make_course(tmp_path)
    from ddp_lessons.tooling import exercises
    checks = exercises.check_cells(exercise)
    results = records((0, None, None), (1, None, None),
                      (2, "used more than 4 GiB of memory (the grader's limit)", "memory"), (3, None, None))
    results[2].value = 4 * GiB  # the plugin records the limit's value beside its kind
    grade = scoring.score("99_synthetic", "hog", checks, {checks[0].id: 1, checks[1].id: 3}, results)
    assert (grade.points, grade.status) == (0, scoring.OVER_LIMIT)
    assert grade.note == "used more than 4 GiB of memory in cell 2"
    assert grade.limit == scoring.LimitHit("memory", 4 * GiB, 2)
    assert grade.failed_checks == ["cell 2: used more than 4 GiB of memory (the grader's limit)",
                                   "cell 1: not scored: cell 2 used more than 4 GiB of memory",
                                   "cell 3: not scored: cell 2 used more than 4 GiB of memory"]
    text = feedback.student_markdown("hog", [grade])
    assert "**Over a limit**: this notebook used more than 4 GiB of memory in cell 2, so" in text
    assert "crashed" not in text.lower()
    grade.language = "es"  # a Spanish notebook: the same limit, said in Spanish
    text = feedback.student_markdown("hog", [grade])
    assert "**Por encima de un límite**: este notebook usó más de 4 GiB de memoria en la celda 2, así" in text


def test_a_limit_hit_outside_any_cell_voids_the_exercise_without_naming_a_cell(tmp_path):
    solution, exercise = make_course(tmp_path)
    from ddp_lessons.tooling import exercises
    checks = exercises.check_cells(exercise)
    void = "the notebook printed more than 1.5 MiB of output (the grader's limit)"  # what run_nbval says
    grade = scoring.score("99_synthetic", "flood", checks, {checks[0].id: 1, checks[1].id: 3},
                          records((0, None, None), (1, None, None)), void, scoring.OVER_LIMIT,
                          scoring.LimitHit("output", 1536 << 10))
    assert (grade.points, grade.status) == (0, scoring.OVER_LIMIT)
    assert grade.failed_checks == [f"cell 1: not scored: {void}", f"cell 3: not scored: {void}"]
    assert "**Over a limit**: this notebook printed more than 1.5 MiB of output, so" in \
        feedback.student_markdown("flood", [grade])
    grade.language = "es"
    assert "**Por encima de un límite**: este notebook imprimió más de 1,5 MiB de salida, así" in \
        feedback.student_markdown("flood", [grade])


def test_the_grader_charges_the_running_cell_when_it_stopped_the_job():
    started = {2: CellRecord(2, running=True)}
    assert jobs.running_cell({**records((0, None, None), (1, None, None)), **started}) == 2
    assert jobs.running_cell(records((0, None, None))) is None
    assert jobs.unattributed_hit({"memory": 1}, records((0, None, None))) == "memory"
    assert jobs.unattributed_hit({"memory": 1}, records((0, "x", "memory"))) is None


def test_pytest_runs_with_the_limits_file_and_without_capturing_the_kernels_stdout(tmp_path):
    command = jobs.nbval_command(tmp_path / "nb.ipynb", tmp_path / "cells.jsonl", 30, tmp_path / "limits.json")
    assert "-s" in command and f"{plugin.LIMITS_OPTION}={tmp_path / 'limits.json'}" in command


def test_the_sandboxs_tmp_and_shm_are_capped_tmpfs(tmp_path):
    args = sandbox.Sandbox([]).command(["x"], tmp_path, tmp_path, tmp_size=50 * MiB)
    triples = list(zip(args, args[1:], args[2:], args[3:]))
    assert ("--size", str(50 * MiB), "--tmpfs", "/tmp") in triples
    assert ("--size", str(50 * MiB), "--tmpfs", "/dev/shm") in triples


def test_disk_use_counts_allocated_blocks_so_a_sparse_file_costs_what_it_holds(tmp_path):
    with open(tmp_path / "sparse", "wb") as out:
        out.truncate(1 << 30)
    (tmp_path / "sub").mkdir()
    (tmp_path / "sub" / "full").write_bytes(b"x" * (1 << 20))
    assert (1 << 20) <= watch.folder_bytes(tmp_path) < (1 << 20) + (64 << 10)
    assert watch.folder_bytes(tmp_path, skip={tmp_path / "sub" / "full"}) < 64 << 10


# --- real grading runs: an honest student beside one over each limit --------------------------------

HOG = ("import time\nblocks = []\nfor _ in range(64):  # up to 1 GiB, 16 MiB at a time\n"
       "    blocks.append(b'x' * (16 << 20))\n    time.sleep(0.05)\ntime.sleep(10)  # held\ntotal = 12")
SPAWNER = ("import subprocess, time\nkids = [subprocess.Popen(['sleep', '30']) for _ in range(80)]\n"
           "time.sleep(10)  # held, as a runaway pool of workers would\ntotal = 12")
FILLER = ("import os\nfor i in range(200):  # 200 MiB in files of 1 MiB\n"
          "    open(f'part{i}.bin', 'wb').write(os.urandom(1 << 20))\ntotal = 12")
TMP_FILLER = ("import os, tempfile\nwith open(os.path.join(tempfile.gettempdir(), 'big.bin'), 'wb') as f:\n"
              "    for _ in range(200):\n        f.write(b'x' * (1 << 20))\ntotal = 12")
FLOOD = "for _ in range(20_000):  # 20 MB\n    print('x' * 1000)\ntotal = 12"
FD_FLOOD = "import os\nos.system('head -c 10000000 /dev/zero | tr \"\\\\0\" y')  # 10 MB past Python\ntotal = 12"
SMALL = ["--memory", "300M", "--processes", "48", "--disk", "50M", "--output", "1M"]
WORDS = {"hog": "used more than 300 MiB of memory", "spawner": "ran more than 48 processes and threads at once",
         "filler": "wrote more than 50 MiB to disk", "tmp_filler": "wrote more than 50 MiB to disk",
         "flood": "printed more than 1 MiB of output", "fd_flood": "printed more than 1 MiB of output"}


def grade_class(tmp_path, students, *options, spanish=()):
    """Grade `students` (name -> answer to the second stub) beside an honest alice at --jobs 2; the
    students named in `spanish` hand in the Spanish edition of the exercise."""
    solution, exercise = make_course(tmp_path)
    submissions = tmp_path / "submissions"
    submit(submissions, "alice", answer(exercise, *CORRECT))
    for name, code in students.items():
        notebook = answer(exercise, CORRECT[0], code)
        if name in spanish:
            notebook.metadata["ddp_lessons"] = {"language": "es"}
        submit(submissions, name, notebook)
    out = tmp_path / "grades.csv"
    assert cli.main(["grade", str(submissions), "--out", str(out), "--solutions", str(solution.parent),
                     "--cell-timeout", "60", "--notebook-timeout", "240", "--jobs", "2",
                     "--feedback", str(tmp_path / "feedback"), "--lang", "en", *options]) == 0
    with open(out, newline="") as f:
        return {row["student"]: row for row in csv.DictReader(f)}


def assert_charged(tmp_path, rows, student, words):
    """`student` scored 0, their feedback names the limit in words in cell 2, not a crash."""
    assert (rows[student]["points"], rows[student]["max_points"]) == ("0", "5"), rows[student]
    assert rows[student]["failed_checks"].startswith(f"cell 2: {words} (the grader's limit)"), rows[student]
    text = (tmp_path / "feedback" / f"{student}.md").read_text()
    assert f"**Over a limit**: this notebook {words} in cell 2" in text, text
    assert "**Crashed**" not in text


@pytest.mark.slow
def test_submissions_over_each_limit_score_zero_and_say_which_beside_an_honest_one(tmp_path, capsys):
    rows = grade_class(tmp_path, {"hog": HOG, "spawner": SPAWNER, "filler": FILLER, "tmp_filler": TMP_FILLER,
                                  "flood": FLOOD, "fd_flood": FD_FLOOD, "filler_es": FILLER}, *SMALL,
                       spanish={"filler_es"})
    assert (rows["alice"]["points"], rows["alice"]["failed_checks"]) == ("5", "")
    for student, words in WORDS.items():
        assert_charged(tmp_path, rows, student, words)
    # a Spanish notebook: the gradebook still says it in English, its feedback all in Spanish
    assert rows["filler_es"]["failed_checks"].startswith(f"cell 2: {WORDS['filler']} (the grader's limit)")
    text = (tmp_path / "feedback" / "filler_es.md").read_text()
    assert "**Por encima de un límite**: este notebook escribió más de 50 MiB en el disco en la celda 2, así" \
        in text, text
    printed = capsys.readouterr().out
    first = printed.splitlines()[0]
    assert first.startswith("limits per notebook: memory 300 MiB (") and "48 processes+threads (" in first
    assert "disk 50 MiB (" in first and "output 1 MiB (" in first
    assert "alice/99_synthetic.ipynb: 5/5 [peak " in printed
    direct = cgroups.probe()[1]
    assert direct is None or leftovers(direct) == []  # every job's cgroup removed


@pytest.mark.slow
def test_without_a_cgroup_the_watchdog_stops_a_hog_and_a_spawner(tmp_path, monkeypatch, capsys):
    monkeypatch.setattr(cgroups, "probe", lambda *args: (None, None, "turned off by this test"))
    rows = grade_class(tmp_path, {"hog": HOG, "spawner": SPAWNER}, *SMALL)
    assert (rows["alice"]["points"], rows["alice"]["failed_checks"]) == ("5", "")
    for student in ("hog", "spawner"):
        assert_charged(tmp_path, rows, student, WORDS[student])
    assert "no cgroup here (turned off by this test)" in capsys.readouterr().out.splitlines()[0]
