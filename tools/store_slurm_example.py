"""Store a real SLURM job's output for lesson 12 (shown where no SLURM cluster answers).

Starts the course's one-node test cluster (tests/slurm_cluster.py: munged, slurmctld, slurmd from
Debian's slurm-wlm and munge), submits examples/train_ddp.sbatch on 2 CPU ranks, sends its batch
script SIGUSR1 once the first snapshot exists (what `--signal=B:USR1@120` does before the time
limit) and waits through the requeue, exactly as tests/test_slurm.py does. Writes the job's output
and where it came from to ddp_lessons/data/slurm_job_example.LANG.json, which lesson 12 shows in that
language: English from examples/, Spanish from examples/es/ (the Spanish lesson's scripts):
    .venv/bin/python tools/store_slurm_example.py            # en
    .venv/bin/python tools/store_slurm_example.py --lang es
"""
import argparse
import datetime
import json
import os
import platform
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

import torch

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tests"))
from slurm_cluster import SlurmCluster, require_slurm, run_preempted_job  # noqa: E402
from test_slurm import ARGS  # noqa: E402

FOLDERS = {"en": ROOT / "examples", "es": ROOT / "examples" / "es"}
SIGNALLED = {"en": "(once the first snapshot existed)", "es": "(en cuanto existió el primer snapshot)"}


def main(lang: str) -> None:
    require_slurm()
    out = ROOT / "ddp_lessons" / "data" / f"slurm_job_example.{lang}.json"
    with tempfile.TemporaryDirectory() as tmp:
        job = Path(tmp) / "job"
        job.mkdir()
        for name in ("train_ddp.py", "train_ddp.sbatch"):
            shutil.copy(FOLDERS[lang] / name, job / name)
        with SlurmCluster(Path(tmp) / "slurm") as cluster:
            cluster.env.update(PYTHON=sys.executable)
            ran = run_preempted_job(cluster, job, ARGS, job / "snapshot.pt")
            version = cluster.run("sbatch", "--version").stdout.strip()
        site_packages = str(Path(torch.__file__).resolve().parents[1])
        output = ran.output.replace(str(job), "$PWD").replace(site_packages, ".../site-packages")
    assert ran.fields["JobState"] == "COMPLETED" and ran.fields["Restarts"] == "1", (ran.fields, output)
    out.write_text(json.dumps({
        "label": f"a real SLURM job of {FOLDERS[lang].relative_to(ROOT)}/train_ddp.sbatch, signalled once, "
                 "requeued and resumed",
        "language": lang,
        "provenance": "tools/store_slurm_example.py on the course's one-node test cluster "
                      "(tests/slurm_cluster.py), the procedure of tests/test_slurm.py",
        "method": "submit the sbatch with 2 CPU ranks, send its batch script SIGUSR1 once the first snapshot "
                  "exists, wait for the requeued job to complete; the output is the job's log with the job "
                  "folder shown as $PWD",
        "source": "the job's own output file (sbatch --open-mode=append) and scontrol show job",
        "created": datetime.date.today().isoformat(),
        "machine": {"cpu_cores": os.cpu_count(), "platform": platform.platform(), "backend": "gloo",
                    "device": "cpu", "torch": torch.__version__},
        "slurm": version, "torch": torch.__version__,
        "submitted": "sbatch --gpus-per-node=0 --cpus-per-task=N train_ddp.sbatch "
                     + " ".join(ARGS) + " --cpu --snapshot $PWD/snapshot.pt  (NPROC_PER_NODE=2)",
        "signalled": f"scancel --batch --signal=USR1 {ran.job_id}  {SIGNALLED[lang]}",
        "job": {key: ran.fields[key] for key in ("JobId", "JobState", "Restarts", "ExitCode")},
        "output": output,
    }, indent=1) + "\n")
    print(output)
    print(f"stored in {out.relative_to(ROOT)}")


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--lang", choices=sorted(FOLDERS), default="en", help="the edition whose scripts run")
    main(parser.parse_args().lang)
