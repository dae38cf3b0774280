"""The take-home script examples/train_ddp.py: torch and the standard library only, runs under a
plain torchrun (not the course's launcher), and a crashed, restarted run ends bit-identical. Its Spanish
edition, examples/es/, is what the Spanish lesson 12 writes (the drift test of tests/test_translations.py
proves that lesson's code the same program as the English, strings and comments aside)."""
import ast
import json
import re
import os
import runpy
import subprocess
import sys
from pathlib import Path

import pytest
import torch

from ddp_lessons import launch
from ddp_lessons.runtime import processes
from ddp_lessons.diffs import written_script

EXAMPLES = Path(__file__).parent.parent / "examples"
SCRIPT = EXAMPLES / "train_ddp.py"
EDITIONS = {"en": EXAMPLES, "es": EXAMPLES / "es"}
ARGS = ["--epochs", "3", "--batch-size", "32", "--lr", "0.02", "--seed", "0", "--cpu"]


def imported_modules(path: Path) -> set[str]:
    """Top-level names of every module `path` imports."""
    names = set()
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.Import):
            names |= {alias.name.split(".")[0] for alias in node.names}
        elif isinstance(node, ast.ImportFrom):
            names.add((node.module or "").split(".")[0])
    return names


@pytest.mark.parametrize("lang", EDITIONS)
def test_take_home_script_imports_only_torch_and_the_standard_library(lang):
    imports = imported_modules(EDITIONS[lang] / "train_ddp.py")
    assert "torch" in imports
    assert imports - {"torch"} <= set(sys.stdlib_module_names), imports - {"torch"}


@pytest.mark.parametrize("lang", EDITIONS)
def test_take_home_script_is_short_and_keeps_its_command_line(lang):
    text = (EDITIONS[lang] / "train_ddp.py").read_text()
    assert len(text.splitlines()) <= 165
    for flag in ("--epochs", "--batch-size", "--lr", "--snapshot", "--seed", "--cpu"):
        assert f'"{flag}"' in text


def test_sbatch_template_starts_torchrun_with_the_jobs_nodes_head_and_id():
    text = (EXAMPLES / "train_ddp.sbatch").read_text()
    for part in ('--nnodes "$SLURM_NNODES"', "--rdzv-backend c10d", '--rdzv-id "$SLURM_JOB_ID"',
                 "scontrol show hostnames", "srun "):
        assert part in text


def test_sbatch_template_asks_for_gpus_one_rank_each_and_requeues_before_the_time_limit():
    text = (EXAMPLES / "train_ddp.sbatch").read_text()
    assert "#SBATCH --gpus-per-node=" in text and "${SLURM_GPUS_ON_NODE:?" in text
    for part in ("#SBATCH --requeue", "#SBATCH --signal=B:USR1@", "#SBATCH --open-mode=append",
                 'scontrol requeue "$SLURM_JOB_ID"', "trap "):
        assert part in text


@pytest.mark.parametrize("gpus", [1, 2, 3, 4])
def test_on_two_simulated_nodes_each_rank_gets_its_own_gpu_or_the_script_refuses(monkeypatch, gpus):
    """What lesson 12's 2 nodes x 2 ranks see on a machine with `gpus` GPUs: the launcher's disjoint
    GPU sets, and the take-home setup(): nccl on a GPU no other rank uses, or a clear error (--cpu)."""
    monkeypatch.delenv("CUDA_VISIBLE_DEVICES", raising=False)
    monkeypatch.setattr(launch._backend, "gpu_count", lambda: gpus)
    take_home = runpy.run_path(str(SCRIPT))
    joined, used = [], []
    monkeypatch.setattr(torch.cuda, "set_device", lambda device: None)
    monkeypatch.setattr(torch.distributed, "init_process_group", lambda backend, **kw: joined.append(backend))
    for visible in launch._split_gpus(nproc=2, nnodes=2):
        ids = [gpu for gpu in visible.split(",") if gpu]
        monkeypatch.setattr(torch.cuda, "device_count", lambda: len(ids))
        for local_rank in range(2):
            monkeypatch.setenv("LOCAL_RANK", str(local_rank))
            monkeypatch.setenv("LOCAL_WORLD_SIZE", "2")
            joined.clear()
            if len(ids) >= 2:
                device = take_home["setup"](cpu=False)
                assert joined == ["nccl"] and device == torch.device("cuda", local_rank)
                used.append(ids[device.index])  # the machine's GPU behind this node's cuda:N
            else:
                with pytest.raises(RuntimeError, match=f"2 ranks on this machine but {len(ids)} GPU.*--cpu"):
                    take_home["setup"](cpu=False)
                assert joined == []  # no silent fallback to the CPU
            joined.clear()
            assert take_home["setup"](cpu=True) == torch.device("cpu") and joined == ["gloo"]
    assert sorted(used) == (["0", "1", "2", "3"] if gpus >= 4 else [])  # never one GPU for two ranks


@pytest.mark.slow
@pytest.mark.extended  # lesson 12, which make test runs, crashes and restarts this script under torchrun too
def test_plain_torchrun_restarts_a_crashed_rank_and_ends_with_the_launchers_weights(tmp_path):
    command = [sys.executable, "-m", "torch.distributed.run", "--standalone", "--nproc_per_node", "2",
               "--max-restarts", "2", str(SCRIPT), *ARGS, "--snapshot", str(tmp_path / "crashed.pt"),
               "--crash-epoch", "1"]
    agent = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
                             cwd=tmp_path, env={**os.environ, "OMP_NUM_THREADS": "1",
                                                 "TORCH_DISABLE_SHARE_RDZV_TCP_STORE": "1"})
    tree = processes.Tree()
    tree.scan(agent.pid)
    try:
        output, _ = agent.communicate(timeout=240)
    finally:
        tree.kill([agent.pid])
    assert agent.returncode == 0, output[-3000:]
    assert "injected crash: rank 1, epoch 1" in output, output
    assert "restart 1, starting at epoch 1" in output, output
    crashed = torch.load(tmp_path / "crashed.pt", weights_only=True)
    assert crashed["epoch"] == 2 and f"final checksum: {crashed['checksum']}" in output

    clean = launch.run_torchrun(SCRIPT, nproc=2, threads_per_rank=1, echo=False, timeout=180,
                                args=[*ARGS, "--snapshot", str(tmp_path / "clean.pt")],
                                run_dir=tmp_path / "run")
    assert clean.restarts == 0
    assert torch.load(tmp_path / "clean.pt", weights_only=True)["checksum"] == crashed["checksum"]


@pytest.mark.parametrize("name", ["train_ddp.py", "train_ddp.sbatch"])
def test_lesson_12_writes_exactly_the_example_files(name):
    lesson = Path(__file__).parent.parent / "notebooks" / "12_to_the_cluster.ipynb"
    assert written_script(lesson, f"scripts/{name}") == (EXAMPLES / name).read_text(), (
        f"notebooks/12_to_the_cluster.ipynb's %%writefile scripts/{name} cell and examples/{name} differ: "
        "edit examples/ and paste the file into the cell (one source)")


@pytest.mark.parametrize("name", ["train_ddp.py", "train_ddp.sbatch"])
def test_the_spanish_lesson_12_writes_exactly_the_spanish_example_files(name):
    lesson = Path(__file__).parent.parent / "notebooks" / "es" / "12_to_the_cluster.ipynb"
    assert written_script(lesson, f"scripts/{name}") == (EDITIONS["es"] / name).read_text(), (
        f"notebooks/es/12_to_the_cluster.ipynb's %%writefile scripts/{name} cell and examples/es/{name} differ: "
        "run make translations, then .venv/bin/python tools/write_examples_es.py")


def printed_lines(script: Path) -> list[re.Pattern]:
    """What the script's print(...) calls can print, one pattern per call in the file's order (an f-string's
    fields match any text)."""
    calls = sorted((node for node in ast.walk(ast.parse(script.read_text())) if isinstance(node, ast.Call)
                    and getattr(node.func, "id", None) == "print"), key=lambda node: node.lineno)
    return [re.compile("".join(re.escape(part.value) if isinstance(part, ast.Constant) else ".+?"
                               for part in getattr(call.args[0], "values", call.args)) + "$") for call in calls]


def echoed_lines(sbatch: Path) -> list[re.Pattern]:
    """What the batch script's echo "..." commands can print, in the file's order ($VARIABLES: any text)."""
    return [re.compile("".join(re.escape(part) if i % 2 == 0 else ".+?"
                               for i, part in enumerate(re.split(r"(\$\{[^}]*\}|\$\w+)", text))) + "$")
            for text in re.findall(r'echo "([^"]*)"', sbatch.read_text())]


@pytest.mark.parametrize("lang", EDITIONS)
def test_the_stored_slurm_job_printed_what_the_current_files_print(lang):
    """Lesson 12 shows ddp_lessons/data/slurm_job_example.LANG.json where no SLURM cluster answers: the job
    of today's files in that language (`tools/store_slurm_example.py --lang LANG` stores it again)."""
    stored = json.loads((EXAMPLES.parent / "ddp_lessons" / "data" / f"slurm_job_example.{lang}.json").read_text())
    lines = stored["output"].splitlines()

    def count(pattern):
        return sum(bool(pattern.match(line)) for line in lines)

    stopped, epoch, started, final = map(count, printed_lines(EDITIONS[lang] / "train_ddp.py"))
    requeued, job_started = map(count, echoed_lines(EDITIONS[lang] / "train_ddp.sbatch"))
    epochs = int(stored["submitted"].split("--epochs ")[1].split()[0])
    assert (stopped, epoch, started, final) == (1, epochs, 2, 1), (lang, stored["output"])
    assert (requeued, job_started) == (1, 2), (lang, stored["output"])
    assert stored["language"] == lang
