# Wrong answer: true division: the right number of steps, but as a float (4.0), which range() refuses
# after: def accumulation_steps(
# visible check lets it pass because: it compares with ==, and 4.0 == 4
per_step = batch_per_rank * world_size
if global_batch % per_step:
    raise ValueError(f"{global_batch} is not a multiple of {batch_per_rank} x {world_size}")
return global_batch / per_step
