# Hidden check: bytes_per_rank() in mixed precision counts the states of the optimizer asked for, not Adam's
# points: 1
from ddp_lessons import sharding
from ddp_lessons.i18n import choose

for optimizer in ("sgd", "momentum"):
    for strategy in ("ddp", "zero1", "fsdp"):
        want = sharding.predict(1000, 4, strategy, optimizer, "mixed")
        got = bytes_per_rank(1000, 4, strategy, optimizer=optimizer, precision="mixed")
        assert abs(float(got["optimizer"]) - want["optimizer"]) <= 1e-9 * want["optimizer"], choose({
            "en": "{strategy}, {optimizer}, mixed precision, Ψ = 1000 on 4 ranks: the optimizer row should be "
                  "{want:,.0f} bytes per rank, your formula says {got:,.0f}. K = 12 is Adam's: 4 bytes for the "
                  "fp32 master copy plus 4 per state, and {optimizer} keeps {states} state(s)",
            "es": "{strategy}, {optimizer}, precisión mixta, Ψ = 1000 en 4 ranks: la fila del optimizador debería "
                  "ser {want:,.0f} bytes por rank, su fórmula dice {got:,.0f}. K = 12 es el de Adam: 4 bytes de la "
                  "copia maestra en fp32 más 4 por estado, y {optimizer} guarda {states} estado(s)"},
            strategy=strategy, optimizer=optimizer, want=want["optimizer"], got=float(got["optimizer"]),
            states=sharding.OPTIMIZER_STATES[optimizer])
print("✓ hidden: mixed precision counts SGD's and momentum's states")
