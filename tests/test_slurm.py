"""A real SLURM job: the lesson's sbatch template (examples/train_ddp.sbatch) on a one-node cluster
started for the test (tests/slurm_cluster.py) trains to the same weights as the course's launcher."""
import shutil
import sys
from pathlib import Path

import pytest
import torch

from ddp_lessons import launch
from slurm_cluster import SlurmCluster, require_slurm

EXAMPLES = Path(__file__).parent.parent / "examples"
ARGS = ["--epochs", "2", "--batch-size", "32", "--lr", "0.02", "--seed", "0"]


@pytest.mark.slow
def test_sbatch_template_runs_two_ranks_to_the_launchers_final_checksum(tmp_path):
    require_slurm()
    job = tmp_path / "job"
    job.mkdir()
    for name in ("train_ddp.py", "train_ddp.sbatch"):
        shutil.copy(EXAMPLES / name, job / name)
    with SlurmCluster(tmp_path / "slurm") as cluster:
        cluster.env.update(PYTHON=sys.executable, OMP_NUM_THREADS="1")
        submitted = cluster.run("sbatch", "--parsable", "--wait", f"--chdir={job}", "train_ddp.sbatch",
                                *ARGS, "--snapshot", str(job / "snapshot.pt"), timeout=300)
        job_id = submitted.stdout.strip().split(";")[0]
        output = job / f"train_ddp-{job_id}.out"
        text = output.read_text() if output.exists() else "(no output file)"
        assert submitted.returncode == 0, (f"sbatch failed ({submitted.returncode}): {submitted.stderr}\n"
                                           f"job output:\n{text}\n{cluster.logs()}")
    assert f"job {job_id}: 1 node(s) x 2 ranks" in text
    slurm_checksum = torch.load(job / "snapshot.pt", weights_only=True)["checksum"]
    assert f"final checksum: {slurm_checksum}" in text

    launched = launch.run_torchrun(EXAMPLES / "train_ddp.py", nproc=2, threads_per_rank=1, echo=False,
                                   args=[*ARGS, "--snapshot", str(tmp_path / "launcher.pt")],
                                   run_dir=tmp_path / "run", timeout=180)
    assert f"final checksum: {slurm_checksum}" in launched.output(0)
    assert torch.load(tmp_path / "launcher.pt", weights_only=True)["checksum"] == slurm_checksum


def test_without_slurm_the_test_skips_with_the_install_hint_and_fails_under_ci(monkeypatch):
    import slurm_cluster
    monkeypatch.setattr(slurm_cluster, "_which", lambda name: None)
    monkeypatch.delenv("CI", raising=False)
    with pytest.raises(pytest.skip.Exception, match="apt-get install slurm-wlm munge"):
        require_slurm()
    monkeypatch.setenv("CI", "true")
    with pytest.raises(pytest.fail.Exception, match="SLURM is not installed"):
        require_slurm()
