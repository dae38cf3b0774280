# Hidden check: device_and_backend() gives each rank its own GPU whenever a node has at least as many GPUs as ranks, even when the counts do not divide
# points: 1
from ddp_lessons.backend import placement
from ddp_lessons.i18n import choose

for gpus, ranks in ((3, 2), (6, 4), (8, 3), (5, 2), (3, 4)):
    for node in range(2):
        for local_rank in range(ranks):
            env = {"RANK": node * ranks + local_rank, "LOCAL_RANK": local_rank, "WORLD_SIZE": 2 * ranks,
                   "LOCAL_WORLD_SIZE": ranks}
            name, device, _ = placement(local_rank, ranks, gpus)
            got_device, got_name = device_and_backend(dict(env), gpus)
            assert (str(got_device), got_name) == (device, name), choose({
                "en": "a node with {gpus} GPUs and {ranks} ranks: LOCAL_RANK {local_rank} should get ({device}, "
                      "{name}), got ({got_device}, {got_name}). What matters is whether there are at least as many "
                      "GPUs as ranks on the node, not whether one count divides the other",
                "es": "un nodo con {gpus} GPU y {ranks} ranks: LOCAL_RANK {local_rank} debería recibir ({device}, "
                      "{name}), pero recibió ({got_device}, {got_name}). Lo que cuenta es si hay al menos tantas GPU "
                      "como ranks en el nodo, no si un número divide al otro"},
                gpus=gpus, ranks=ranks, local_rank=local_rank, device=device, name=name, got_device=got_device,
                got_name=got_name)
print("✓ hidden: the right device and backend on nodes with 3, 5, 6 and 8 GPUs")
