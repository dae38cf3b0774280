# Hidden check: average_gradients() leaves every replica's gradients as they were, for any number of replicas
# points: 1
import torch

from ddp_lessons.i18n import choose

generator = torch.Generator().manual_seed(11)
per_replica = [[torch.randn(5, 3, generator=generator), torch.randn(5, generator=generator)] for _ in range(3)]
kept = [[gradient.clone() for gradient in gradients] for gradients in per_replica]
averaged = average_gradients(per_replica)
changed = [replica for replica, (now, before) in enumerate(zip(per_replica, kept))
           if not all(torch.equal(a, b) for a, b in zip(now, before))]
assert not changed, choose({
    "en": "averaging changed the gradients of replica(s) {changed} in place: their tensors now hold the sum, so "
          "the replica's own gradient is lost. Add into new tensors (torch.stack(...).mean(dim=0), or a sum that "
          "starts from zeros), never into a replica's tensors",
    "es": "al promediar se modificaron en su sitio los gradientes de la(s) réplica(s) {changed}: sus tensores "
          "contienen ahora la suma y se pierde el gradiente propio de la réplica. Sume en tensores nuevos "
          "(torch.stack(...).mean(dim=0), o una suma que empiece en ceros), nunca en los tensores de una réplica"},
    changed=changed)
expected = [torch.stack(gradients).mean(dim=0) for gradients in zip(*kept)]
assert len(averaged) == len(expected) and all(torch.allclose(a, b) for a, b in zip(averaged, expected)), choose({
    "en": "with 3 replicas the result is not the element-wise mean of their gradients: divide the sum by the "
          "number of replicas, len(per_replica), whatever it is",
    "es": "con 3 réplicas el resultado no es la media elemento a elemento de sus gradientes: divida la suma entre "
          "el número de réplicas, len(per_replica), sea cual sea"})
print("✓ hidden: the replicas' gradients are untouched and averaged for 3 replicas too")
