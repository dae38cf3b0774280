"""`checks.process_group` (exercise 2) passes the machine's setup and a right mean, and hints at wrong ones.

The checks get the rows a wrong script would record; the notebook's second check cell, run without
the first one's launch, says to make that launch succeed instead of failing with a NameError.
"""
from pathlib import Path

import nbformat
import pytest

from ddp_lessons import backend, checks, records
from ddp_lessons.checks import common
from ddp_lessons.tooling import exercises

SOLUTION = Path(__file__).parents[1] / "solutions" / "02_process_group.ipynb"


def setup_rows(nproc=2, **change):
    rows = []
    for rank in range(nproc):
        choice = backend.choose(local_rank=rank, local_world_size=nproc)
        value = [10.0 * rank + i for i in range(3)]
        rows.append({"rank": rank, "world": nproc, "local_rank": rank, "backend": choice.backend,
                     "device": str(choice.device), "cuda_device": choice.device.index,
                     "value_before": value, "value_after": value, "mean": [5.0, 6.0, 7.0],
                     **{k: v(rank) if callable(v) else v for k, v in change.items()}})
    return rows


def test_process_group_setup_passes_the_machines_choice():
    checks.process_group_setup(setup_rows())
    checks.mean_across_ranks(setup_rows())


def test_process_group_setup_catches_a_hard_coded_backend_and_a_wrong_device(fails_with):
    wrong = "nccl" if backend.gpu_count() < 2 else "gloo"
    with fails_with("pass backend.choose().backend to init_process_group, not a fixed name"):
        checks.process_group_setup(setup_rows(backend=wrong))
    with fails_with("take the device from backend.choose(local_rank)"):
        checks.process_group_setup(setup_rows(device="cuda:7"))
    with fails_with("expected one 'setup' record from each rank 0..1"):
        checks.process_group_setup(setup_rows()[:1])


@pytest.mark.parametrize("change, hint", [
    (dict(mean=[10.0, 12.0, 14.0]), "all_reduce sums by default; divide by dist.get_world_size()"),
    (dict(mean=lambda rank: [10.0 * rank + i for i in range(3)]), "got back its own value"),
    (dict(value_after=lambda rank: [10.0, 12.0, 14.0]), "reduce a copy (value.clone())"),
])
def test_mean_across_ranks_catches(change, hint, fails_with):
    with fails_with(hint):
        checks.mean_across_ranks(setup_rows(**change))


def test_mean_check_after_a_failed_launch_says_the_launch_must_succeed_first(fails_with):
    first, second = exercises.check_cells(nbformat.read(SOLUTION, as_version=4))[:2]
    assert "run = launch.run_torchrun(" in first.source  # a failed launch leaves `run` undefined
    with fails_with("the launch in the check cell above must succeed first"):
        exec(second.source, {"checks": checks, "records": records})


@pytest.mark.parametrize("gpus, nproc, says", [
    (0, 2, "2 ranks joined with gloo, all on the CPU (each a process of its own)"),
    (1, 2, "2 ranks joined with gloo, ranks 0, 1 share cuda:0"),
    (2, 2, "2 ranks joined with nccl, each on its own device: cuda:0, cuda:1"),
    (2, 3, "3 ranks joined with gloo, ranks 0, 2 share cuda:0; rank 1 on cuda:1"),
    (4, 4, "4 ranks joined with nccl, each on its own device: cuda:0, cuda:1, cuda:2, cuda:3"),
])
def test_setup_check_says_which_ranks_share_a_device(monkeypatch, capsys, gpus, nproc, says):
    monkeypatch.setattr(backend, "gpu_count", lambda: gpus)
    checks.process_group_setup(setup_rows(nproc), nproc)
    assert says in capsys.readouterr().out


SETUP_HEAD = "import os\nimport torch\nimport torch.distributed as dist\nfrom ddp_lessons import backend\n\n"
RIGHT_SETUP = SETUP_HEAD + """def setup():
    choice = backend.choose(int(os.environ["LOCAL_RANK"]))
    if choice.device.type == "cuda":
        torch.cuda.set_device(choice.device)
    dist.init_process_group(backend=choice.backend, device_id=choice.device_id)
    return choice.device
"""


def write_setup(tmp_path, source):
    path = tmp_path / "setup_script.py"
    path.write_text(source)
    return str(path)


def test_setup_on_simulated_gpus_passes_the_right_setup(tmp_path, capsys):
    checks.setup_on_simulated_gpus(write_setup(tmp_path, RIGHT_SETUP))
    assert "as rank 3 (LOCAL_RANK 1) on the second of 2 simulated nodes, setup() sets cuda:1" in capsys.readouterr().out
    checks.setup_on_simulated_gpus(write_setup(tmp_path, RIGHT_SETUP.replace('int(os.environ["LOCAL_RANK"])', "")))
    checks.setup_on_simulated_gpus(write_setup(tmp_path, RIGHT_SETUP.replace('choose(int(', 'choose(local_rank=int(')))


@pytest.mark.parametrize("source, hint, symptom, fix", [
    (RIGHT_SETUP.replace('os.environ["LOCAL_RANK"]', 'os.environ["RANK"]'), "global-rank",
     "setup() asked backend.choose for the device of rank 3: that node's GPUs are cuda:0 to cuda:1", "not by RANK"),
    (RIGHT_SETUP.replace("backend=choice.backend", 'backend="gloo"'), "fixed-backend",
     "setup() joined with 'gloo', not the 'nccl' a GPU per rank calls for", "not a fixed name"),
    (RIGHT_SETUP.replace("        torch.cuda.set_device(choice.device)\n", "        pass\n"), "no-set-device",
     "setup() never made its GPU current: every rank of the node would use cuda:0",
     "call torch.cuda.set_device(choice.device) before init_process_group"),
    (RIGHT_SETUP.replace("torch.cuda.set_device(choice.device)", "torch.cuda.set_device(0)"), "wrong-gpu",
     "setup() made cuda:0 current, not cuda:1", "torch.cuda.set_device(choice.device)"),
    (SETUP_HEAD + """def setup():
    choice = backend.choose(int(os.environ["LOCAL_RANK"]))
    dist.init_process_group(backend=choice.backend)
    torch.cuda.set_device(choice.device)
    return choice.device
""", "late-set-device", "setup() made its GPU current only after init_process_group",
     "nccl binds the group to the current device"),
], ids=["rank-not-local-rank", "fixed-gloo", "no-set-device", "set-device-0", "set-device-late"])
def test_setup_on_simulated_gpus_names_the_symptom_then_the_fix(tmp_path, source, hint, symptom, fix, monkeypatch):
    monkeypatch.setattr(common, "_given", common.Counter())
    script = write_setup(tmp_path, source)
    with pytest.raises(common.CheckFailed) as first:
        checks.setup_on_simulated_gpus(script)
    assert first.value.hint == hint and symptom in str(first.value) and fix not in str(first.value), str(first.value)
    assert "as rank 3 (LOCAL_RANK 1) on node 1 of a simulated job of 2 nodes with 2 GPUs each" in str(first.value)
    with pytest.raises(common.CheckFailed, match="How to fix it: ") as second:
        checks.setup_on_simulated_gpus(script)
    assert fix in str(second.value)
