"""`checks.ring` (exercise 16): the ring all-reduce check passes the solution and names the symptom of
each wrong ring; the α–β checks pass right functions and hint at the usual mistakes.

The wrong rings are the solution's script with its body replaced, run under torchrun by the check
itself (slow); `ring_hint`'s other branches get the records a wrong ring would write (fast). The ring is the
exercise as it was before its rework, so its real runs are `extended` (`make test-extended`): `make test` keeps
its records' tests, and the runner they share with halving-doubling runs there for real.
"""
import re
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
RING = 'import torch\nimport torch.distributed as dist\n\n\ndef ring_allreduce(tensor: torch.Tensor) -> None:\n    # Sum `tensor` over all ranks of the default group, in place, around a ring.\n    ### BEGIN SOLUTION\n    n, me = dist.get_world_size(), dist.get_rank()\n    right, left = (me + 1) % n, (me - 1) % n\n    chunks = tensor.tensor_split(n)\n\n    def exchange(send, receive):\n        ops = [dist.P2POp(dist.isend, send, right), dist.P2POp(dist.irecv, receive, left)]\n        for work in dist.batch_isend_irecv(ops):\n            work.wait()\n\n    for step in range(n - 1):  # reduce-scatter\n        out, into = (me - step) % n, (me - step - 1) % n\n        arrived = torch.empty_like(chunks[into])\n        exchange(chunks[out], arrived)\n        chunks[into].add_(arrived)\n    for step in range(n - 1):  # all-gather\n        out, into = (me - step + 1) % n, (me - step) % n\n        exchange(chunks[out], chunks[into])\n    ### END SOLUTION\n'
"""The ring of lesson 16, as exercise 16 asked for it before its rework (`checks.ring_allreduce` still checks it:
a submission from then is graded with it)."""


@pytest.fixture
def solution_script(tmp_path):
    """`solution_script("16_ring_allreduce", "16_ring.py", replace)`: the ring script `RING`, with each {old: new}
    of `replace` applied, in tmp_path."""
    def write(notebook, script, replace=None):
        assert (notebook, script) == ("16_ring_allreduce", "16_ring.py")
        source = RING
        for old, new in (replace or {}).items():
            assert old in source, old
            source = source.replace(old, new)
        path = tmp_path / "scripts" / script
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(source)
        return path
    return write


def wrong_ring(solution_script, body: str):
    """The solution's script with the body of ring_allreduce replaced by `body`."""
    path = solution_script("16_ring_allreduce", "16_ring.py")
    head, _, rest = path.read_text().partition("    ### BEGIN SOLUTION\n")
    path.write_text(head + body + rest.partition("    ### END SOLUTION\n")[2])
    return path


@pytest.mark.slow
@pytest.mark.extended
def test_the_solution_passes_on_2_3_and_4_ranks(tmp_path, monkeypatch, capsys, solution_script):
    monkeypatch.chdir(tmp_path)
    checks.ring_allreduce(solution_script("16_ring_allreduce", "16_ring.py"))
    out = capsys.readouterr().out
    assert out.startswith("✓ on 2, 3, 4 ranks") and "rank 0 sent" in out


@pytest.mark.slow
@pytest.mark.extended
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
@pytest.mark.extended
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


# -- recursive halving-doubling (the reworked exercise): synthetic records, no launch -----------------------

def halving_doubling_sends(rank, n, numel, distances=None):
    """[peer, bytes] of each send of `rank` in the solution's schedule (split at low + size // 2)."""
    distances = distances or [n >> k for k in range(1, n.bit_length())]
    low, high, steps = 0, numel, []
    for d in distances:
        peer = rank ^ d
        middle = low + (high - low) // 2
        keep, give = ((low, middle), (middle, high)) if rank < peer else ((middle, high), (low, middle))
        steps.append((peer, keep, give))
        low, high = keep
    scatter = [[peer, 4 * (give[1] - give[0])] for peer, keep, give in steps]
    gather = [[peer, 4 * (keep[1] - keep[0])] for peer, keep, give in reversed(steps)]
    return scatter + gather


def ring_sends(rank, n, numel):
    sizes = [numel // n + (1 if i < numel % n else 0) for i in range(n)]
    scatter = [[(rank + 1) % n, 4 * sizes[(rank - s) % n]] for s in range(n - 1)]
    gather = [[(rank + 1) % n, 4 * sizes[(rank + 1 - s) % n]] for s in range(n - 1)]
    return scatter + gather


def direct_sends(rank, n, numel):
    sizes = [numel // n + (1 if i < numel % n else 0) for i in range(n)]
    others = [peer for peer in range(n) if peer != rank]
    return [[peer, 4 * sizes[peer]] for peer in others] + [[peer, 4 * sizes[rank]] for peer in others]


def whole_part_sends(rank, n, numel):
    """Halving-doubling's partners, but each reduce-scatter step sends the whole part, not the half the partner keeps."""
    sends = halving_doubling_sends(rank, n, numel)
    half = len(sends) // 2
    part = numel
    for k in range(half):
        sends[k][1] = 4 * part
        part = part - part // 2 if rank < (rank ^ (n >> (k + 1))) else part // 2
    return sends


def gather_not_reversed(rank, n, numel):
    sends = halving_doubling_sends(rank, n, numel)
    half = len(sends) // 2
    return sends[:half] + sends[half:][::-1] if n > 2 else sends  # the all-gather in the reduce-scatter's order


def hd_rows(sends_of, worlds=(2, 4), **case_changes):
    rows = []
    for rank in range(max(worlds)):
        row = {"rank": rank, "import_error": None, "worlds": []}
        for n in worlds:
            if rank < n:
                cases = []
                for numel in (n * 8, n * 2 + 1, 1000 + n - 1):
                    sends = sends_of(rank, n, numel)
                    cases.append({"numel": numel, "bytes": 4 * numel, "sent": sum(b for _, b in sends),
                                  "collectives": [], "error": None, "equal": True, "unchanged": False,
                                  "averaged": False, "wrong_elements": 0, "sends": sends,
                                  "recvs": [[peer, b] for peer, b in sends], **case_changes})
                row["worlds"].append({"world": n, "cases": cases})
        rows.append(row)
    return rows


@pytest.fixture
def fresh_kernel(monkeypatch):
    from ddp_lessons.checks import common
    monkeypatch.setattr(common, "_given", common.Counter())


@pytest.mark.parametrize("distances", [None, "doubling"], ids=["distance n/2 first", "distance 1 first"])
def test_records_of_halving_doubling_pass_whichever_distance_comes_first(distances, fresh_kernel):
    order = (lambda rank, n, numel: halving_doubling_sends(rank, n, numel, [1 << k for k in range(n.bit_length() - 1)])) \
        if distances else halving_doubling_sends
    ring.schedule_verdict(hd_rows(order))


def test_the_ring_and_a_direct_exchange_move_the_same_bytes_as_halving_doubling():
    for n in (2, 4, 8):
        for numel in (n * 8, 1000 + n - 1):
            totals = {sum(b for _, b in f(0, n, numel)) for f in (ring_sends, direct_sends)}
            hd = sum(sum(b for _, b in halving_doubling_sends(r, n, numel)) for r in range(n))
            assert hd == sum(sum(b for _, b in ring_sends(r, n, numel)) for r in range(n)) == 2 * (n - 1) * 4 * numel


WRONG_SCHEDULES = [
    ("lesson's ring", ring_sends, "ring", "always the next rank, in 2(n-1) = 6 steps. That is the lesson's ring"),
    ("direct exchange", direct_sends, "direct", "every other rank. A direct exchange moves as many bytes as a ring"),
    ("whole part each step", whole_part_sends, "bytes", "on 2 ranks, in step 1 (reduce-scatter) rank 0 sent 4,004 "
                                                        "bytes to rank 1, 1 of the 4,004-byte tensor, where that step "
                                                        "carries 0.5 of it"),
    ("all-gather not reversed", gather_not_reversed, "peers", "where halving-doubling takes 4 steps, a partner r XOR d"),
]


@pytest.mark.parametrize("sends_of, hint, symptom", [w[1:] for w in WRONG_SCHEDULES], ids=[w[0] for w in WRONG_SCHEDULES])
def test_each_wrong_schedule_gets_its_symptom_then_the_fix(sends_of, hint, symptom, fresh_kernel):
    import re
    from ddp_lessons.checks import common
    rows = hd_rows(sends_of)
    with pytest.raises(common.CheckFailed, match=re.escape(symptom)) as first:
        ring.schedule_verdict(rows)
    assert first.value.hint == hint and "How to fix it" not in str(first.value)
    with pytest.raises(common.CheckFailed, match="How to fix it: in reduce-scatter step k") as second:
        ring.schedule_verdict(rows)
    assert second.value.fix_shown


@pytest.mark.parametrize("change, hint, symptom", [
    ({"equal": False, "unchanged": True}, "result", "on 2 ranks rank 0's tensor came back unchanged"),
    ({"equal": False, "averaged": True}, "result", "on 2 ranks the result is the mean, not the sum"),
    ({"collectives": ["all_reduce"]}, "collective", "halving_doubling_allreduce called dist.all_reduce"),
    ({"error": "NotImplementedError: ", "equal": False}, "error", "raised NotImplementedError"),
])
def test_wrong_results_and_collectives_get_their_hint(change, hint, symptom, fresh_kernel):
    from ddp_lessons.checks import common
    with pytest.raises(common.CheckFailed, match=re.escape(symptom)) as caught:
        ring.schedule_verdict(hd_rows(halving_doubling_sends, **change))
    assert caught.value.hint == hint


@pytest.mark.parametrize("answers, symptom", [
    ({"ring": None, "halving_doubling": None}, 'STEPS_ON_64["ring"] is None'),
    ({"ring": 63, "halving_doubling": 12}, "63 steps for ring on 64 ranks: that is one of its two phases"),
    ({"ring": 128, "halving_doubling": 12}, "passes a chunk on n - 1 times per phase, not n"),
    ({"ring": 126, "halving_doubling": 6}, "6 steps for halving_doubling on 64 ranks: that is one of its two phases"),
    ({"ring": 126, "halving_doubling": 64}, "64 steps for halving_doubling on 64 ranks"),
])
def test_latency_steps_pass_the_counts_and_catch_each_miscount(answers, symptom, fresh_kernel, fails_with, capsys):
    checks.latency_steps({"ring": 126, "halving_doubling": 12})
    assert "the ring takes 126 steps and halving-doubling 12" in capsys.readouterr().out
    with fails_with(symptom):
        checks.latency_steps(answers)
