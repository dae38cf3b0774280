# Hidden check: coverage_counts() counts every visit, a rank's repeated visits of one index included
# points: 1
from ddp_lessons.i18n import choose

shards = [[0, 0, 1], [1, 2, 2], [3, 3, 3]]
got = list(coverage_counts(shards, 5))
assert got == [2, 2, 2, 3, 0], choose({
    "en": "for shards {shards} (size 5) you counted {got}, expected [2, 2, 2, 3, 0]: you counted the ranks that "
          "visit an index, not its visits. A rank can visit an index more than once: add one per occurrence",
    "es": "para los fragmentos {shards} (tamaño 5) usted contó {got}, se esperaba [2, 2, 2, 3, 0]: contó los "
          "ranks que visitan un índice, no sus visitas. Un rank puede visitar un índice más de una vez: sume uno "
          "por cada aparición"},
    shards=shards, got=got)
print("✓ hidden: repeated visits within one shard are counted")
