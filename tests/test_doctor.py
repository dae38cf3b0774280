"""`python -m ddp_lessons doctor` on this machine."""
import json
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from ddp_lessons import backend
from ddp_lessons.tooling import doctor


@pytest.mark.slow
def test_doctor_json_reports_choice_and_a_passing_smoke_test():
    out = subprocess.run([sys.executable, "-m", "ddp_lessons", "doctor", "--json"],
                         capture_output=True, text=True, timeout=120)
    assert out.returncode == 0, out.stderr
    info = json.loads(out.stdout)
    expected = "nccl" if backend.gpu_count() >= 2 else "gloo"
    assert info["chosen"]["backend"] == expected
    assert info["smoke_test"]["passed"] is True
    assert info["smoke_test"]["sums"] == [1.0, 1.0]
    assert info["cpu_cores"] == backend.cpu_cores()


def test_text_report_without_smoke_names_the_choice(capsys):
    info = doctor.report(nproc=2, smoke=False)
    text = doctor.format_report(info)
    assert "course choice for 2 local ranks" in text
    assert info["chosen"]["backend"] in backend.BACKENDS
    assert "smoke test" not in text
    assert f"stacks of hung ranks: {info['stack_capture']['tool']} works" in text


def test_stack_capture_line_says_why_it_cannot_work():
    info = doctor.report(nproc=2, smoke=False)
    info["stack_capture"] = {"tool": None, "note": "py-spy is not installed; faulthandler got no "
                             "stack from rank(s) 0"}
    assert ("stacks of hung ranks: cannot be captured here (py-spy is not installed; faulthandler "
            "got no stack from rank(s) 0)") in doctor.format_report(info)


def test_failed_smoke_test_is_reported_as_failed():
    info = {"python": "3", "torch": "2", "cuda_build": None, "cpu_cores": 2, "gpus": [],
            "backends_available": {"gloo": True, "nccl": False},
            "chosen": {"nproc": 2, "backend": "gloo", "device": "cpu", "threads_per_rank": 1,
                       "reason": "no GPU"},
            "smoke_test": {"passed": False, "error": "rank 1 failed"}}
    assert "smoke test: FAILED\nrank 1 failed" in doctor.format_report(info)


@pytest.fixture
def fake_gpus(monkeypatch):
    """Pretend this machine has N GPUs (a CUDA build of torch); record the smoke tests' rank counts."""
    launched = []

    def make(count):
        monkeypatch.setattr(backend, "gpu_count", lambda: count)
        monkeypatch.setattr(doctor.torch.cuda, "get_device_name", lambda i: f"Fake GPU {i}")
        monkeypatch.setattr(doctor.torch.version, "cuda", "13.0")
        monkeypatch.setattr(doctor, "_smoke", lambda nproc, timeout: launched.append(nproc) or {
            "passed": True, "seconds": 1.0, "backend": backend.choose(0, nproc).backend, "sums": []})
        return launched
    return make


@pytest.mark.parametrize("gpus, smoke_ranks, per_gpu_backend", [
    (1, [2, 1], "nccl"),      # 2 ranks share the GPU (gloo); 1 rank on it checks nccl
    (2, [2], "nccl"),         # the 2-rank test already is one rank per GPU
    (4, [2, 4], "nccl"),      # catches NCCL P2P or /dev/shm trouble that 2 ranks may not
    (8, [2, 8], "nccl"),
])
def test_doctor_smoke_tests_one_rank_per_visible_gpu(fake_gpus, gpus, smoke_ranks, per_gpu_backend):
    launched = fake_gpus(gpus)
    info = doctor.report(nproc=2)
    assert launched == smoke_ranks
    assert info["one_rank_per_gpu"]["backend"] == per_gpu_backend
    assert info["chosen"]["backend"] == ("gloo" if gpus == 1 else "nccl")
    text = doctor.format_report(info)
    assert f"course choice for one rank per GPU ({gpus} local ranks): nccl" in text
    assert ("smoke test, one rank per GPU: PASSED" in text) == (gpus != 2)


def test_cuda_build_without_a_visible_gpu_gets_a_hint(fake_gpus, monkeypatch):
    fake_gpus(0)
    monkeypatch.delenv("CUDA_VISIBLE_DEVICES", raising=False)
    text = doctor.format_report(doctor.report(nproc=2, smoke=False))
    assert "GPU hint: this torch is a CUDA 13.0 build but sees no GPU" in text and "--gpus all" in text
    monkeypatch.setenv("CUDA_VISIBLE_DEVICES", "")
    assert "CUDA_VISIBLE_DEVICES='' hides every GPU" in doctor.format_report(doctor.report(smoke=False))
    monkeypatch.setattr(doctor.torch.version, "cuda", None)  # a CPU build: nothing to hint
    assert "GPU hint" not in doctor.format_report(doctor.report(smoke=False))


def test_a_failing_per_gpu_smoke_test_fails_the_doctor(fake_gpus, monkeypatch, capsys):
    fake_gpus(4)
    monkeypatch.setattr(doctor, "_smoke", lambda nproc, timeout: {"passed": nproc == 2, "seconds": 1.0,
                                                                  "backend": "nccl", "error": "NCCL error"})
    args = type("Args", (), {"nproc": 2, "no_smoke": False, "json": False})()
    assert doctor.run(args) == 1
    assert "smoke test, one rank per GPU: FAILED" in capsys.readouterr().out


def test_pin_check_refuses_an_environment_with_another_torch(tmp_path):
    pins = tmp_path / "constraints.txt"
    pins.write_text("# pinned for make test\ntorch==2.13.0\nnumpy==2.1.0  # a comment\n")
    versions = {"torch": "2.13.0+cpu", "numpy": "2.1.0"}
    assert doctor.pin_problems(str(pins), versions.get) == []  # a local build tag is the same release
    versions["torch"] = "2.11.0+cu130"  # e.g. a .venv that `make lab` filled with the VM's CUDA torch
    assert doctor.pin_problems(str(pins), versions.get) == [
        f"torch 2.11.0+cu130 installed, {pins} pins 2.13.0"]


@pytest.mark.skipif(shutil.which("make") is None, reason="needs make")
def test_make_test_hides_gpus_and_checks_the_pins():
    """On a GPU VM `make test` must take the same CPU paths as CI; `make test-gpu` takes the GPU ones."""
    root = Path(__file__).parents[1]

    def dry_run(target):
        return subprocess.run(["make", "-n", target], cwd=root, capture_output=True, text=True,
                              timeout=60).stdout.splitlines()

    test, gpu = dry_run("test"), dry_run("test-gpu")
    parallel, serial = [line for line in test if "-m pytest" in line]  # together, every test once but `extended`
    for line in (parallel, serial):
        assert line.startswith('CUDA_VISIBLE_DEVICES="" ') and "tests notebooks" in line
        assert "solutions" not in line  # solutions run once, through the grader's test
    assert '-m "not serial and not extended"' in parallel and "-n " in parallel
    assert '-m "serial and not extended"' in serial
    [gpu_line] = [line for line in gpu if "-m pytest" in line]
    assert "CUDA_VISIBLE_DEVICES" not in gpu_line and "06_gradient_sync" in gpu_line
    assert any("doctor --check-pins constraints-ci.txt" in line for line in test)


def test_text_report_says_how_each_grading_limit_is_enforced_here():
    info = doctor.report(nproc=2, smoke=False)
    assert set(info["grading_limits"]) >= {"memory", "processes", "disk", "output"}
    assert "grading limits here: memory by " in doctor.format_report(info)
    info["grading_limits"] = {"memory": "a watchdog", "processes": "a watchdog", "disk": "a watch",
                              "output": "the grader", "why_no_cgroup": "systemd is not running here"}
    assert ("grading limits here: memory by a watchdog, processes by a watchdog, disk by a watch, output by "
            "the grader (no cgroup: systemd is not running here)") in doctor.format_report(info)
