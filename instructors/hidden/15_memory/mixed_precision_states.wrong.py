# Wrong answer: the ZeRO paper's K = 12 for every optimizer in mixed precision
# after: def bytes_per_rank(
# visible check lets it pass because: it checks mixed precision only with Adam (the paper's figure), and
# every optimizer in fp32
states = {"sgd": 0, "momentum": 1, "adam": 2}[optimizer]
if precision == "fp32":
    rows = {"parameters": 4 * psi, "gradients": 4 * psi, "optimizer": 4 * states * psi}
else:
    rows = {"parameters": 2 * psi, "gradients": 2 * psi, "optimizer": 12 * psi}
divided = {"ddp": [], "zero1": ["optimizer"], "zero2": ["optimizer", "gradients"],
           "fsdp": ["optimizer", "gradients", "parameters"]}[strategy]
for row in divided:
    rows[row] /= world_size
return rows
