"""The per-rank memory ledger counts each storage once: views, shared weights, DDP buckets, DTensor shards."""
import pytest
import torch
import torch.distributed as dist
import torch.nn as nn
from torch.distributed.device_mesh import DeviceMesh
from torch.distributed.fsdp import fully_shard
from torch.distributed.tensor import DTensor, Shard
from torch.nn.parallel import DistributedDataParallel as DDP

from ddp_lessons import memory, sharding


def mlp(widths=(8, 32, 16), seed=0):
    torch.manual_seed(seed)
    layers = []
    for a, b in zip(widths, widths[1:]):
        layers += [nn.Linear(a, b), nn.ReLU()]
    return nn.Sequential(*layers[:-1])


def shapes(model):
    return [tuple(p.shape) for p in model.parameters()]


def psi(model):
    return sum(p.numel() for p in model.parameters())


def test_a_tensor_and_its_views_cost_one_storage():
    ledger = memory.Ledger()
    t = torch.zeros(6, 4)
    assert ledger.add("parameters", [t, t[2:], t.t(), t.view(24)]) == 96
    assert ledger.add("gradients", [t[0]]) == 0  # already counted, in the first row that held it
    assert ledger.bytes["parameters"] == ledger.total == 96


def test_a_view_counts_its_whole_storage_not_its_own_size():
    """What a rank holds is the storage: a slice keeps all of it alive."""
    ledger = memory.Ledger()
    assert ledger.add("activations", [torch.zeros(100)[:10]]) == 400


def test_tied_weights_are_counted_once():
    model = nn.Sequential(nn.Embedding(10, 4), nn.Linear(4, 10, bias=False))
    model[1].weight = model[0].weight
    assert memory.measure(model)["parameters"] == 10 * 4 * 4


def test_a_plain_model_with_adam_after_a_step_matches_the_formula():
    model = mlp()
    optimizer = torch.optim.Adam(model.parameters())
    model(torch.randn(5, 8)).square().sum().backward()
    optimizer.step()
    rows = memory.measure(model, optimizer)
    expected = sharding.rank_bytes(shapes(model), 1, 0, "ddp")
    assert {row: rows[row] for row in expected} == expected
    assert rows["optimizer"] == 8 * psi(model) + 4 * len(shapes(model))
    assert rows["gathered"] == rows["buffers"] == rows["activations"] == 0
    assert rows["total"] == sum(rows[row] for row in memory.ROWS)
    assert "cuda_allocated" not in rows


def test_optimizer_state_by_name_shows_adams_two_moments_and_step_counters():
    model = mlp()
    optimizer = torch.optim.Adam(model.parameters())
    model(torch.randn(5, 8)).sum().backward()
    optimizer.step()
    n = psi(model)
    assert memory.optimizer_bytes_by_state(optimizer) == {"step": 4 * 4, "exp_avg": 4 * n, "exp_avg_sq": 4 * n}


def test_saved_tensors_are_the_activations_and_weights_saved_for_backward_are_not_counted_twice():
    model, batch = mlp((8, 32, 16)), 5
    with memory.SavedTensors() as saved:
        loss = model(torch.randn(batch, 8)).square().sum()
    # x (Linear 1), ReLU's output (saved by ReLU and by Linear 2: one storage), the output (square);
    # Linear 2 also saves weight.t(), a view of a parameter: already in the parameters row
    assert len(saved.tensors()) > 3
    assert memory.measure(model, saved=saved)["activations"] == 4 * batch * (8 + 32 + 16)
    loss.backward()
    assert saved.tensors() == []
    assert memory.measure(model, saved=saved)["activations"] == 0


def test_buffers_have_their_own_row():
    model = nn.BatchNorm1d(6)  # running_mean, running_var (fp32) and num_batches_tracked (int64)
    rows = memory.measure(model)
    assert rows["buffers"] == 6 * 4 * 2 + 8 and rows["parameters"] == 6 * 4 * 2


def train(model, optimizer, steps=3):
    for _ in range(steps):
        optimizer.zero_grad()
        model(torch.randn(4, 8)).square().mean().backward()
        optimizer.step()


@pytest.mark.parametrize("bucket_view", [False, True])
def test_ddp_buckets_are_seen_and_bucket_views_are_not_double_counted(group_of_one, bucket_view):
    model = DDP(mlp(), gradient_as_bucket_view=bucket_view, bucket_cap_mb=0.001)
    buckets = memory.keep_buckets(model)
    optimizer = torch.optim.Adam(model.parameters())
    train(model, optimizer)
    rows = memory.measure(model, optimizer, buckets)
    expected = sharding.rank_bytes(shapes(model), 1, 0, "ddp", bucket_view=bucket_view)
    assert {row: rows[row] for row in expected} == expected
    logged = model._get_ddp_logging_data()["rebuilt_bucket_sizes"]  # DDP's own log (a private method)
    assert sorted(b.untyped_storage().nbytes() for b in buckets.values()) == sorted(map(int, logged.split(",")))
    assert len(buckets) > 1


def test_keeping_buckets_does_what_ddp_does_without_a_hook(group_of_one):
    trained = []
    for keep in (False, True):
        model = DDP(mlp())
        if keep:
            memory.keep_buckets(model)
        torch.manual_seed(1)
        train(model, torch.optim.SGD(model.parameters(), lr=0.1))
        trained.append([p.detach().clone() for p in model.parameters()])
    assert all(torch.equal(a, b) for a, b in zip(*trained))


def test_a_dtensor_counts_its_local_shard_not_its_global_size(group_of_one):
    mesh = DeviceMesh.from_group(dist.group.WORLD, "cpu")
    padded = torch.zeros(4, 10)  # as FSDP2 stores a shard: 2 rows owned, padded to 4
    shard = DTensor.from_local(padded[:2], mesh, [Shard(0)], run_check=False, shape=(8, 10), stride=(10, 1))
    assert shard.shape == (8, 10)
    ledger = memory.Ledger()
    assert ledger.add("parameters", [shard, padded]) == 4 * 10 * 4


def test_fsdp2_on_one_rank_matches_the_formula(group_of_one):
    model = mlp((8, 32, 16))
    mesh = DeviceMesh.from_group(dist.group.WORLD, "cpu")
    for layer in model:
        if isinstance(layer, nn.Linear):
            fully_shard(layer, mesh=mesh)
    fully_shard(model, mesh=mesh)
    optimizer = torch.optim.Adam(model.parameters())
    assert all(isinstance(p, DTensor) for p in model.parameters())
    train(model, optimizer)
    rows = memory.measure(model, optimizer)
    expected = sharding.rank_bytes(shapes(model), 1, 0, "fsdp")
    assert {row: rows[row] for row in expected} == expected and rows["gathered"] == 0


def test_fsdp2_keeps_gathered_parameters_until_backward_without_resharding(group_of_one):
    mesh = DeviceMesh.from_group(dist.group.WORLD, "cpu")
    gathered = {}
    for reshard in (True, False):
        model = mlp((8, 32, 16))
        for layer in model:
            if isinstance(layer, nn.Linear):
                fully_shard(layer, mesh=mesh, reshard_after_forward=reshard)
        fully_shard(model, mesh=mesh)
        optimizer = torch.optim.Adam(model.parameters())
        with memory.SavedTensors() as saved:
            loss = model(torch.randn(4, 8)).sum()
        gathered[reshard] = memory.measure(model, optimizer, saved=saved)["gathered"]
        loss.backward()
        assert memory.measure(model, optimizer)["gathered"] == 0  # resharded after backward
    assert gathered == {True: 0, False: sharding.gathered_bytes(shapes(model), 1)}


@pytest.mark.skipif(not torch.cuda.is_available(), reason="needs a CUDA GPU")
def test_on_a_gpu_the_allocator_holds_at_least_the_ledger():
    model = mlp().cuda()
    optimizer = torch.optim.Adam(model.parameters())
    model(torch.randn(5, 8, device="cuda")).sum().backward()
    optimizer.step()
    rows = memory.measure(model, optimizer)
    assert rows["cuda_max_allocated"] >= rows["cuda_allocated"] >= rows["total"] > 0
