"""`checks.modern_loop` (exercise 17) passes a right answer and fails the wrong ones learners write, with a
hint: keys still prefixed, a name containing 'module' mangled by str.replace or a fixed slice, more processes
than cores, the same augmentation seed on every rank. Synthetic checkpoints and records, no launch."""
import pytest
import torch
from torch.nn.modules.utils import consume_prefix_in_state_dict_if_present

from ddp_lessons import checks
from ddp_lessons.checks import common

NAMES = ["encoder.submodule.weight", "encoder.submodule.bias", "encoder.norm.weight", "head.weight"]


@pytest.fixture(autouse=True)
def fresh_kernel(monkeypatch):
    """Each test fails its checks as in a fresh kernel: no hint given yet."""
    monkeypatch.setattr(common, "_given", common.Counter())


@pytest.fixture
def checkpoint(tmp_path):
    generator = torch.Generator().manual_seed(0)
    state = {f"_orig_mod.module.{name}": torch.randn(3, generator=generator) for name in NAMES}
    path = tmp_path / "checkpoint.pt"
    torch.save(state, path)
    return path


def right(state):
    consume_prefix_in_state_dict_if_present(state, "_orig_mod.")
    consume_prefix_in_state_dict_if_present(state, "module.")
    return state


def test_torchs_prefix_removal_passes_and_names_the_renaming(checkpoint, capsys):
    checks.checkpoint_keys(right, checkpoint)
    assert "'_orig_mod.module.encoder.submodule.weight' -> 'encoder.submodule.weight'" in capsys.readouterr().out
    checks.checkpoint_keys(lambda s: {k.removeprefix("_orig_mod.").removeprefix("module."): v for k, v in s.items()},
                           checkpoint)


@pytest.mark.parametrize("wrong, hint, symptom", [
    (lambda s: s, "prefix-left", "still start with a wrapper's prefix"),
    (lambda s: {k.replace("_orig_mod.", ""): v for k, v in s.items()}, "prefix-left", "'module.encoder"),
    (lambda s: {k.replace("_orig_mod.", "").replace("module.", ""): v for k, v in s.items()}, "mangled",
     "'encoder.submodule.bias' is missing and 'encoder.subbias' is not one of its names: a parameter whose own "
     "name contains 'module'"),
    (lambda s: {k.split("module.")[-1]: v for k, v in s.items()}, "mangled", "contains 'module' lost part of it"),
    (lambda s: {k[len("_orig_mod.module.") + 1:]: v for k, v in s.items()}, "mangled", "is not one of its names"),
    (lambda s: {k: v * 2 for k, v in right(s).items()}, "values", "the tensors of"),
    (lambda s: right(s).update() or None, "not-a-dict", "returned NoneType"),
])
def test_wrong_renamings_fail_with_their_hint_then_the_fix(checkpoint, wrong, hint, symptom):
    with pytest.raises(common.CheckFailed) as first:
        checks.checkpoint_keys(wrong, checkpoint)
    assert first.value.hint == hint and symptom in str(first.value) and "How to fix it" not in str(first.value)
    with pytest.raises(common.CheckFailed) as again:
        checks.checkpoint_keys(wrong, checkpoint)
    assert "How to fix it" in str(again.value)


def rows(workers=0, cores=2, shifts=((1, 2), (3, 4)), seen=None):
    return [{"rank": rank, "world_size": 2, "cores": cores, "num_workers": workers,
             "worker_processes": workers if seen is None else seen, "shifts": [list(shifts[rank])]}
            for rank in range(2)]


def test_a_pipeline_within_the_cores_with_its_own_seed_per_rank_passes(capsys):
    checks.input_pipeline(rows())
    checks.input_pipeline(rows(workers=3, cores=8))
    assert "2 ranks x (1 + 3 workers) = 8 processes on 8 core(s)" in capsys.readouterr().out


@pytest.mark.parametrize("records, hint, symptom", [
    (rows(workers=8), "oversubscribed", "2 ranks x (1 + 8 workers) = 18 processes share 2 core(s)"),
    (rows(workers=1), "oversubscribed", "= 4 processes share 2 core(s)"),
    (rows(shifts=((5, 6), (5, 6))), "same-seed", "rank 0 and rank 1 drew the same augmentations"),
    (rows(workers=3, cores=8, seen=0), "workers", "came from 0 worker process(es), not the num_workers=3"),
])
def test_starved_or_repeated_pipelines_fail_with_their_hint(records, hint, symptom):
    with pytest.raises(common.CheckFailed) as failed:
        checks.input_pipeline(records)
    assert failed.value.hint == hint and symptom in str(failed.value)
