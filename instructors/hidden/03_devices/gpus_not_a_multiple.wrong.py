# Wrong answer: "every rank gets its own GPU" written as "the GPUs divide evenly among the ranks" (gpus % ranks == 0)
# after: def device_and_backend(
# visible check lets it pass because: it tries nodes with 0, 1, 2 and 4 GPUs and 1, 2 or 4 ranks, where
# gpus >= ranks and gpus % ranks == 0 always agree
local_rank, ranks_here = env["LOCAL_RANK"], env["LOCAL_WORLD_SIZE"]
if gpus == 0:
    return "cpu", "gloo"
if gpus % ranks_here == 0:
    return f"cuda:{local_rank}", "nccl"
return f"cuda:{local_rank % gpus}", "gloo"
