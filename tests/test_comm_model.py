"""The α–β model of lesson 16: ring bytes, nccl-tests' bandwidths, the fit, DDP's bucket layout and a
step's predicted communication, on synthetic data (no torch in the module itself)."""
import random
import subprocess
import sys

import pytest
import torch
import torch.distributed as dist

from ddp_lessons import comm_model, traffic


def test_the_module_imports_no_torch():
    code = "import sys, ddp_lessons.comm_model, ddp_lessons.comm_results; print('torch' in sys.modules)"
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert done.stdout.strip() == "False"


@pytest.mark.parametrize("world", [1, 2, 3, 4, 8])
def test_ring_bytes_are_2_n_minus_1_over_n_of_the_message_as_in_lesson_1(world):
    assert comm_model.moved_bytes(1000.0, world) == traffic.ring_allreduce_bytes(1000.0, world)
    assert comm_model.ring_factor(world) == 2 * (world - 1) / world
    with pytest.raises(ValueError):
        comm_model.ring_factor(0)


def simulated_ring_bytes(numel: int, world: int) -> list[int]:
    """Bytes each rank sends in a ring over tensor_split chunks, counted step by step."""
    sizes = [len(chunk) for chunk in torch.arange(numel).tensor_split(world)]
    sent = [0] * world
    for step in range(world - 1):
        for rank in range(world):
            sent[rank] += 4 * sizes[(rank - step) % world]  # reduce-scatter
            sent[rank] += 4 * sizes[(rank - step + 1) % world]  # all-gather
    return sent


@pytest.mark.parametrize("numel, world", [(10, 3), (12, 3), (1_000_003, 4), (7, 2), (5, 1), (9, 4)])
def test_exact_bytes_per_rank_follow_the_ring_and_sum_to_2_n_minus_1_tensors(numel, world):
    exact = comm_model.ring_bytes_per_rank(numel, world)
    assert exact == simulated_ring_bytes(numel, world)
    assert sum(exact) == 2 * (world - 1) * 4 * numel
    if numel % world == 0:
        assert exact == [comm_model.moved_bytes(4 * numel, world)] * world


def test_bus_bandwidth_is_algorithm_bandwidth_times_2_n_minus_1_over_n():
    # nccl-tests doc/PERFORMANCE.md: 1 GB in 10 ms on 8 ranks is algbw 100 GB/s, busbw 175 GB/s
    assert comm_model.algbw(1e9, 0.01) == pytest.approx(100e9)
    assert comm_model.busbw(1e9, 0.01, 8) == pytest.approx(175e9)
    assert comm_model.busbw(1e9, 0.01, 2) == pytest.approx(100e9)


def sweep(alpha, beta, worlds=(2, 4), noise=0.0, seed=0):
    rng = random.Random(seed)
    return [(size, n, (alpha + beta * comm_model.moved_bytes(size, n)) * (1 + rng.uniform(-noise, noise)))
            for n in worlds for size in (2 ** k for k in range(10, 26))]


def test_the_fit_recovers_alpha_and_beta_from_exact_points_across_world_sizes():
    fitted = comm_model.fit(sweep(2e-4, 1 / 1.5e9))
    assert fitted.alpha == pytest.approx(2e-4, rel=1e-9) and fitted.beta == pytest.approx(1 / 1.5e9, rel=1e-9)
    assert fitted.bus_bandwidth == pytest.approx(1.5e9)
    assert max(abs(r) for r in fitted.residuals()) < 1e-9
    knee = fitted.knee_bytes(4)
    assert fitted.alpha == pytest.approx(fitted.beta * comm_model.moved_bytes(knee, 4))


def test_relative_errors_keep_alpha_where_plain_least_squares_loses_it():
    points = sweep(2e-4, 1 / 1.5e9, noise=0.05, seed=3)  # ±5 % noise, as a real sweep has
    relative = comm_model.fit(points)
    plain = comm_model.line_fit([comm_model.moved_bytes(s, n) for s, n, _ in points],
                                [t for _, _, t in points], relative=False)
    assert relative.alpha == pytest.approx(2e-4, rel=0.1)
    assert abs(plain[0] - 2e-4) > 10 * abs(relative.alpha - 2e-4)  # the largest messages decided alone


def test_the_fit_refuses_a_single_size_and_non_positive_times():
    with pytest.raises(ValueError, match="two different"):
        comm_model.fit([(1024, 2, 0.001), (1024, 2, 0.002)])
    with pytest.raises(ValueError, match="positive"):
        comm_model.fit([(1024, 2, 0.001), (2048, 2, 0.0)])


def test_each_repeat_counts_as_its_slowest_rank_then_the_median():
    assert comm_model.slowest_rank([[1.0, 5.0, 2.0], [3.0, 1.0, 2.5]]) == [3.0, 5.0, 2.5]
    assert comm_model.medians({2048: [3.0, 1.0, 2.0], 1024: [1.0, 9.0, 2.0]}) == {1024: 2.0, 2048: 2.0}


def torch_layout(param_bytes, limits):
    """Torch's own bucket assignment for float32 tensors of these bytes, in this order."""
    tensors = [torch.empty(b // 4) for b in param_bytes]
    indices, _ = dist._compute_bucket_assignment_by_size(tensors, limits, [False] * len(tensors))
    return indices


@pytest.mark.parametrize("seed", range(5))
def test_bucket_layout_equals_torchs_own_assignment(seed):
    rng = random.Random(seed)
    param_bytes = [4 * rng.randrange(1, 400_000) for _ in range(rng.randrange(1, 30))]
    cap, first = 4 * rng.randrange(10_000, 300_000), 4 * rng.randrange(10_000, 300_000)
    assert comm_model.bucket_layout(param_bytes, cap, first) == torch_layout(param_bytes, [first, cap])
    assert comm_model.bucket_layout(param_bytes, cap) == torch_layout(param_bytes, [cap])


def test_lesson_9s_mlp_makes_5_2_and_1_buckets_at_its_three_caps():
    # Linear(3072, 320), Linear(320, 320), Linear(320, 10) in backward's order: last layer first
    ready = [40, 12800, 1280, 409600, 1280, 3932160]
    counts = [len(comm_model.bucket_layout(ready, mb * comm_model.MB)) for mb in (0.001, 0.25, 25)]
    assert counts == [5, 2, 1]


def test_predicted_buckets_wait_for_their_gradients_and_for_each_other():
    fitted = comm_model.Fit(alpha=1.0, beta=0.0)  # every all-reduce takes 1 s
    p = comm_model.predict_step(fitted, 2, [(100, 0.5), (100, 0.6), (100, 5.0)], backward_end=5.0, compute=7.0)
    assert [(b.start, b.end) for b in p.buckets] == [(0.5, 1.5), (1.5, 2.5), (5.0, 6.0)]
    assert (p.total, p.exposed, p.hidden, p.step) == (3.0, 1.0, 2.0, 8.0)


def test_a_bucket_ready_early_on_a_long_backward_is_hidden_entirely():
    p = comm_model.predict_step(comm_model.Fit(1e-4, 1e-9), 2, [(10 ** 6, 0.01)], backward_end=0.5)
    assert p.exposed == 0.0 and p.hidden == pytest.approx(p.total) and p.step is None


def test_a_buckets_ready_time_is_its_last_gradients():
    layout = comm_model.bucket_layout([10, 10, 10], cap_bytes=20)
    assert comm_model.bucket_ready_times(layout, [0.1, 0.3, 0.2], [10, 10, 10]) == [(20, 0.3), (10, 0.2)]


def test_beta_from_large_messages_describes_them_where_one_line_cannot():
    # a CPU-like sweep: 2 GB/s while a message fits in the caches (< 2 MiB), 1 GB/s beyond
    points = [(s, 2, 1e-4 + comm_model.moved_bytes(s, 2) / (2e9 if s < 2 * comm_model.MB else 1e9))
              for s in (2 ** k for k in range(12, 26))]
    every_size, large = comm_model.fit(points), comm_model.fit(points, bandwidth_from=2 * comm_model.MB)
    assert large.alpha == every_size.alpha  # α still from every size
    assert large.bus_bandwidth == pytest.approx(1e9, rel=0.02)
    assert every_size.bus_bandwidth > 1.2e9  # the single line mixes both regimes
    big = 16 * comm_model.MB
    assert large.time(big, 2) == pytest.approx(1e-4 + big / 1e9, rel=0.02)
    with pytest.raises(ValueError, match="no message of at least"):
        comm_model.fit(points, bandwidth_from=2 ** 30)
