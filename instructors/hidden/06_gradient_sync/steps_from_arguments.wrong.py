# Wrong answer: the script's constants ACCUMULATION_STEPS and MICRO_BATCHES in place of the arguments
# after: def train(ddp_model, optimizer
# visible check lets it pass because: the script calls train() with those very numbers (10 micro-batches,
# 4 a step), so the constants and the arguments agree in the launch the check runs
for i, (inputs, targets) in enumerate(micro_batches):
    last = (i + 1) % ACCUMULATION_STEPS == 0 or i == MICRO_BATCHES - 1
    in_step = ACCUMULATION_STEPS if i < MICRO_BATCHES - MICRO_BATCHES % ACCUMULATION_STEPS else MICRO_BATCHES % ACCUMULATION_STEPS
    with contextlib.nullcontext() if last else ddp_model.no_sync():
        loss = F.mse_loss(ddp_model(inputs), targets) / in_step
        loss.backward()
    if last:
        optimizer.step()
        optimizer.zero_grad()
