"""Checks of exercise 16: a ring all-reduce from point-to-point calls, and the α–β cost model.

`ring_allreduce` launches ``scripts/check_ring.py``, which runs the student's function on 2, 3 and
4 ranks and records, per tensor, whether the result equals `dist.all_reduce`'s and the bytes each
rank sent; `ring_hint` turns what went wrong into a hint naming the symptom. `alpha_beta` and
`predicted_time` check pure functions against `ddp_lessons.comm_model`.
"""

from __future__ import annotations

import math
import os
import random
import re
import statistics
from pathlib import Path
from typing import Any, Callable, Sequence

from ddp_lessons import comm_model, launch, records, scripts
from ddp_lessons.checks.common import expect, fail, passed, recorded, written
from ddp_lessons.i18n import tr

CHECKER = scripts.path("check_ring.py")
"""The packaged script that runs a student's ring_allreduce on several world sizes."""
WORLDS = (2, 3, 4)


def _run_checker(script: str | os.PathLike, function: str, worlds: Sequence[int], timeout: float) -> list[dict]:
    """Run the student's all-reduce `function` from `script` on each of `worlds` (check_ring.py); its rows.
    A hang or a rank's failure becomes the assertion a student reads."""
    written(script)
    try:
        run = launch.run_torchrun(CHECKER, max(worlds), args=[str(script), "--function", function,
                                                               "--worlds", *map(str, worlds)],
                                  timeout=timeout, env={"CUDA_VISIBLE_DEVICES": ""}, backend="gloo",
                                  run_dir=records.new_run_dir(Path(script).stem), echo=False)
    except launch.RunTimeoutError as error:
        where = "; ".join(f"rank {r}: {w}" for r, w in sorted(error.result.where.items()))
        raise AssertionError(tr("{function} did not return within {timeout:g} s ({where}): look for a loop that "
                                "never ends or a receive nobody sends to", function=function, timeout=timeout,
                                where=where)) from None
    except launch.RankFailedError as error:
        hint = _hint_from_records(error.result.run_dir, worlds)
        raise AssertionError(hint or tr("the check's ranks failed: {error}", error=error)) from None
    return records.load(run.run_dir, "ring")


@recorded("16")
def ring_allreduce(script: str | os.PathLike, worlds: Sequence[int] = WORLDS, timeout: float = 150) -> None:
    """`ring_allreduce(tensor)` in `script` sums in place like `dist.all_reduce`, on every world
    size, for sizes divisible by it or not, with each rank sending 2(n-1)/n of the tensor."""
    rows = _run_checker(script, "ring_allreduce", worlds, timeout)
    hint = ring_hint(rows, worlds)
    assert hint is None, hint
    sizes = {c["numel"] for row in rows for w in row["worlds"] for c in w["cases"]}
    three = next(w for w in rows[0]["worlds"] if w["world"] == sorted(worlds)[len(worlds) // 2])
    example = three["cases"][-1]
    passed(tr("on {worlds} ranks and {sizes} tensor sizes (some not divisible by the world size) ring_allreduce "
              "equals dist.all_reduce, and each rank sends 2(n-1)/n of the tensor (on {world} ranks, rank 0 sent "
              "{sent:,} of {total:,} bytes)", worlds=", ".join(map(str, worlds)), sizes=len(sizes),
              world=three["world"], sent=example["sent"], total=example["bytes"]))


def _hint_from_records(run_dir: Path, worlds: Sequence[int]) -> str | None:
    """The error hint from the records the ranks wrote before one of them died, or None: a student's
    error recorded by one rank says more than the crash it left behind in another."""
    try:
        rows = records.load(run_dir, "ring")
    except FileNotFoundError:
        return None
    for n in sorted(worlds):
        hint = _errors_hint([(row["rank"], w["cases"]) for row in rows for w in row["worlds"] if w["world"] == n], n)
        if hint:
            return hint
    return None


def ring_hint(rows: Sequence[dict[str, Any]], worlds: Sequence[int] = WORLDS) -> str | None:
    """What is wrong, as a hint, from every rank's ``ring`` record; None when all is right."""
    failed_import = next((row["import_error"] for row in rows if row.get("import_error")), None)
    if failed_import:
        return tr("the script could not be imported ({error}): it must define ring_allreduce(tensor), with its "
                  "imports, and run nothing when imported", error=failed_import)
    by_world = {n: [(row["rank"], w["cases"]) for row in rows for w in row["worlds"] if w["world"] == n]
                for n in worlds}
    for n in sorted(by_world):
        if not by_world[n]:
            return tr("no rank reported on {n} ranks: did the check's launch fail?", n=n)
        hint = _errors_hint(by_world[n], n) or _result_hint(by_world[n], n) or _bytes_hint(by_world[n], n)
        if hint:
            return hint
    return None


def _errors(ranks: list) -> list[tuple[int, dict]]:
    return [(rank, case) for rank, cases in ranks for case in cases if case["error"]]


def _errors_hint(ranks: list, n: int) -> str | None:
    errors = _errors(ranks)
    if not errors:
        return None
    own = [(rank, case) for rank, case in errors if not _peer_failure(case["error"])]
    if not own:  # every rank waited for a peer until the group's timeout
        return tr("on {n} ranks ring_allreduce never finished: every rank waited for a peer (gloo's timeout: "
                  "{error}). A blocking dist.send waits until the receiver is receiving, so when every rank sends "
                  "first they wait for each other forever. Post the send and the receive together: dist.isend + "
                  "dist.irecv (or dist.batch_isend_irecv with P2POp), then wait() for both",
                  n=n, error=errors[0][1]["error"][:120])
    rank, case = own[0]
    message = case["error"]
    if message.startswith("NotImplementedError"):
        return tr("ring_allreduce raised NotImplementedError: write it where the cell says `# YOUR CODE HERE`")
    advice = ""
    if message.startswith("IndexError"):
        advice = tr(": torch.chunk(tensor, n) can return fewer than n chunks (e.g. 9 elements on 4 ranks give 3 "
                    "chunks of 3); torch.tensor_split(tensor, n) always returns n")
    elif "view" in message or "shape" in message:
        advice = tr(": the size need not divide by the world size; split with torch.tensor_split(tensor, n), "
                    "whose chunks differ by at most one element")
    return tr("on {n} ranks, rank {rank} raised {message} for a tensor of {numel} elements{where}{advice}", n=n,
              rank=rank, message=message, numel=case["numel"], where=_where(case.get("traceback", "")),
              advice=advice)


def _where(trace: str) -> str:
    """' at 16_ring.py:12: source line' for the innermost frame of the student's file, or ''."""
    frames = re.findall(r'File "([^"]+)", line (\d+), in \S+\n\s+(.+)', trace)
    library = ("/ddp_lessons/", "site-packages", "/torch/")
    mine = [(Path(path).name, line, source) for path, line, source in frames
            if not any(part in path for part in library)]
    return tr(" at {file}:{line}: {source}", file=mine[-1][0], line=mine[-1][1], source=mine[-1][2].strip()) \
        if mine else ""


def _peer_failure(message: str) -> bool:
    """Whether an error only says that a peer failed or never answered."""
    return any(text in message for text in ("Timed out", "timed out", "Connection closed by peer",
                                            "Connection reset", "Read error"))


def _result_hint(ranks: list, n: int) -> str | None:
    used = sorted({name for _, cases in ranks for case in cases for name in case["collectives"]})
    if used:
        return tr("ring_allreduce called dist.{name}: build the ring from point-to-point calls only "
                  "(dist.isend/dist.irecv, dist.send/dist.recv or dist.batch_isend_irecv)", name=used[0])
    wrong = [(rank, case) for rank, cases in ranks for case in cases if not case["equal"]]
    if not wrong:
        return None
    rank, case = wrong[0]
    if case["unchanged"]:
        return tr("on {n} ranks rank {rank}'s tensor came back unchanged: ring_allreduce works in place, like "
                  "dist.all_reduce: add the received chunks into the tensor's own chunks (tensor.tensor_split(n) "
                  "returns views) and receive the finished chunks into them", n=n, rank=rank)
    if case["averaged"]:
        return tr("on {n} ranks the result is the mean: all_reduce sums (leave out the division by {n})", n=n)
    uneven = [c for _, c in wrong if c["numel"] % n]
    note = tr(" Only sizes that do not divide by the world size are wrong: split with "
              "torch.tensor_split(tensor, n) and use each chunk's own size.") if len(uneven) == len(wrong) else ""
    return tr("on {n} ranks rank {rank}'s result differs from dist.all_reduce in {wrong} of {numel} elements.{note} "
              "Check the chunk indices: in reduce-scatter step s rank r sends chunk (r - s) mod n to rank r + 1 and "
              "adds what arrives into chunk (r - s - 1) mod n; in all-gather step s it sends chunk (r + 1 - s) mod n "
              "and overwrites chunk (r - s) mod n", n=n, rank=rank, wrong=case["wrong_elements"],
              numel=case["numel"], note=note)


def _bytes_hint(ranks: list, n: int) -> str | None:
    by_rank = {rank: cases for rank, cases in ranks}
    case = max(by_rank[0], key=lambda c: c["numel"])  # the largest tensor shows the pattern best
    index = by_rank[0].index(case)
    sent = {rank: cases[index]["sent"] for rank, cases in by_rank.items()}
    size, numel = case["bytes"], case["numel"]
    ring = comm_model.moved_bytes(size, n)
    most = 4 * 2 * (n - 1) * math.ceil(numel / n)  # any split into n chunks, each rank sending 2(n-1)
    if all(bytes_sent == 0 for bytes_sent in sent.values()):
        return tr("no rank sent anything point to point, yet the sums are right: the check counts what dist.send, "
                  "dist.isend and dist.batch_isend_irecv send; build the ring from them")
    if sum(sent.values()) == 2 * (n - 1) * size and max(sent.values()) <= most:
        return None
    heaviest = max(sent, key=sent.get)
    if n > 2 and sent[heaviest] >= (n - 1) * size and min(sent.values()) <= size:
        return tr("on {n} ranks rank {rank} sent {sent:,} bytes, {times:.0f}x the {size:,}-byte tensor, and another "
                  "rank only {least:,}: that is a reduce to one rank and a broadcast back. That rank's link carries "
                  "n - 1 tensors each way, more with every rank added; in a ring every rank sends 2(n-1)/n of the "
                  "tensor ({ring:,.0f} bytes here)", n=n, rank=heaviest, sent=sent[heaviest],
                  times=sent[heaviest] / size, size=size, least=min(sent.values()), ring=ring)
    if min(sent.values()) >= (n - 1) * size:
        return tr("on {n} ranks every rank sent {least:.1f}x to {most:.1f}x the tensor ({size:,} bytes), a ring "
                  "sends 2(n-1)/n = {factor:.2f}x: it sends the whole tensor in each step. Send one chunk (1/n of the "
                  "tensor) per step", n=n, least=min(sent.values()) / size, most=max(sent.values()) / size,
                  size=size, factor=comm_model.ring_factor(n))
    return tr("on {n} ranks the ranks sent {sent} bytes for a {size:,}-byte tensor; a ring sends 2(n-1)/n of it per "
              "rank ({ring:,.0f}), 2(n-1) tensors in all ({total:,})", n=n,
              sent=", ".join(f"{b:,}" for b in sent.values()), size=size, ring=ring, total=2 * (n - 1) * size)


# -- part 1, since the rework: recursive halving-doubling --------------------------------------------

HD_WORLDS = (2, 4)
"""World sizes the halving-doubling check runs: powers of two (on 2 ranks every algorithm looks the same; 4 tells
a ring, a direct exchange and halving-doubling apart)."""


@recorded("16")
def halving_doubling(script: str | os.PathLike, worlds: Sequence[int] = HD_WORLDS, timeout: float = 150) -> None:
    """`halving_doubling_allreduce(tensor)` in `script` sums in place like `dist.all_reduce` on 2 and 4 ranks,
    exchanging with rank r XOR d, d halving through the reduce-scatter and doubling back through the all-gather,
    each step carrying the share of the tensor that step should (`schedule_verdict`)."""
    rows = _run_checker(script, "halving_doubling_allreduce", worlds, timeout)
    schedule_verdict(rows, worlds)
    four = next(w for w in rows[1]["worlds"] if w["world"] == max(worlds))
    case = max(four["cases"], key=lambda c: c["numel"])
    passed(tr("on {worlds} ranks halving_doubling_allreduce equals dist.all_reduce; on {n} ranks rank 1 talked to "
              "ranks {peers} and sent {sent} bytes of a {size:,}-byte tensor, step by step",
              worlds=", ".join(map(str, worlds)), n=max(worlds), peers=", ".join(str(p) for p, _ in case["sends"]),
              sent=", ".join(f"{b:,}" for _, b in case["sends"]), size=case["bytes"]))


def expected_schedule(rank: int, n: int, numel: int, first_distance: int) -> list[tuple[int, float]]:
    """[(peer, elements)] of each send of `rank`: reduce-scatter steps k = 1..log2(n) send about numel / 2^k to
    rank XOR d (d from `first_distance`, n/2 or 1, halving or doubling), the all-gather the same partners in
    reverse with the same amounts in reverse."""
    steps = n.bit_length() - 1
    distances = [n >> k for k in range(1, steps + 1)] if first_distance == n // 2 else [1 << k for k in range(steps)]
    scatter = [(rank ^ d, numel / 2 ** k) for k, d in enumerate(distances, start=1)]
    return scatter + scatter[::-1]


def _schedule_mistake(rank: int, n: int, case: dict[str, Any]) -> tuple[str, str, str] | None:
    """(hint, symptom, fix) of what is wrong with `rank`'s sends for one tensor on `n` ranks, or None."""
    sends, numel, size = case["sends"], case["numel"], case["bytes"]
    steps = 2 * (n.bit_length() - 1)
    fix = tr("in reduce-scatter step k = 1, 2, …, log2(n), exchange with rank r XOR d, d = n/2, n/4, …, 1: send the "
             "half of your current part that the partner keeps, add the half it sends into the half you keep; then "
             "the all-gather meets the same partners in reverse order, each time sending all you hold")
    peers = [peer for peer, _ in sends]
    shown = tr("rank {rank} sent {messages} messages to ranks {peers}", rank=rank, messages=len(sends),
               peers=", ".join(map(str, peers)))
    if not sends:
        return ("no-sends", tr("on {n} ranks rank {rank} sent nothing point to point, yet the sums are right: the "
                               "check counts what dist.send, dist.isend and dist.batch_isend_irecv send", n=n, rank=rank),
                fix)
    if n > 2 and set(peers) == {(rank + 1) % n} and len(sends) == 2 * (n - 1):
        return ("ring", tr("on {n} ranks {shown}: always the next rank, in 2(n-1) = {count} steps. That is the "
                           "lesson's ring; its step count, and the latency α it pays per step, grow with n",
                           n=n, shown=shown, count=2 * (n - 1)), fix)
    if n > 2 and set(peers) == set(range(n)) - {rank}:
        return ("direct", tr("on {n} ranks {shown}: every other rank. A direct exchange moves as many bytes as a ring, "
                             "but each rank opens a connection to all n-1 others and pays α for each of them",
                             n=n, shown=shown), fix)
    layouts = [expected_schedule(rank, n, numel, first) for first in {n // 2, 1}]
    layout = next((one for one in layouts if [p for p, _ in one[:len(peers)]] == peers[:len(one)]), layouts[0])
    if peers != [peer for peer, _ in layout]:
        step = next((k for k, (got, (want, _)) in enumerate(zip(peers, layout)) if got != want), min(len(peers), len(layout)))
        return ("peers", tr("on {n} ranks {shown}, where halving-doubling takes {steps} steps, a partner r XOR d in each "
                            "(here {expected}); the first difference is at step {step}",
                            n=n, shown=shown, steps=steps, expected=", ".join(str(p) for p, _ in layout), step=step + 1),
                fix)
    for step, ((peer, sent), (_, elements)) in enumerate(zip(sends, layout), start=1):
        if abs(sent / 4 - elements) > 1:
            phase = tr("reduce-scatter") if step <= steps // 2 else tr("all-gather")
            return ("bytes", tr("on {n} ranks, in step {step} ({phase}) rank {rank} sent {sent:,} bytes to rank {peer}, "
                                "{share:.3g} of the {size:,}-byte tensor, where that step carries {expected:.3g} of it",
                                n=n, step=step, phase=phase, rank=rank, sent=sent, peer=peer, share=sent / size,
                                size=size, expected=elements / numel), fix)
    return None


def schedule_verdict(rows: Sequence[dict[str, Any]], worlds: Sequence[int] = HD_WORLDS) -> None:
    """Fail, with a hint that escalates, on the first thing wrong in the ranks' ``ring`` records: an error, a
    collective, a wrong sum, then the peers and bytes of each step (`_schedule_mistake`)."""
    failed_import = next((row["import_error"] for row in rows if row.get("import_error")), None)
    expect(not failed_import, "import",
           tr("the script could not be imported ({error})", error=failed_import),
           tr("define halving_doubling_allreduce(tensor), with its imports, and run nothing when the file is imported"))
    for n in sorted(worlds):
        ranks = [(row["rank"], w["cases"]) for row in rows for w in row["worlds"] if w["world"] == n]
        expect(ranks, "no-report", tr("no rank reported on {n} ranks: did the check's launch fail?", n=n),
               tr("run the check again; if it fails the same way, run the script's cell first"))
        errors = _errors_hint(ranks, n)
        if errors:
            fail("error", errors, tr("fix the error above, run the %%writefile cell, then the check"))
        used = sorted({name for _, cases in ranks for case in cases for name in case["collectives"]})
        expect(not used, "collective",
               tr("halving_doubling_allreduce called dist.{name}, a collective", name=used[0] if used else ""),
               tr("build it from point-to-point calls only: dist.isend/dist.irecv or dist.batch_isend_irecv"))
        for rank, cases in ranks:
            for case in cases:
                if case["equal"]:
                    continue
                fail("result",
                     tr("on {n} ranks rank {rank}'s tensor came back unchanged", n=n, rank=rank) if case["unchanged"]
                     else tr("on {n} ranks the result is the mean, not the sum", n=n) if case["averaged"]
                     else tr("on {n} ranks rank {rank}'s result differs from dist.all_reduce in {wrong} of {numel} "
                             "elements", n=n, rank=rank, wrong=case["wrong_elements"], numel=case["numel"]),
                     tr("work in place: add what arrives into the half you keep, and in the all-gather receive into "
                        "the half you gave away; both partners of a step split the same part of the tensor at the "
                        "same index"))
        for rank, cases in ranks:
            for case in sorted(cases, key=lambda c: -c["numel"]):
                mistake = _schedule_mistake(rank, n, case)
                if mistake:
                    fail(*mistake)


# -- part 2: the α–β model --------------------------------------------------------------------------

Sweep = list[tuple[int, int, list[float]]]
"""(message bytes, world size, seconds of each repeat) per measured size."""


def synthetic_sweep(alpha: float, bandwidth: float, worlds: Sequence[int], seed: int) -> Sweep:
    """A sweep as a busy machine would measure it: α + moved / bandwidth, ±3 % noise, 5 repeats per
    size, one of them 10x slower (a repeat another program interrupted)."""
    rng = random.Random(seed)
    sweep = []
    for world in worlds:
        for size in (2 ** k for k in range(12, 27, 2)):
            ideal = alpha + comm_model.moved_bytes(size, world) / bandwidth
            times = [ideal * rng.uniform(0.97, 1.03) for _ in range(5)]
            times[rng.randrange(5)] *= 10
            sweep.append((size, world, times))
    return sweep


def _fit(sweep: Sweep, center=statistics.median, moved=True, relative=True) -> tuple[float, float]:
    """(α, β) as `comm_model.fit` finds them (the defaults) or with one of the usual mistakes."""
    xs = [size * (comm_model.ring_factor(world) if moved else 1.0) for size, world, _ in sweep]
    return comm_model.line_fit(xs, [center(times) for _, _, times in sweep], relative)


def _same(got: Sequence[float], expected: Sequence[float]) -> bool:
    return len(got) == len(expected) and all(math.isclose(g, e, rel_tol=1e-4) for g, e in zip(got, expected))


@recorded("16")
def alpha_beta(student_fit: Callable[[Sweep], tuple[float, float]]) -> None:
    """`student_fit(sweep)` returns (α, β): time ≈ α + β · 2(n-1)/n · bytes, fitted to each size's
    median by least squares on relative errors."""
    cases = [synthetic_sweep(50e-6, 10e9, (4, 8), seed=1), synthetic_sweep(0.2e-3, 1.2e9, (2, 3), seed=2)]
    for sweep in cases:
        fitted = comm_model.fit((size, world, statistics.median(times)) for size, world, times in sweep)
        expected = (fitted.alpha, fitted.beta)
        got = student_fit([(s, n, list(times)) for s, n, times in sweep])
        assert isinstance(got, (tuple, list)) and len(got) == 2, tr("return (alpha, beta), got {got!r}", got=got)
        got = tuple(float(x) for x in got)
        if _same(got, expected):
            continue
        wrong = {"mean": _fit(sweep, center=statistics.mean), "bytes": _fit(sweep, moved=False),
                 "plain": _fit(sweep, relative=False)}
        worlds = sorted({n for _, n, _ in sweep})
        if _same(got[::-1], expected):
            hint = tr("(alpha, beta) are swapped: alpha is seconds per call, beta seconds per byte moved")
        elif _same(got, wrong["mean"]):
            hint = tr("you fitted the mean of each size's repeats: one slow repeat pulls it up; take the median "
                      "(statistics.median)")
        elif _same(got, wrong["bytes"]):
            hint = tr("you fitted against the message size; the model's x is the bytes each rank moves, 2(n-1)/n x "
                      "size (this sweep mixes {first} and {second} ranks)", first=worlds[0], second=worlds[1])
        elif _same(got, wrong["plain"]):
            hint = tr("that is plain least squares: the largest messages decide alone and alpha comes out wrong; "
                      "divide each equation alpha + beta*moved = t by its t (relative errors)")
        else:
            hint = tr("fit alpha and beta on (moved, median time) points, moved = 2(n-1)/n x bytes, by least squares "
                      "on relative errors: minimise the sum of ((alpha + beta*moved) / t - 1)^2")
        raise AssertionError(tr("expected alpha = {alpha:.4g} s, beta = {beta:.4g} s/byte, got alpha = "
                                "{got_alpha:.4g}, beta = {got_beta:.4g}: {hint}", alpha=expected[0], beta=expected[1],
                                got_alpha=got[0], got_beta=got[1], hint=hint))
    alpha, beta = _fit(cases[0])
    passed(tr("alpha and beta fitted right (first sweep: alpha = {alpha:.1f} µs, 1/beta = {bandwidth:.2f} GB/s bus "
              "bandwidth)", alpha=alpha * 1e6, bandwidth=1 / beta / 1e9))


@recorded("16")
def predicted_time(student_predict: Callable[[float, float, float, int], float]) -> None:
    """`student_predict(alpha, beta, bytes, world)` is α + β · 2(n-1)/n · bytes."""
    alpha, beta = 50e-6, 1 / 10e9
    for size, world in ((25 * 2 ** 20, 4), (25 * 2 ** 20, 8), (4096, 8), (10 ** 8, 2)):
        expected = alpha + beta * comm_model.moved_bytes(size, world)
        got = float(student_predict(alpha, beta, size, world))
        if math.isclose(got, expected, rel_tol=1e-6):
            continue
        if math.isclose(got, alpha + beta * size, rel_tol=1e-6):
            hint = tr("the bytes moved are 2(n-1)/n x the message, not the message itself")
        elif math.isclose(got, beta * comm_model.moved_bytes(size, world), rel_tol=1e-6):
            hint = tr("alpha, the cost of every call, is missing")
        else:
            hint = tr("predicted time = alpha + beta x 2(n-1)/n x bytes")
        raise AssertionError(tr("{size:,} bytes on {world} ranks: expected {expected:.4g} ms, got {got:.4g} ms: {hint}",
                                size=size, world=world, expected=expected * 1e3, got=got * 1e3, hint=hint))
    passed(tr("predicted times are alpha + beta x 2(n-1)/n x bytes"))


@recorded("16")
def latency_steps(answers: dict[str, Any], world: int = 64, alpha: float = 50e-6) -> None:
    """`answers` holds the steps of one all-reduce on `world` ranks: {"ring": 2(n-1), "halving_doubling": 2 log2 n}."""
    expected = {"ring": 2 * (world - 1), "halving_doubling": 2 * (world.bit_length() - 1)}
    for name, steps in expected.items():
        got = answers.get(name)
        expect(isinstance(got, int) and not isinstance(got, bool), "unanswered",
               tr("STEPS_ON_64[\"{name}\"] is {got!r}, not a whole number of steps", name=name, got=got),
               tr("write each algorithm's steps on {world} ranks, reduce-scatter and all-gather together",
                  world=world))
        if got == steps:
            continue
        if got * 2 == steps:
            symptom = tr("{got} steps for {name} on {world} ranks: that is one of its two phases",
                         got=got, name=name, world=world)
        elif name == "ring" and got in (world, 2 * world):
            symptom = tr("{got} steps for the ring on {world} ranks: a ring of n ranks passes a chunk on n - 1 times "
                         "per phase, not n", got=got, world=world)
        else:
            symptom = tr("{got} steps for {name} on {world} ranks", got=got, name=name, world=world)
        fail(f"steps-{name}", symptom,
             tr("the ring: n - 1 steps of reduce-scatter and n - 1 of all-gather; halving-doubling: log2(n) steps "
                "each (the distance halves from n/2 to 1, then doubles back)"))
    passed(tr("on {world} ranks the ring takes {ring} steps and halving-doubling {hd}: at α = {alpha:g} µs per step, "
              "{ring_ms:.2f} ms against {hd_ms:.2f} ms of latency alone, whatever the message's size", world=world,
              ring=expected["ring"], hd=expected["halving_doubling"], alpha=alpha * 1e6,
              ring_ms=expected["ring"] * alpha * 1e3, hd_ms=expected["halving_doubling"] * alpha * 1e3))
