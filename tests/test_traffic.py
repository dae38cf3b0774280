"""Per-step bytes of DataParallel's GPU 0 and of a DDP rank (the table in lesson 1)."""
import pytest

from ddp_lessons import traffic


def simulate_ring_allreduce(values: list[list[float]]) -> tuple[list[list[float]], list[int]]:
    """Run a ring all-reduce (reduce-scatter, then all-gather) on n ranks; return results and floats sent."""
    n = len(values)
    data = [list(v) for v in values]
    sent = [0] * n
    for step in range(2 * (n - 1)):
        reducing = step < n - 1
        phase_step = step if reducing else step - (n - 1)
        messages = []
        for rank in range(n):
            # to rank + 1: chunk rank - s while reduce-scattering, chunk rank + 1 - s while all-gathering
            chunk = (rank - phase_step) % n if reducing else (rank + 1 - phase_step) % n
            messages.append(((rank + 1) % n, chunk, data[rank][chunk]))
            sent[rank] += 1
        for dest, chunk, value in messages:
            data[dest][chunk] = data[dest][chunk] + value if reducing else value
    return data, sent


@pytest.mark.parametrize("world_size", [2, 3, 4, 8])
def test_ring_allreduce_formula_matches_a_simulated_ring(world_size):
    values = [[float(10 * rank + chunk) for chunk in range(world_size)] for rank in range(world_size)]
    result, sent = simulate_ring_allreduce(values)
    expected = [sum(column) for column in zip(*values)]
    assert all(row == expected for row in result)
    bytes_per_chunk = 4
    tensor_bytes = world_size * bytes_per_chunk
    assert all(s * bytes_per_chunk == traffic.ring_allreduce_bytes(tensor_bytes, world_size) for s in sent)


def test_one_device_moves_nothing_in_either_scheme():
    assert sum(t.total for t in traffic.dataparallel_gpu0(100, 10, 1, world_size=1)) == 0
    assert sum(t.total for t in traffic.ddp_rank(100, world_size=1)) == 0


def test_dataparallel_gpu0_sends_weights_and_inputs_to_every_other_gpu_and_gets_gradients_back():
    parts = {t.what: t for t in traffic.dataparallel_gpu0(param_bytes=100, input_bytes=10,
                                                          output_bytes=1, world_size=4)}
    assert (parts["replicate weights"].sent, parts["sum replica gradients"].received) == (300, 300)
    assert (parts["scatter inputs"].sent, parts["gather outputs"].received) == (30, 3)
    assert parts["scatter output gradients"].sent == 3
    assert sum(t.total for t in parts.values()) == 636


def test_dataparallel_grows_with_gpus_while_ddp_stays_under_four_model_sizes():
    rows = traffic.step_traffic(param_bytes=100, input_bytes=0, output_bytes=0,
                                world_sizes=[2, 4, 8, 64])
    assert [r["dataparallel_gpu0"] for r in rows] == [200, 600, 1400, 12600]
    assert [r["ddp_per_rank"] for r in rows] == [200, 300, 350, pytest.approx(393.75)]
    assert all(r["ddp_per_rank"] < 4 * 100 for r in rows)




def test_world_size_below_one_is_refused():
    with pytest.raises(ValueError, match="world_size"):
        traffic.ring_allreduce_bytes(100, 0)
