# Hidden check: forward_backward() gives DDP the rank's own GPU on nodes with more GPUs than ranks (2 ranks on each of 2 nodes with 4 GPUs)
# points: 1
from ddp_lessons.checks.gradients import ddp_device_ids
from ddp_lessons.i18n import choose

for rank, got in enumerate(ddp_device_ids("scripts/04_wrap.py", nodes=2, ranks_per_node=2, gpus_per_node=4)):
    local_rank = rank % 2
    assert got in ([local_rank], None), choose({
        "en": "2 nodes with 4 GPUs each, 2 ranks per node (torchrun --nproc_per_node=2): rank {rank} (LOCAL_RANK "
              "{local_rank}, its model on cuda:{local_rank}) asked DDP for GPU(s) {got}. A rank's GPU is the one "
              "its model is on, the device setup() chose from LOCAL_RANK, whatever number of GPUs the node has",
        "es": "2 nodos con 4 GPU cada uno, 2 ranks por nodo (torchrun --nproc_per_node=2): el rank {rank} "
              "(LOCAL_RANK {local_rank}, con su modelo en cuda:{local_rank}) pidió a DDP la(s) GPU {got}. La GPU "
              "de un rank es aquella en la que está su modelo, el dispositivo que setup() eligió a partir de "
              "LOCAL_RANK, tenga el nodo las GPU que tenga"},
        rank=rank, local_rank=local_rank, got=got)
print("✓ hidden: the rank's own GPU on nodes with more GPUs than ranks")
