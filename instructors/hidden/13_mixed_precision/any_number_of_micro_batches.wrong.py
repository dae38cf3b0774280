# Wrong answer: the loss divided by 2, the number of micro-batches the script happens to use
# after: def train_step(
# visible check lets it pass because: its launches run the script, where MICRO_BATCHES = 2, so
# `loss / 2` computes exactly what `loss / len(micro_batches)` does
for i, (inputs, targets) in enumerate(micro_batches):
    last = i == len(micro_batches) - 1
    with nullcontext() if last else ddp_model.no_sync():
        with torch.autocast(device_type, dtype=dtype):
            loss = F.cross_entropy(ddp_model(inputs), targets)
        scaler.scale(loss / 2).backward()
scaler.unscale_(optimizer)
torch.nn.utils.clip_grad_norm_(ddp_model.parameters(), max_norm)
scaler.step(optimizer)
scaler.update()
optimizer.zero_grad()
