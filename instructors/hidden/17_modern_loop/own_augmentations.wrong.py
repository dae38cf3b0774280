# Wrong answer: the rank's own seed for torch, but one fixed generator (the workers' seeds) on every rank
# after: def make_loader(
# visible check lets it pass because: with 2 ranks on 2 cores there are no workers, so each rank draws the
# augmentations itself, from torch's generator, seeded with its rank; the fixed generator seeds only workers
sampler = DistributedSampler(dataset, num_replicas=world_size, rank=rank, shuffle=True, seed=0)
workers = max(0, cores // world_size - 1)
torch.manual_seed(1000 + rank)
return DataLoader(dataset, batch_size=16, sampler=sampler, num_workers=workers,
                  generator=torch.Generator().manual_seed(0), persistent_workers=workers > 0)
