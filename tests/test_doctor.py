"""`python -m ddp_lessons doctor` on this machine."""
import json
import subprocess
import sys

import pytest

from ddp_lessons import backend, doctor


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
