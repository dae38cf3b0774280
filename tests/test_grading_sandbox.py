"""Does a submission graded in the bubblewrap sandbox stay inside its scratch folder?"""
import hashlib
import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

import pytest

from ddp_lessons.tooling import cli
from ddp_lessons.grading import sandbox
from grading_course import CORRECT, answer, make_course, submit

ROOT = Path(__file__).resolve().parents[1]


def require_bwrap():
    """Skip with the install hint where bwrap cannot sandbox; fail under CI (CI installs it)."""
    reason = sandbox.problem()
    if reason is None:
        return
    if os.environ.get("CI", "").lower() not in ("", "0", "false"):
        pytest.fail(f"CI must run the sandbox tests: {reason}")
    pytest.skip(reason)


# --- rules, without running anything ----------------------------------------------------------------

def test_none_never_sandboxes_and_bwrap_insists(monkeypatch):
    monkeypatch.setattr(sandbox, "problem", lambda: "bubblewrap (bwrap) is not installed: hint")
    assert sandbox.resolve("none") is False
    with pytest.raises(sandbox.SandboxError, match="not installed"):
        sandbox.resolve("bwrap")
    with pytest.raises(ValueError, match="choose one of"):
        sandbox.resolve("docker")


def test_auto_without_bwrap_runs_unsandboxed_and_warns_once(monkeypatch, capsys):
    monkeypatch.setattr(sandbox, "problem", lambda: f"bubblewrap (bwrap) is not installed: {sandbox.INSTALL_HINT}")
    monkeypatch.setattr(sandbox, "_warned", False)
    assert sandbox.resolve("auto") is False and sandbox.resolve("auto") is False
    warnings = capsys.readouterr().err.strip().splitlines()
    assert len(warnings) == 1 and "WITHOUT a sandbox" in warnings[0] and sandbox.INSTALL_HINT in warnings[0]


def test_auto_with_a_working_bwrap_sandboxes(monkeypatch):
    monkeypatch.setattr(sandbox, "problem", lambda: None)
    assert sandbox.resolve("auto") is True


@pytest.fixture
def outside_tmp():
    """A folder outside /tmp (the sandbox hides /tmp as a whole), removed afterwards."""
    (ROOT / "test-output").mkdir(exist_ok=True)
    parent = ROOT / "test-output"
    if parent.resolve().is_relative_to("/tmp"):  # a checkout under /tmp (CI): /var/tmp is not hidden
        parent = Path("/var/tmp")
    folder = Path(tempfile.mkdtemp(prefix="sandbox-", dir=parent))
    yield folder
    shutil.rmtree(folder, ignore_errors=True)


def test_hidden_folders_are_mounted_after_what_stays_readable_and_only_scratch_is_writable(outside_tmp):
    tmp_path = outside_tmp
    hidden, scratch = tmp_path / "submissions", tmp_path / "work" / "job1"
    hidden.mkdir()
    (scratch / "notebook").mkdir(parents=True)
    args = sandbox.Sandbox([hidden, tmp_path / "absent"]).command(["python", "x"], scratch, scratch / "notebook")
    pairs = list(zip(args, args[1:]))
    assert {"--unshare-net", "--unshare-pid", "--die-with-parent"} <= set(args)
    assert ("--cap-drop", "ALL") in pairs and ("--ro-bind", "/") in pairs
    private_tmp = pairs.index(("--tmpfs", "/tmp"))  # after it: only re-binds of what lies under /tmp
    last_readable = max(i for i, (flag, _) in enumerate(pairs[:private_tmp]) if flag == "--ro-bind")
    assert pairs.index(("--tmpfs", str(hidden.resolve()))) > last_readable
    assert ("--tmpfs", str(tmp_path / "absent")) not in pairs  # nothing to hide, nothing mounted
    assert pairs.index(("--bind", str(scratch))) > pairs.index(("--tmpfs", "/tmp"))
    assert [flag for flag in args if flag == "--bind"] == ["--bind"]
    assert pairs.index(("--remount-ro", str(hidden.resolve()))) > pairs.index(("--bind", str(scratch)))
    assert args[-3:] == ["--", "python", "x"]


def test_folders_inside_tmp_or_another_hidden_folder_are_not_mounted_twice(tmp_path, outside_tmp, monkeypatch):
    monkeypatch.setenv("HOME", str(tmp_path / "home"))  # under /tmp: hidden with it
    (outside_tmp / "inner").mkdir()
    (tmp_path / "home").mkdir()
    args = sandbox.Sandbox([outside_tmp, outside_tmp / "inner"]).command(["x"], tmp_path, tmp_path)
    pairs = list(zip(args, args[1:]))
    assert [value for flag, value in pairs if flag == "--remount-ro"] == [str(outside_tmp.resolve())]


def test_ci_installs_bubblewrap_so_the_sandbox_tests_run_there():
    assert "apt-get install -y -qq bubblewrap" in (ROOT / ".ci" / "run").read_text()


# --- a real run: bwrap, nbval, a kernel per notebook ---------------------------------------------

def snapshot(folder):
    """Every file under `folder` with a hash of its bytes."""
    return {str(path.relative_to(folder)): hashlib.sha256(path.read_bytes()).hexdigest()
            for path in sorted(folder.rglob("*")) if path.is_file()}


@pytest.mark.slow
def test_writes_outside_scratch_and_reading_another_students_notebook_fail_and_change_nothing(monkeypatch,
                                                                                             tmp_path, outside_tmp):
    require_bwrap()
    monkeypatch.setenv("MPLCONFIGDIR", str(tmp_path))  # the grader's own report figure caches fonts there
    base = outside_tmp  # outside /tmp, which the sandbox hides anyway: these folders are hidden by name
    home = base / "home"
    home.mkdir()
    monkeypatch.setenv("HOME", str(home))
    solution, exercise = make_course(base)
    submissions = base / "submissions"
    submit(submissions, "alice", answer(exercise, *CORRECT))
    attacks = {
        "into_submissions": f"open({str(submissions / 'alice' / 'planted.txt')!r}, 'w').write('x')",
        "into_solutions": f"open({str(solution)!r}, 'w').write('{{}}')",
        "into_home": f"open({str(home / 'planted.txt')!r}, 'w').write('x')",
        "reads_alice": f"print(open({str(submissions / 'alice' / '99_synthetic.ipynb')!r}).read()[:80])",
    }
    for student, attack in attacks.items():  # the attack, then the answer: a blocked attack loses it
        submit(submissions, student, answer(exercise, CORRECT[0], f"{attack}\n{CORRECT[1]}"))
    before = snapshot(base)
    out = base / "grades.csv"
    assert cli.main(["grade", str(submissions), "--out", str(out), "--solutions", str(solution.parent),
                     "--cell-timeout", "60", "--jobs", "2", "--sandbox", "bwrap"]) == 0
    after = snapshot(base)
    grades = {line.split(",")[0]: line.split(",", 2)[2] for line in out.read_text().splitlines()[1:]}
    written = {"grades.csv", "grades-wide.csv", "grades-lms.csv", "grades-report.md", "grades-report.png"}
    assert {name: digest for name, digest in after.items()  # the grader's own files, and its run folder
            if name not in written and not name.startswith("grades-run/")} == before
    assert grades["alice"] == "5,5,"
    for student in attacks:
        assert grades[student] == "2,5,cell 3: NameError: name 'total' is not defined", student


@pytest.mark.slow
def test_torchrun_rendezvous_works_inside_the_sandbox_on_loopback(tmp_path):
    """Exercises launch 2 ranks from the kernel: their rendezvous must work in the private network."""
    require_bwrap()
    probe = ("from ddp_lessons.tooling import doctor; smoke = doctor._smoke(2, 120); print(smoke)\n"
             "import socket; socket.create_connection(('192.0.2.1', 80), timeout=2)")  # TEST-NET-1
    command = sandbox.Sandbox([ROOT / "solutions"]).command([sys.executable, "-c", probe], tmp_path, tmp_path)
    done = subprocess.run(command, capture_output=True, text=True, timeout=300)
    assert "'passed': True" in done.stdout, done.stdout + done.stderr
    assert "Network is unreachable" in done.stderr  # loopback only
