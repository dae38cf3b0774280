# Wrong answer: the GPU as the global rank modulo the node's GPU count, dist.get_rank() % torch.cuda.device_count()
# after: def forward_backward(
# visible check lets it pass because: its simulated nodes have one GPU per rank, where rank % GPUs is the local
# rank, and the launch runs on one node (on CPU ranks, with no device_ids), where the rank is the local rank
ddp_model = DDP(model, device_ids=[dist.get_rank() % torch.cuda.device_count()]) if device.type == "cuda" else DDP(model)
F.mse_loss(ddp_model(inputs), targets).backward()
