# Hidden check: mean_across_ranks() divides by the world size the job has: 3 ranks on one node, 4 ranks on 2 nodes of 2 (run in the kernel, all_reduce simulated)
# points: 1
import os
from unittest import mock

import torch
import torch.distributed as dist

from ddp_lessons import scripts
from ddp_lessons.i18n import choose

mean_across_ranks = scripts.load_module("scripts/02_setup.py", "hidden_02_setup").mean_across_ranks


def hidden_means(world, per_node):
    """Each rank's mean_across_ranks of [0, 1, 2] + 10·rank, with all_reduce simulated for `world` ranks."""
    values = [torch.arange(3.0) + 10 * rank for rank in range(world)]
    means = []
    for rank in range(world):

        def all_reduce(tensor, op=dist.ReduceOp.SUM, *args, **kwargs):
            total = torch.stack(values).sum(0)
            tensor.copy_(total / world if op == dist.ReduceOp.AVG else total)

        environment = {"RANK": str(rank), "WORLD_SIZE": str(world), "LOCAL_RANK": str(rank % per_node),
                       "LOCAL_WORLD_SIZE": str(per_node), "GROUP_RANK": str(rank // per_node)}
        with mock.patch.dict(os.environ, environment), \
                mock.patch.object(dist, "all_reduce", all_reduce), \
                mock.patch.object(dist, "get_world_size", lambda *args, **kwargs: world), \
                mock.patch.object(dist, "get_rank", lambda *args, **kwargs: rank):
            means.append(mean_across_ranks(values[rank].clone()).tolist())
    return means


for world, per_node in ((3, 3), (4, 2)):
    wanted = (torch.arange(3.0) + 10 * (world - 1) / 2).tolist()
    got = hidden_means(world, per_node)
    assert all(torch.allclose(torch.tensor(mean), torch.tensor(wanted)) for mean in got), choose({
        "en": "on {world} ranks ({nodes} node(s) of {per_node}) mean_across_ranks gave {got}, not the mean "
              "{wanted} on every rank. The check cell launches 2 ranks on one machine; divide the sum by the "
              "number of ranks of the whole job, dist.get_world_size(), not by 2 or by the ranks of one node",
        "es": "con {world} ranks ({nodes} nodo(s) de {per_node}) mean_across_ranks dio {got}, no la media "
              "{wanted} en cada rank. La celda de comprobación lanza 2 ranks en una máquina; divida la suma "
              "entre el número de ranks de todo el trabajo, dist.get_world_size(), no entre 2 ni entre los "
              "ranks de un nodo"},
        world=world, nodes=world // per_node, per_node=per_node, got=got, wanted=wanted)
print("✓ hidden: the mean over 3 ranks, and over 4 ranks on 2 nodes")
