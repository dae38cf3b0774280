# Hidden check: strong_scaling() and weak_scaling() take T(1) from world size 1, in whatever order the measurements come
# points: 1
from ddp_lessons.i18n import choose

seconds = {4: 4.0, 1: 12.0, 8: 2.5, 2: 6.6}  # as a sweep's records may arrive: not sorted
for name, function, speedup in (("strong_scaling", strong_scaling, lambda w, t: 12.0 / t),
                                ("weak_scaling", weak_scaling, lambda w, t: w * 12.0 / t)):
    got = function(dict(seconds))
    for world, t in seconds.items():
        want = (speedup(world, t), speedup(world, t) / world)
        assert all(abs(a - b) <= 1e-6 * abs(b) for a, b in zip(got[world], want)), choose({
            "en": "{name} with the measurements in the order {order}: world size {world} gave {got}, expected "
                  "({speedup:.4g}, {efficiency:.4g}). T(1) is seconds[1], the time of world size 1, not the first "
                  "measurement in the dict",
            "es": "{name} con las medidas en el orden {order}: el tamaño de mundo {world} dio {got}, se esperaba "
                  "({speedup:.4g}, {efficiency:.4g}). T(1) es seconds[1], el tiempo con tamaño de mundo 1, no la "
                  "primera medida del diccionario"},
            name=name, order=list(seconds), world=world, got=tuple(got[world]), speedup=want[0], efficiency=want[1])
print("✓ hidden: T(1) is world size 1's time, whatever the order")
