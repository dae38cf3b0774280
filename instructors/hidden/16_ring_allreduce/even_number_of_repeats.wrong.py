# Wrong answer: the median as sorted(times)[len(times) // 2], the upper middle one when the count is even
# after: def fit_alpha_beta(
# visible check lets it pass because: its sweeps have 5 repeats per size, an odd number, where the middle element
# is the median
moved = np.array([comm_model.ring_factor(world) * size for size, world, _ in sweep])
t = np.array([sorted(times)[len(times) // 2] for _, _, times in sweep])
rows = np.column_stack([1 / t, moved / t])
(alpha, beta), *_ = np.linalg.lstsq(rows, np.ones_like(t), rcond=None)
return float(alpha), float(beta)
