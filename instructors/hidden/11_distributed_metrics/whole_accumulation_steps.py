# Hidden check: accumulation_steps() returns a whole number a training loop can count with
# points: 1
from ddp_lessons.i18n import choose

steps = accumulation_steps(512, 16, 8)
assert isinstance(steps, int) and not isinstance(steps, bool), choose({
    "en": "accumulation_steps(512, 16, 8) returned {steps!r}, a {kind}: a loop cannot run range({steps!r}) times. "
          "Once you know the division is exact, divide with //",
    "es": "accumulation_steps(512, 16, 8) devolvió {steps!r}, un {kind}: un bucle no puede ejecutar "
          "range({steps!r}) veces. Una vez sabe que la división es exacta, divida con //"},
    steps=steps, kind=type(steps).__name__)
assert steps == 4 and len(range(steps)) == 4
print("✓ hidden: accumulation steps are a whole number")
