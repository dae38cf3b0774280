# Hidden check: fit_alpha_beta() takes the median of an even number of repeats (4 here), the middle two's mean
# points: 1
import statistics

from ddp_lessons import comm_model
from ddp_lessons.checks.ring import synthetic_sweep
from ddp_lessons.i18n import choose

even = [(size, world, times[:4]) for size, world, times in synthetic_sweep(80e-6, 5e9, (2, 4), seed=7)]
fitted = comm_model.fit((size, world, statistics.median(times)) for size, world, times in even)
got = fit_alpha_beta([(size, world, list(times)) for size, world, times in even])
close = all(abs(g - e) <= 1e-4 * abs(e) for g, e in zip(got, (fitted.alpha, fitted.beta)))
assert close, choose({
    "en": "with 4 repeats per size you fitted alpha = {alpha:.4g} s, beta = {beta:.4g} s/byte, expected "
          "{expected_alpha:.4g} and {expected_beta:.4g}: with an even number of repeats the median is the mean of "
          "the middle two, not the upper (or lower) one; statistics.median does it",
    "es": "con 4 repeticiones por tamaño usted ajustó alpha = {alpha:.4g} s, beta = {beta:.4g} s/byte, se "
          "esperaban {expected_alpha:.4g} y {expected_beta:.4g}: con un número par de repeticiones la mediana es "
          "la media de las dos centrales, no la de arriba (ni la de abajo); statistics.median lo hace"},
    alpha=got[0], beta=got[1], expected_alpha=fitted.alpha, expected_beta=fitted.beta)
print("✓ hidden: the median of an even number of repeats is the mean of the middle two")
