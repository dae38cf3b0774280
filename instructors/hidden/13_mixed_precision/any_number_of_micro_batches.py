# Hidden check: train_step() averages over any number of micro-batches (3 here) and all-reduces only in the last
# points: 1
from contextlib import contextmanager

import torch
import torch.nn.functional as F

from ddp_lessons import scripts
from ddp_lessons.i18n import choose

train_step = scripts.load_module("scripts/13_amp_step.py", "hidden_13_amp_step").train_step  # as written now


class OneRank(torch.nn.Module):
    """DDP at world size 1, as train_step uses it: forward, parameters() and no_sync() (counted)."""

    def __init__(self, module):
        super().__init__()
        self.module, self.unsynced = module, 0

    def forward(self, inputs):
        return self.module(inputs)

    @contextmanager
    def no_sync(self):
        self.unsynced += 1
        yield


def fresh_model():
    torch.manual_seed(0)
    return torch.nn.Sequential(torch.nn.Linear(8, 16), torch.nn.ReLU(), torch.nn.Linear(16, 4))


generator = torch.Generator().manual_seed(13)
micro_batches = [(torch.randn(4, 8, generator=generator), torch.randint(4, (4,), generator=generator))
                 for _ in range(3)]
wrapped = OneRank(fresh_model())
start = [p.detach().clone() for p in wrapped.parameters()]
train_step(wrapped, torch.optim.SGD(wrapped.parameters(), lr=0.5), torch.amp.GradScaler("cpu", enabled=False),
           micro_batches, torch.bfloat16, 1e6)  # max_norm far above the gradient's norm: nothing clipped
reference = fresh_model()
for inputs, targets in micro_batches:
    with torch.autocast("cpu", dtype=torch.bfloat16):
        loss = F.cross_entropy(reference(inputs), targets)
    (loss / len(micro_batches)).backward()
moved = torch.cat([(p.detach() - s).flatten() for p, s in zip(wrapped.parameters(), start)])
wanted = torch.cat([-0.5 * p.grad.flatten() for p in reference.parameters()])
scale = (moved @ wanted / (wanted @ wanted)).item()  # bf16 rounds each micro-batch: compare directions and sizes
proportional = (moved - scale * wanted).norm() <= 0.02 * (scale * wanted).norm()
assert abs(scale - 1) < 0.02 or not proportional, choose({
    "en": "with 3 micro-batches the step moved the weights {scale:.3g}x as far as the average gradient does: "
          "divide each micro-batch's loss by len(micro_batches), the number this step has, not by a fixed number",
    "es": "con 3 microlotes el paso movió los pesos {scale:.3g} veces lo que mueve el gradiente medio: divida la "
          "pérdida de cada microlote entre len(micro_batches), los que tiene este paso, no entre un número fijo"},
    scale=scale)
assert torch.allclose(moved, wanted, rtol=1e-3, atol=1e-6), choose({
    "en": "with 3 micro-batches the step is not the average gradient's: accumulate a backward for every "
          "micro-batch (no zero_grad in between), then `unscale_`, clip, `step`, `update`",
    "es": "con 3 microlotes el paso no es el del gradiente medio: acumule una propagación hacia atrás por "
          "microlote (sin `zero_grad` entre medias) y después `unscale_`, el recorte, `step` y `update`"})
assert wrapped.unsynced == len(micro_batches) - 1, choose({
    "en": "with 3 micro-batches, {unsynced} ran inside no_sync(): all but the last must (2 here), so that only "
          "the last backward all-reduces",
    "es": "con 3 microlotes, {unsynced} se ejecutaron dentro de no_sync(): deben hacerlo todos menos el último "
          "(aquí 2), para que solo la última propagación hacia atrás haga el all-reduce"},
    unsynced=wrapped.unsynced)
print("✓ hidden: 3 micro-batches averaged, 2 of them inside no_sync()")
