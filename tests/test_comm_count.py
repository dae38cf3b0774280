"""comm_count.Collectives counts the c10d collectives a rank runs and the payload bytes of each."""
import torch
import torch.distributed as dist
import torch.nn as nn
from torch.distributed.device_mesh import DeviceMesh
from torch.distributed.fsdp import fully_shard

from ddp_lessons import comm_count


def test_each_collective_is_counted_with_its_payload(group_of_one):
    with comm_count.Collectives() as comms:
        dist.all_reduce(torch.zeros(10))
        dist.all_reduce(torch.zeros(5, dtype=torch.float64))
        dist.broadcast(torch.zeros(3), src=0)
        dist.all_gather_into_tensor(torch.zeros(8), torch.zeros(8))
        dist.reduce_scatter_tensor(torch.zeros(4), torch.zeros(4))
        torch.ones(3).add_(1)  # not a collective
    assert comms.summary() == {"all_gather": {"calls": 1, "bytes": 32}, "all_reduce": {"calls": 2, "bytes": 80},
                               "broadcast": {"calls": 1, "bytes": 12}, "reduce_scatter": {"calls": 1, "bytes": 16}}


def test_nothing_is_counted_outside_the_block(group_of_one):
    with comm_count.Collectives() as comms:
        pass
    dist.all_reduce(torch.zeros(10))
    assert comms.summary() == {}


def test_fsdp2_on_one_rank_communicates_nothing(group_of_one):
    """With a single rank FSDP2 skips its all-gathers and reduce-scatters (lesson 15 counts them at 2 and 4)."""
    torch.manual_seed(0)
    model = nn.Sequential(nn.Linear(8, 16), nn.ReLU(), nn.Linear(16, 4))
    mesh = DeviceMesh.from_group(dist.group.WORLD, "cpu")
    for layer in (model[0], model[2]):
        fully_shard(layer, mesh=mesh)
    fully_shard(model, mesh=mesh)
    optimizer = torch.optim.Adam(model.parameters())
    with comm_count.Collectives() as comms:
        model(torch.randn(2, 8)).sum().backward()
        optimizer.step()
    assert comms.summary() == {}
