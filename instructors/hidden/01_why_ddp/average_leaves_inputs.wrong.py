# Wrong answer: the sum is built in replica 0's own tensors (+=), then divided: the right average, but
# replica 0's gradients are overwritten with the sum
# after: def average_gradients(
# visible check lets it pass because: it compares the returned average with the whole batch's gradient,
# never looks at the replicas' gradients after the call
total = per_replica[0]
for gradients in per_replica[1:]:
    for running, gradient in zip(total, gradients):
        running += gradient
return [running / len(per_replica) for running in total]
