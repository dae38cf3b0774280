"""`checks.restartable` (exercise 12): its verdict, computed from the records of the two runs, passes the
solution and fails each wrong answer learners write with its own hint, the symptom first and the fix on a
second failure: a snapshot written or copied in place, no barrier after rank 0's write (or only before it),
every rank saving, no new shuffle per epoch, DDP's own state dict loaded into the plain model, torch.load
without weights_only or map_location (or a fixed cuda:N), a resume at the start of the job or of the epoch,
a resumed epoch in epoch 0's order, one batch trained twice or skipped, steps numbered from 0 again, the
optimizer's state lost.

The records are made here without torchrun: the given loop of the exercise's script, run over a real
`DistributedSampler` and `DataLoader` per rank with each wrong `epoch_batches` and `load_snapshot`, and
the runner's observed snapshot I/O written as it records it. Real runs of broken scripts under the
packaged runner ``scripts/crash_during_snapshot.py``: one in `make test` (a snapshot written in place),
the others `extended`; the solution itself passes in tests/test_grading.py.
"""
import itertools
import re

import pytest
import torch
from torch.utils.data import DataLoader, TensorDataset
from torch.utils.data.distributed import DistributedSampler

from ddp_lessons import checks
from ddp_lessons.checks import common, restart

SIZE, BATCH, EPOCHS, EVERY, NPROC = 256, 16, 4, 3, 2  # the exercise script's, and the check's defaults
DATA = TensorDataset(torch.arange(SIZE))


@pytest.fixture(autouse=True)
def fresh_kernel(monkeypatch):
    """Each test fails its checks as in a fresh kernel: no hint given yet."""
    monkeypatch.setattr(common, "_given", common.Counter())


# epoch_batches(loader, epoch, first_step) as learners write it
def solution(loader, epoch, first_step):
    loader.sampler.set_epoch(epoch)
    return itertools.islice(enumerate(loader), first_step, None)


def no_set_epoch(loader, epoch, first_step):
    return itertools.islice(enumerate(loader), first_step, None)


def set_epoch_at_epoch_start(loader, epoch, first_step):  # "a new epoch needs a new shuffle"
    if first_step == 0:
        loader.sampler.set_epoch(epoch)
    return itertools.islice(enumerate(loader), first_step, None)


def not_skipped(loader, epoch, first_step):
    loader.sampler.set_epoch(epoch)
    return enumerate(loader)


def skip_one_less(loader, epoch, first_step):
    loader.sampler.set_epoch(epoch)
    return itertools.islice(enumerate(loader), max(first_step - 1, 0), None)


def skip_one_more(loader, epoch, first_step):
    loader.sampler.set_epoch(epoch)
    return itertools.islice(enumerate(loader), first_step + 1 if first_step else 0, None)


def numbered_from_0(loader, epoch, first_step):
    loader.sampler.set_epoch(epoch)
    return enumerate(itertools.islice(loader, first_step, None))


def train(epoch_batches, rank, start=(0, 0), killed_at=None):
    """One rank's process running the script's given loop from `start` (what load_snapshot returned): its
    'trained' record; with `killed_at`, it stops where it would write that snapshot (counting from 0)."""
    sampler = DistributedSampler(DATA, num_replicas=NPROC, rank=rank, shuffle=True, seed=0)
    loader = DataLoader(DATA, batch_size=BATCH, sampler=sampler)
    trained, saved_at = [], []
    epoch, step = start
    while epoch < EPOCHS:
        for step, (index,) in epoch_batches(loader, epoch, step):
            trained.append([epoch, step, index.tolist()])
            done = step + 1
            if done == len(loader) or done % EVERY == 0:
                if len(saved_at) == killed_at:
                    return None
                saved_at.append((epoch + 1, 0) if done == len(loader) else (epoch, done))
        epoch, step = epoch + 1, 0
    return {"rank": rank, "batches": trained, "saved_at": saved_at}


def snapshot_io(snapshots, rank0=("save", "snapshot", "barrier"), others=("barrier",), writes=(),
                loads=None, device="cpu", module_keys=(), every_rank_saves=False):
    """The runner's 'snapshot-io' records of a run with `snapshots` snapshots: rank 0's events per
    snapshot `rank0` (a torch.save to a temporary file, the rename onto the path, a barrier), the others'
    `others`; `loads` each rank's torch.load calls ('{rank}' in a map_location: the rank's number)."""
    rows = []
    for rank in range(NPROC):
        events = list(rank0 if rank == 0 else others) * snapshots
        saves = ["/run/snapshot.pt.tmp"] * events.count("save")
        if every_rank_saves:
            events, saves = list(rank0) * snapshots, ["/run/snapshot.pt.tmp"] * snapshots
        rows.append({"rank": rank, "saves": saves, "barriers": events.count("barrier"), "events": events,
                     "snapshot_writes": list(writes) * snapshots if rank == 0 else [],
                     "loads": [{**load, "map_location": load["map_location"].format(rank=rank)} for load in loads or []],
                     "module_keys": list(module_keys),
                     "device": device[rank] if isinstance(device, list) else device})
    return rows


LOAD = {"path": "/run/snapshot.pt", "weights_only": True, "map_location": "cpu"}


def verdict(epoch_batches=solution, position_loaded=lambda position: position, io0=None, loads=(LOAD,),
            device="cpu", checksum="ab12", failure=None, module_keys=(), crash_at=None):
    """Judge a run of the script whose epoch_batches is `epoch_batches` and whose load_snapshot returns
    `position_loaded(snapshot's position)`, as `checks.restartable` judges it from the records."""
    clean = [train(epoch_batches, rank) for rank in range(NPROC)]
    io0 = io0 or snapshot_io(len(clean[0]["saved_at"]), module_keys=module_keys)
    saved_at = restart.uninterrupted_verdict(io0, clean, NPROC)
    crashes = restart.mid_epoch_crashes(saved_at)
    crash_at = crashes[-1] if crash_at is None else crash_at
    position = saved_at[crash_at - 1]
    assert all(train(epoch_batches, rank, killed_at=crash_at) is None for rank in range(NPROC))
    start = position_loaded(position)
    resumed = [train(epoch_batches, rank, start) for rank in range(NPROC)]
    attempts = [{"rank": rank, "first_epoch": start[0], "first_step": start[1]} for rank in range(NPROC)]
    io1 = snapshot_io(len(resumed[0]["saved_at"]), loads=loads, device=device)
    finals = [{"rank": rank, "checksum": checksum} for rank in range(NPROC)]
    restart.resumed_verdict(clean, position, attempts, resumed, io1, finals, "ab12", io0[0]["module_keys"],
                            failure, NPROC)
    return saved_at, position


def test_the_solution_passes_wherever_rank_0_is_killed():
    clean = [train(solution, rank) for rank in range(NPROC)]
    saved_at = [tuple(p) for p in clean[0]["saved_at"]]
    assert saved_at[:3] == [(0, 3), (0, 6), (1, 0)] and len(saved_at) == EPOCHS * 3
    crashes = restart.mid_epoch_crashes(saved_at)
    assert [saved_at[k - 1] for k in crashes] == [(e, s) for e in (1, 2, 3) for s in (3, 6)]
    for crash_at in crashes:
        verdict(crash_at=crash_at)
    verdict(device=["cuda:0", "cuda:1"], loads=({**LOAD, "map_location": "cuda:{rank}"},))  # each on its own GPU


def test_the_records_tell_epochs_apart():
    """What the verdict compares is real: a DistributedSampler's epochs differ, ranks differ, and the
    wrong epoch_batches below train other batches than the solution's after a resume at (2, 3)."""
    def after_restart(epoch_batches):
        return [train(epoch_batches, rank, (2, 3)) for rank in range(NPROC)]
    right = after_restart(solution)
    assert right[0]["batches"][0][:2] == [2, 3] and right[0]["batches"][0][2] != right[1]["batches"][0][2]
    for wrong in (no_set_epoch, set_epoch_at_epoch_start, not_skipped, skip_one_less, skip_one_more,
                  numbered_from_0):
        assert after_restart(wrong) != right, wrong.__name__


def rename_then(*events):
    return ("save", "snapshot", *events)


WRONG = [
    ("torch.save onto the path", dict(io0=lambda n: snapshot_io(n, rank0=("save", "snapshot", "barrier"),
                                                                writes=("torch.save",))),
     "in-place", "rank 0 wrote straight into the snapshot's path (torch.save)", "os.replace(tmp, path)"),
    ("shutil.copy onto the path", dict(io0=lambda n: snapshot_io(n, rank0=("save", "snapshot", "barrier"),
                                                                 writes=("open(..., 'wb')",))),
     "copied-in-place", "rank 0 wrote straight into the snapshot's path (open(..., 'wb'))",
     "neither with torch.save nor with a copy"),
    ("every rank saves", dict(io0=lambda n: snapshot_io(n, every_rank_saves=True)),
     "every-rank-saves", "rank 1 saved too", "only rank 0 writes the snapshot"),
    ("no barrier", dict(io0=lambda n: snapshot_io(n, rank0=("save", "snapshot"), others=())),
     "no-barrier", "save_snapshot returned on the other ranks before rank 0 had finished writing snapshot 1 of 12",
     "end save_snapshot with dist.barrier() on every rank, after rank 0's write"),
    ("a barrier before the save only", dict(io0=lambda n: snapshot_io(n, rank0=("barrier", "save", "snapshot"))),
     "no-barrier", "before rank 0 had finished writing snapshot 12 of 12", "after rank 0's write and rename"),
    ("a barrier between the save and the rename",
     dict(io0=lambda n: snapshot_io(n, rank0=("save", "barrier", "snapshot"))),
     "no-barrier", "before rank 0 had finished writing snapshot 1 of 12", "after rank 0's write and rename"),
    ("no set_epoch", dict(epoch_batches=no_set_epoch),
     "same-order", "in the uninterrupted run rank 0 trained epochs 0 and 1 with the same batches in the same order",
     "call loader.sampler.set_epoch(epoch) in epoch_batches"),
    ("set_epoch only when an epoch starts", dict(epoch_batches=set_epoch_at_epoch_start),
     "no-set-epoch-on-resume", "after the restart rank 0 trained epoch 3 with the batches epoch 0 has at those steps",
     "also when it resumes in the middle of an epoch"),
    ("ddp_model.state_dict() loaded into the plain model",
     dict(module_keys=("module.0.weight", "module.0.bias"), failure="Error(s) in loading state_dict for Sequential"),
     "module-prefix", "its weights are named module.0.weight, module.0.bias..., with the 'module.' of the DDP wrapper",
     "save ddp_model.module.state_dict()"),
    ("ddp_model.state_dict() loaded with strict=False", dict(module_keys=("module.0.weight", "module.0.bias"),
                                                              checksum="ffff"),
     "module-prefix", "its weights are named module.0.weight, module.0.bias...", "save ddp_model.module.state_dict()"),
    ("the restarted job fails otherwise", dict(failure="rank 0 failed: KeyError: 'step'"),
     "restart-failed", "the restarted job failed:\nrank 0 failed: KeyError: 'step'",
     "run the script twice with the same --snapshot"),
    ("no weights_only", dict(loads=({**LOAD, "weights_only": None},)),
     "weights-only", "rank 0's torch.load may run code from the file", "weights_only=True"),
    ("weights_only=False", dict(loads=({**LOAD, "weights_only": False},)),
     "weights-only", "rank 0's torch.load may run code from the file", "weights_only=True"),
    ("no map_location", dict(loads=({**LOAD, "map_location": "None"},)),
     "map-location-missing", "rank 0 loads the tensors onto the device rank 0 saved them from",
     "the rank's own device that load_snapshot receives"),
    ("map_location='cuda:0' on every rank", dict(device=["cuda:0", "cuda:1"], loads=({**LOAD, "map_location": "cuda:0"},)),
     "map-location-fixed", "rank 1 loads the tensors onto cuda:0, a device written into the code, while its own "
     "device is cuda:1", "not a fixed cuda:N"),
    ("resumed at the start of the job", dict(position_loaded=lambda position: (0, 0)),
     "started-over", "the restarted job began again at epoch 0, step 0, though the last complete snapshot held "
     "epoch 3 after 6 steps", "returns the position it holds"),
    ("the step not kept: resumed at the start of the epoch", dict(position_loaded=lambda position: (position[0], 0)),
     "epoch-start", "the restarted job began at step 0 of epoch 3, but the last complete snapshot was taken after 6 "
     "steps of it", "keep the step in the snapshot"),
    ("the batches before first_step not left out", dict(epoch_batches=not_skipped),
     "batches-not-skipped", "after the restart rank 0 trained epoch 3 from its first batch again, though the snapshot "
     "already held 6 steps of it", "leave out the first first_step batches"),
    ("one step too few left out", dict(epoch_batches=skip_one_less),
     "trained-twice", "after the restart rank 0 trained the batch of epoch 3, step 5 again", "adds or takes away one"),
    ("load_snapshot returns step - 1", dict(position_loaded=lambda position: (position[0], position[1] - 1)),
     "trained-twice", "after the restart rank 0 trained the batch of epoch 3, step 5 again", "adds or takes away one"),
    ("one step too many left out", dict(epoch_batches=skip_one_more),
     "skipped", "after the restart rank 0 went on with the batch of epoch 3, step 7: the batch of step 6",
     "adds or takes away one"),
    ("load_snapshot returns step + 1", dict(position_loaded=lambda position: (position[0], position[1] + 1)),
     "skipped", "the batch of step 6, the first one the snapshot did not hold, was never trained",
     "adds or takes away one"),
    ("steps numbered from 0 after the skip", dict(epoch_batches=numbered_from_0),
     "numbering", "after the restart rank 0 trained the right batch but numbered it epoch 3, step 0, not epoch 3, "
     "step 6", "is step first_step, not 0"),
    ("the optimizer's state not kept", dict(checksum="ffff"),
     "other-weights", "rank 0 resumed at the right step with the right batches but ended with other weights than "
     "the uninterrupted run (ffff != ab12)", "optimizer.load_state_dict"),
]


@pytest.mark.parametrize("wrong, hint, symptom, fix", [w[1:] for w in WRONG], ids=[w[0] for w in WRONG])
def test_each_wrong_answer_gets_its_symptom_then_its_fix(wrong, hint, symptom, fix):
    def judge():
        kwargs = dict(wrong)
        if callable(kwargs.get("io0")):
            snapshots = len(train(kwargs.get("epoch_batches", solution), 0)["saved_at"])
            kwargs["io0"] = kwargs["io0"](snapshots)
        verdict(**kwargs)

    with pytest.raises(common.CheckFailed, match=re.escape(symptom)) as first:
        judge()
    assert first.value.hint == hint and fix not in str(first.value) and "How to fix it" not in str(first.value)
    with pytest.raises(common.CheckFailed, match=re.escape("How to fix it: ")) as second:
        judge()
    assert second.value.hint == hint and second.value.fix_shown and fix in str(second.value)


def test_a_hint_reads_in_spanish_in_a_spanish_notebook(monkeypatch):
    monkeypatch.setenv("DDP_LESSONS_LANG", "es")
    with pytest.raises(common.CheckFailed) as info:
        verdict(epoch_batches=set_epoch_at_epoch_start)
    assert str(info.value).startswith("después del reinicio, el rank 0 entrenó la época 3 con los lotes")


SAVE_TMP = 'torch.save(snapshot, f"{path}.tmp")'
RENAME = 'os.replace(f"{path}.tmp", path)'
BARRIER = "    dist.barrier()  # no rank goes on"
EXTENDED = pytest.mark.extended  # a real run each: make test runs one case, make test-extended every one


@pytest.mark.slow
@pytest.mark.parametrize("replace, hint", [
    pytest.param({SAVE_TMP: "torch.save(snapshot, path)", RENAME: "pass"},
                 "rank 0 wrote straight into the snapshot's path (torch.save)", id="in-place"),
    pytest.param({"import itertools\n": "import itertools\nimport shutil\n", RENAME: 'shutil.copy(f"{path}.tmp", path)'},
                 "rank 0 wrote straight into the snapshot's path (open(..., 'wb'))", id="copied-into-place",
                 marks=EXTENDED),
    pytest.param({BARRIER: "    pass  # no rank goes on", "    if dist.get_rank() == 0:\n        snapshot =":
                  "    dist.barrier()\n    if dist.get_rank() == 0:\n        snapshot ="},
                 "before rank 0 had finished writing snapshot 12 of 12", id="barrier-before-the-save", marks=EXTENDED),
    pytest.param({'"model": ddp_model.module.state_dict()': '"model": ddp_model.state_dict()'},
                 "its weights are named module.0.weight, module.0.bias..., with the 'module.' of the DDP wrapper",
                 id="ddp-state-dict", marks=EXTENDED),
    pytest.param({"map_location=device, ": ""}, "loads the tensors onto the device rank 0 saved them from",
                 id="no-map-location", marks=EXTENDED),
    pytest.param({'return snapshot["epoch"], snapshot["step"]': 'return snapshot["epoch"], 0'},
                 "the restarted job began at step 0 of epoch", id="resume-at-epoch-start", marks=EXTENDED),
    pytest.param({"    loader.sampler.set_epoch(epoch)": "    if first_step == 0:\n        loader.sampler.set_epoch(epoch)"},
                 "with the batches epoch 0 has at those steps", id="set-epoch-only-at-epoch-start", marks=EXTENDED),
])
def test_restartable_catches_a_real_broken_script(tmp_path, monkeypatch, replace, hint, fails_with, solution_script):
    monkeypatch.chdir(tmp_path)
    with fails_with(hint):
        checks.restartable(solution_script("12_restartable", "12_restartable.py", replace))
