# Hidden check: train() steps by the accumulation_steps and micro-batches it is given: 7 micro-batches in steps of 3, 3 and 1 (run in the kernel on a one-rank stand-in for DDP, no launch)
# points: 1
from contextlib import contextmanager

import torch
import torch.nn.functional as F

from ddp_lessons import scripts
from ddp_lessons.i18n import choose

train = scripts.load_module("scripts/06_accumulate.py", "hidden_06_accumulate").train  # as written now


class OneRank(torch.nn.Module):
    """DDP at world size 1: a forward outside no_sync() is a synchronised backward, one all-reduce (counted)."""

    def __init__(self, module):
        super().__init__()
        self.module, self.unsynced, self.all_reduces = module, False, 0

    def forward(self, inputs):
        self.all_reduces += not self.unsynced  # DDP decides at the forward whether the backward all-reduces
        return self.module(inputs)

    @contextmanager
    def no_sync(self):
        before, self.unsynced = self.unsynced, True
        try:
            yield
        finally:
            self.unsynced = before


def fresh_model():
    torch.manual_seed(0)
    return torch.nn.Linear(4, 1)


LR, SIZES = 0.1, [3, 3, 1]
generator = torch.Generator().manual_seed(6)
micro_batches = [(torch.randn(2, 4, generator=generator), torch.randn(2, 1, generator=generator))
                 for _ in range(sum(SIZES))]
wrapped = OneRank(fresh_model())
optimizer = torch.optim.SGD(wrapped.parameters(), lr=LR)
after_steps = []
optimizer.register_step_post_hook(lambda *_: after_steps.append([p.detach().clone() for p in wrapped.parameters()]))
train(wrapped, optimizer, micro_batches, 3)

reference, wanted, first = fresh_model(), [], 0
for size in SIZES:  # one process's SGD step on the mean squared error of all the step's samples
    inputs = torch.cat([x for x, _ in micro_batches[first:first + size]])
    targets = torch.cat([y for _, y in micro_batches[first:first + size]])
    reference.zero_grad()
    F.mse_loss(reference(inputs), targets).backward()
    with torch.no_grad():
        for p in reference.parameters():
            p -= LR * p.grad
    wanted.append([p.detach().clone() for p in reference.parameters()])
    first += size
right = len(after_steps) == len(wanted) and all(
    torch.allclose(g, w, atol=1e-6) for got, want in zip(after_steps, wanted) for g, w in zip(got, want))
assert wrapped.all_reduces == len(SIZES) and right, choose({
    "en": "called with 7 micro-batches and accumulation_steps=3 (steps of 3, 3 and 1), train() took {steps} "
          "optimizer step(s){which} with {all_reduces} all-reduce(s), where one process takes 3 steps with 3. "
          "The check cell runs the script's own numbers (10 micro-batches, 4 a step); work from the arguments, "
          "len(micro_batches) and accumulation_steps, not from ACCUMULATION_STEPS or MICRO_BATCHES",
    "es": "llamada con 7 microlotes y accumulation_steps=3 (pasos de 3, 3 y 1), train() dio {steps} paso(s) "
          "del optimizador{which} con {all_reduces} all-reduce(s), donde un solo proceso da 3 pasos con 3. La "
          "celda de comprobación usa los números del propio script (10 microlotes, 4 por paso); trabaje con "
          "los argumentos, len(micro_batches) y accumulation_steps, no con ACCUMULATION_STEPS ni MICRO_BATCHES"},
    steps=len(after_steps), all_reduces=wrapped.all_reduces,
    which="" if right or len(after_steps) != len(wanted) else choose({
        "en": ", not the ones one process takes", "es": ", no los que da un solo proceso"}))
print("✓ hidden: 7 micro-batches in steps of 3, 3 and 1, one all-reduce each")
