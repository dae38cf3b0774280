# Wrong answer: the baseline is the first measurement in the dict, which is world size 1 only when the
# measurements come sorted
# after: def strong_scaling(
# visible check lets it pass because: every dict it passes starts with world size 1
baseline = next(iter(seconds.values()))
return {world: (baseline / t, baseline / t / world) for world, t in seconds.items()}
