# Wrong answer: device_ids=[rank % torch.cuda.device_count()], the global rank wrapped around the node's GPUs
# after: def wrap(
# visible check lets it pass because: its layouts run one rank per GPU on every node (2 x 2, 2 x 3, 3 x 4), where
# rank % device_count() is the local rank
return DDP(model, device_ids=[rank % torch.cuda.device_count()])
