"""Weight checksums: equal exactly when the weights are bit-identical, whatever wraps them."""
import pytest
import torch
import torch.distributed as dist
from torch.nn.parallel import DistributedDataParallel as DDP

from ddp_lessons.checksums import state_checksum


def model(seed=0):
    torch.manual_seed(seed)
    return torch.nn.Sequential(torch.nn.Linear(4, 3), torch.nn.ReLU(), torch.nn.Linear(3, 1))


def test_same_weights_give_the_same_checksum_and_any_change_another():
    a, b = model(0), model(0)
    assert state_checksum(a) == state_checksum(b)
    with torch.no_grad():
        b[0].weight[0, 0] = torch.nextafter(b[0].weight[0, 0], torch.tensor(1.0))  # one ulp
    assert state_checksum(a) != state_checksum(b)
    assert state_checksum(model(0)) != state_checksum(model(1))


def test_module_its_state_dict_and_a_saved_copy_agree(tmp_path):
    net = model()
    torch.save(net.state_dict(), tmp_path / "w.pt")
    loaded = torch.load(tmp_path / "w.pt", weights_only=True)
    assert state_checksum(net) == state_checksum(net.state_dict()) == state_checksum(loaded)


def test_ddp_wrapper_and_its_module_agree(tmp_path):
    """Keys differ ('module.0.weight' vs '0.weight') but the weights are the same."""
    store = dist.FileStore(str(tmp_path / "store"), 1)
    dist.init_process_group("gloo", store=store, rank=0, world_size=1)
    try:
        wrapped = DDP(model())
        assert list(wrapped.state_dict())[0].startswith("module.")
        assert state_checksum(wrapped) == state_checksum(wrapped.module) == state_checksum(model())
    finally:
        dist.destroy_process_group()


def test_dtype_and_shape_count_not_just_bytes():
    zeros = torch.zeros(4, dtype=torch.int32)
    assert state_checksum({"w": zeros}) != state_checksum({"w": zeros.view(2, 2)})
    assert state_checksum({"w": zeros}) != state_checksum({"w": zeros.view(torch.float32)})


def test_length_and_non_tensors():
    assert len(state_checksum(model(), length=8)) == 8
    assert all(c in "0123456789abcdef" for c in state_checksum(model()))
    with pytest.raises(TypeError, match="'epoch' is a int"):
        state_checksum({"epoch": 3})
