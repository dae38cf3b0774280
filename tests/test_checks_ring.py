"""`checks.ring` (exercise 16): the ring all-reduce check passes the solution and names the symptom of
each wrong ring; the α–β checks pass right functions and hint at the usual mistakes.

The wrong rings are the solution's script with its body replaced, run under torchrun by the check
itself (slow); `ring_hint`'s other branches get the records a wrong ring would write (fast).
"""
import statistics

import numpy as np
import pytest

from ddp_lessons import checks, comm_model
from ddp_lessons.checks import ring

NAIVE = """    n, me = dist.get_world_size(), dist.get_rank()
    if me == 0:  # everyone sends its whole tensor to rank 0, which sums and sends the sum back
        for peer in range(1, n):
            incoming = torch.empty_like(tensor)
            dist.recv(incoming, peer)
            tensor.add_(incoming)
        for peer in range(1, n):
            dist.send(tensor, peer)
    else:
        dist.send(tensor, 0)
        dist.recv(tensor, 0)
"""
WHOLE_TENSORS = """    n, me = dist.get_world_size(), dist.get_rank()
    passing = tensor.clone()  # pass every rank's whole tensor round the ring, adding each
    for _ in range(n - 1):
        arrived = torch.empty_like(passing)
        for work in dist.batch_isend_irecv([dist.P2POp(dist.isend, passing, (me + 1) % n),
                                            dist.P2POp(dist.irecv, arrived, (me - 1) % n)]):
            work.wait()
        tensor.add_(arrived)
        passing = arrived
"""
LIBRARY = """    dist.all_reduce(tensor)
"""


def wrong_ring(solution_script, body: str):
    """The solution's script with the body of ring_allreduce replaced by `body`."""
    path = solution_script("16_ring_allreduce", "16_ring.py")
    head, _, rest = path.read_text().partition("    ### BEGIN SOLUTION\n")
    path.write_text(head + body + rest.partition("    ### END SOLUTION\n")[2])
    return path


@pytest.mark.slow
def test_the_solution_passes_on_2_3_and_4_ranks(tmp_path, monkeypatch, capsys, solution_script):
    monkeypatch.chdir(tmp_path)
    checks.ring_allreduce(solution_script("16_ring_allreduce", "16_ring.py"))
    out = capsys.readouterr().out
    assert out.startswith("✓ on 2, 3, 4 ranks") and "rank 0 sent" in out


@pytest.mark.slow
@pytest.mark.parametrize("body, worlds, hint", [
    (NAIVE, (3,), "that is a reduce to one rank and a broadcast back"),
    (WHOLE_TENSORS, (3,), "it sends the whole tensor in each step"),
    (LIBRARY, (3,), "ring_allreduce called dist.all_reduce: build the ring from point-to-point calls"),
])
def test_wrong_rings_fail_with_their_symptom(tmp_path, monkeypatch, body, worlds, hint, fails_with,
                                             solution_script):
    monkeypatch.chdir(tmp_path)
    with fails_with(hint):
        checks.ring_allreduce(wrong_ring(solution_script, body), worlds=worlds)


@pytest.mark.slow
@pytest.mark.parametrize("replace, worlds, hint", [
    ({"chunks = tensor.tensor_split(n)": "chunks = tensor.clone().tensor_split(n)"}, (2,),
     "tensor came back unchanged"),
    ({"chunks = tensor.tensor_split(n)": "chunks = tensor.chunk(n)"}, (4,),
     "torch.chunk(tensor, n) can return fewer than n chunks"),
    ({"        ops = [dist.P2POp(dist.isend, send, right), dist.P2POp(dist.irecv, receive, left)]\n"
      "        for work in dist.batch_isend_irecv(ops):\n            work.wait()\n":
      "        dist.send(send.contiguous(), right)  # every rank sends first: they wait for each other\n"
      "        dist.recv(receive, left)\n"}, (2,), "every rank waited for a peer"),
])
def test_slips_in_a_ring_fail_with_their_symptom(tmp_path, monkeypatch, replace, worlds, hint, fails_with,
                                                 solution_script):
    monkeypatch.chdir(tmp_path)
    with fails_with(hint):
        checks.ring_allreduce(solution_script("16_ring_allreduce", "16_ring.py", replace), worlds=worlds)


def record(rank, world, **case):
    """A rank's ``ring`` record with one case of a 30-element (120-byte) tensor."""
    base = {"numel": 30, "bytes": 120, "sent": comm_model.ring_bytes_per_rank(30, world)[rank],
            "collectives": [], "error": None, "equal": True, "unchanged": False, "averaged": False,
            "wrong_elements": 0}
    return {"rank": rank, "import_error": None, "worlds": [{"world": world, "cases": [base | case]}]}


def test_records_of_a_right_ring_give_no_hint():
    assert ring.ring_hint([record(r, 3) for r in range(3)], worlds=(3,)) is None


@pytest.mark.parametrize("change, hint", [
    (dict(equal=False, averaged=True, wrong_elements=30), "the result is the mean: all_reduce sums"),
    (dict(equal=False, wrong_elements=10), "differs from dist.all_reduce in 10 of 30 elements"),
    (dict(error="NotImplementedError: "), "raised NotImplementedError: write it where the cell says"),
    (dict(error="RuntimeError: shape '[3, -1]' is invalid for input of size 31"), "torch.tensor_split"),
    (dict(sent=0), "no rank sent anything point to point"),
])
def test_records_of_wrong_rings_give_their_hint(change, hint):
    assert hint in ring.ring_hint([record(r, 3, **change) for r in range(3)], worlds=(3,))


def test_a_script_that_cannot_be_imported_says_so():
    rows = [{"rank": r, "import_error": "SyntaxError: invalid syntax", "worlds": []} for r in range(2)]
    assert "could not be imported (SyntaxError" in ring.ring_hint(rows, worlds=(2,))


def test_a_rank_that_died_after_the_students_error_still_gets_the_hint(tmp_path):
    # the CI run of 2026-12-02: rank 0 recorded the IndexError, then gloo aborted at its exit and
    # torchrun stopped rank 2 before it wrote; the recorded error is the student's to read
    from ddp_lessons import records
    peer = "RuntimeError: [pair.cc:553] Connection closed by peer [127.0.0.1]:39816."
    records.write("ring", record(0, 4, error="IndexError: tuple index out of range", numel=9), rank=0,
                  directory=tmp_path)
    records.write("ring", record(1, 4, error=peer, numel=9), rank=1, directory=tmp_path)
    hint = ring._hint_from_records(tmp_path, worlds=(4,))
    assert hint.startswith("on 4 ranks, rank 0 raised IndexError") and "torch.chunk(tensor, n)" in hint
    assert ring._hint_from_records(tmp_path / "empty", worlds=(4,)) is None


def test_exact_byte_counts_of_any_even_split_pass_and_uneven_ones_are_summed_right():
    assert comm_model.ring_bytes_per_rank(10, 3) == [56, 52, 52]
    assert sum(comm_model.ring_bytes_per_rank(1_000_003, 4)) == 2 * 3 * 4_000_012


# -- part 2 -----------------------------------------------------------------------------------------

def right_fit(sweep):
    moved = np.array([comm_model.ring_factor(n) * s for s, n, _ in sweep])
    t = np.array([statistics.median(times) for _, _, times in sweep])
    (alpha, beta), *_ = np.linalg.lstsq(np.column_stack([1 / t, moved / t]), np.ones_like(t), rcond=None)
    return alpha, beta


def test_the_right_fit_and_prediction_pass(capsys):
    checks.alpha_beta(right_fit)
    checks.predicted_time(lambda a, b, size, n: a + b * comm_model.ring_factor(n) * size)
    out = capsys.readouterr().out
    assert "✓ alpha and beta fitted right (first sweep: alpha = 50" in out


@pytest.mark.parametrize("wrong, hint", [
    (lambda sweep: right_fit(sweep)[::-1], "(alpha, beta) are swapped"),
    (lambda sweep: ring._fit(sweep, center=statistics.mean), "take the median"),
    (lambda sweep: ring._fit(sweep, moved=False), "the model's x is the bytes each rank moves"),
    (lambda sweep: ring._fit(sweep, relative=False), "that is plain least squares"),
])
def test_usual_fitting_mistakes_get_their_hint(wrong, hint, fails_with):
    with fails_with(hint):
        checks.alpha_beta(wrong)


@pytest.mark.parametrize("wrong, hint", [
    (lambda a, b, size, n: a + b * size, "the bytes moved are 2(n-1)/n x the message"),
    (lambda a, b, size, n: b * comm_model.ring_factor(n) * size, "alpha, the cost of every call, is missing"),
])
def test_prediction_mistakes_get_their_hint(wrong, hint, fails_with):
    with fails_with(hint):
        checks.predicted_time(wrong)


def test_the_synthetic_sweep_recovers_its_own_alpha_and_bandwidth():
    fitted = comm_model.fit((s, n, statistics.median(t)) for s, n, t in ring.synthetic_sweep(50e-6, 10e9, (4, 8), 1))
    assert fitted.alpha == pytest.approx(50e-6, rel=0.05) and fitted.bus_bandwidth == pytest.approx(10e9, rel=0.05)


def test_an_error_is_reported_with_the_line_of_the_students_file_it_came_from():
    trace = ('Traceback (most recent call last):\n  File "/x/ddp_lessons/scripts/check_ring.py", line 99, in try_world\n'
             '    student(tensor)\n  File "/home/s/scripts/16_ring.py", line 12, in ring_allreduce\n'
             '    chunks[4].add_(arrived)\nIndexError: tuple index out of range\n')
    rows = [record(r, 3, error="IndexError: tuple index out of range", traceback=trace) for r in range(3)]
    assert "at 16_ring.py:12: chunks[4].add_(arrived): torch.chunk(tensor, n)" in ring.ring_hint(rows, worlds=(3,))


def test_a_spanish_notebook_reads_the_ring_hints_in_spanish(monkeypatch):
    monkeypatch.setenv("DDP_LESSONS_LANG", "es")
    averaged = [record(r, 3, equal=False, averaged=True, wrong_elements=30) for r in range(3)]
    assert ring.ring_hint(averaged, worlds=(3,)) == \
        "en 3 ranks el resultado es la media: all_reduce suma (quite la división entre 3)"
    with pytest.raises(AssertionError, match="falta alpha, el coste de cada llamada"):
        checks.predicted_time(lambda a, b, size, n: b * comm_model.ring_factor(n) * size)
