"""A real SLURM job: the lesson's sbatch template (examples/train_ddp.sbatch) on a one-node cluster
started for the test (tests/slurm_cluster.py) is signalled once while it trains, as before its time
limit, requeues itself, resumes from the snapshot and ends with an uninterrupted run's weights."""
import re
import shutil
import sys
from pathlib import Path

import pytest
import torch

from ddp_lessons import launch
from slurm_cluster import SlurmCluster, require_slurm, run_preempted_job

EXAMPLES = Path(__file__).parent.parent / "examples"
EPOCHS = 20
ARGS = ["--epochs", str(EPOCHS), "--batch-size", "8", "--lr", "0.02", "--seed", "0"]  # 64 steps an epoch


@pytest.mark.slow
def test_a_signalled_job_requeues_resumes_from_its_snapshot_and_ends_as_if_never_stopped(tmp_path):
    require_slurm()
    job = tmp_path / "job"
    job.mkdir()
    for name in ("train_ddp.py", "train_ddp.sbatch"):
        shutil.copy(EXAMPLES / name, job / name)
    with SlurmCluster(tmp_path / "slurm") as cluster:
        cluster.env.update(PYTHON=sys.executable)
        ran = run_preempted_job(cluster, job, ARGS, job / "snapshot.pt")
        logs = cluster.logs()
    text = f"job {ran.job_id} output:\n{ran.output}\n{logs}"
    assert ran.fields["JobState"] == "COMPLETED" and ran.fields["ExitCode"] == "0:0", (ran.fields, text)
    assert ran.fields["Restarts"] == "1", text  # requeued once, by the template's USR1 trap
    for start in (0, 1):  # the template's own line, once per start of the job
        assert f"SLURM_JOB_ID={ran.job_id} SLURM_RESTART_COUNT={start} SLURM_NNODES=1 NPROC_PER_NODE=2 " \
               "rendezvous=" in ran.output, text
    assert f"SIGUSR1: scontrol requeue {ran.job_id}" in ran.output, text
    stopped = re.search(r"SIGTERM in epoch (\d+), step \d+: stopping", ran.output)
    assert stopped, f"the ranks did not stop on SIGTERM:\n{text}"
    starts = [int(epoch) for epoch in re.findall(r"starting at epoch (\d+)", ran.output)]
    assert starts == [0, int(stopped.group(1))] and 0 < starts[1] < EPOCHS, (starts, text)
    snapshot = torch.load(job / "snapshot.pt", weights_only=True)
    assert snapshot["epoch"] == EPOCHS - 1 and f"final checksum: {snapshot['checksum']}" in ran.output, text

    uninterrupted = launch.run_torchrun(EXAMPLES / "train_ddp.py", nproc=2, threads_per_rank=1, echo=False,
                                        args=[*ARGS, "--cpu", "--snapshot", str(tmp_path / "launcher.pt")],
                                        run_dir=tmp_path / "run", timeout=180)
    assert f"final checksum: {snapshot['checksum']}" in uninterrupted.output(0)


def test_without_slurm_the_test_skips_with_the_install_hint_and_fails_under_ci(monkeypatch):
    import slurm_cluster
    monkeypatch.setattr(slurm_cluster, "_which", lambda name: None)
    monkeypatch.delenv("CI", raising=False)
    with pytest.raises(pytest.skip.Exception, match="apt-get install slurm-wlm munge"):
        require_slurm()
    monkeypatch.setenv("CI", "true")
    with pytest.raises(pytest.fail.Exception, match="SLURM is not installed"):
        require_slurm()
