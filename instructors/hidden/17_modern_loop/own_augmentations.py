# Hidden check: with room for workers (2 ranks on 8 cores), each rank's workers draw their own augmentations
# points: 1
import warnings

from ddp_lessons import scripts
from ddp_lessons.i18n import choose

train = scripts.load_module("scripts/17_train.py", "hidden_17_train")  # make_loader as written now


def first_batch(rank):
    """How many workers rank `rank`'s loader has, and the augmentations of its first batch."""
    with warnings.catch_warnings():  # torch warns that 3 workers exceed this machine's cores: 8 are supposed
        warnings.simplefilter("ignore", UserWarning)
        loader = train.make_loader(train.Augmented(), rank, 2, 8)
        loader.sampler.set_epoch(0)
        batches = iter(loader)
        _, _, shifts, _ = next(batches)
    del batches  # stops its workers
    return loader.num_workers, shifts.tolist()


(workers, shifts_0), (_, shifts_1) = first_batch(0), first_batch(1)
assert workers > 0, choose({
    "en": "make_loader(..., world_size=2, cores=8) gave each rank no workers: 8 cores leave room for 3 per rank "
          "(ranks x (1 + workers) processes within the cores); compute num_workers from cores and world_size",
    "es": "make_loader(..., world_size=2, cores=8) no dio workers a ningún rank: 8 núcleos dejan sitio para 3 por "
          "rank (ranks x (1 + workers) procesos dentro de los núcleos); calcule num_workers a partir de cores y "
          "world_size"})
assert shifts_0 != shifts_1, choose({
    "en": "with {workers} workers per rank (2 ranks, 8 cores), rank 0 and rank 1 drew the same augmentations in "
          "their first batch: the workers' seeds come from the DataLoader's generator, and yours is seeded the "
          "same on every rank. Seed it with the rank (torch.Generator().manual_seed(seed + rank))",
    "es": "con {workers} workers por rank (2 ranks, 8 núcleos), el rank 0 y el rank 1 obtuvieron los mismos "
          "aumentos de datos en su primer lote: las semillas de los workers salen del generator del DataLoader, y "
          "el suyo tiene la misma semilla en todos los ranks. Siémbrelo con el rank "
          "(torch.Generator().manual_seed(seed + rank))"},
    workers=workers)
print("✓ hidden: with workers, every rank draws its own augmentations")
