# Wrong answer: the snapshot's epoch tested for truth (`if finished`), so a snapshot of epoch 0 reads as no snapshot
# after: def train(self, epochs
# visible check lets it pass because: it stops after epoch 1, and 1 is true: only a stop after epoch 0 takes the
# wrong branch (graded with real launches, 2026-12-03: the visible check passes it)
finished = self._load()
start = finished + 1 if finished else 0
visited = {}
for epoch in range(start, epochs):
    self.loader.sampler.set_epoch(epoch)
    visited[epoch] = []
    for indices, x, y in self.loader:
        self._run_batch(x.to(self.device), y.to(self.device))
        visited[epoch] += indices.tolist()
    self._save(epoch)
    if epoch == stop_after:
        break
return visited
