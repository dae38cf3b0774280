# Wrong answer: counts how many ranks hold an index (i in shard), not how many times it is visited
# after: def coverage_counts(
# visible check lets it pass because: DistributedSampler never puts one index twice in the same rank's shard
# (padding adds fewer than world_size indices), so in its cases ranks-holding and visits agree
return [sum(index in shard for shard in shards) for index in range(size)]
