"""How long an all-reduce takes and what it costs a DDP step: the α–β model (taught in lesson 16).

A ring all-reduce of S bytes on n ranks moves ``2(n-1)/n · S`` bytes through each rank's link
(`moved_bytes`). Its time is modelled as ``α + β · moved``: α the fixed cost of a call (latency,
software), β the seconds per byte moved. `fit` finds α and β from a sweep of measured medians by
least squares on *relative* errors (a sweep spans several orders of magnitude in time; plain least
squares would let the largest messages alone decide, and α could come out negative).

Bandwidths are reported as nccl-tests defines them (``doc/PERFORMANCE.md`` in NVIDIA/nccl-tests):
algorithm bandwidth ``algbw = S / t`` and bus bandwidth ``busbw = algbw · 2(n-1)/n``, which is
comparable to the link's speed whatever n is. In the model, ``1 / β`` is the bus bandwidth of a very
large message.

For DDP: `bucket_layout` groups gradients into buckets the way DDP's reducer does (in the order
gradients become ready, closing a bucket once it reaches its cap; the first bucket may have a cap of
its own), and `predict_step` lays each bucket's all-reduce on a timeline that starts when its last
gradient is ready and waits for the previous all-reduce: what backward cannot hide is exposed and
adds to the step. No torch here: `ddp_lessons.scripts.bench_comm` measures, this module computes.
"""

from __future__ import annotations

import math
import statistics
from dataclasses import dataclass, field
from typing import Iterable, Sequence

from ddp_lessons.i18n import tr

MB = 1024 * 1024
"""Bytes in one MiB: DDP's ``bucket_cap_mb`` counts in these."""

NCCL_TESTS_DOC = "https://github.com/NVIDIA/nccl-tests/blob/master/doc/PERFORMANCE.md"


def ring_factor(world: int) -> float:
    """2(n-1)/n: bytes each rank moves per byte all-reduced in a ring (nccl-tests' busbw factor)."""
    if world < 1:
        raise ValueError(tr("world_size must be >= 1, got {world_size}", world_size=world))
    return 2 * (world - 1) / world


def moved_bytes(message_bytes: float, world: int) -> float:
    """Bytes each rank sends (and receives) to all-reduce `message_bytes` over a ring of `world`."""
    return ring_factor(world) * message_bytes


def ring_bytes_per_rank(numel: int, world: int, element_size: int = 4) -> list[int]:
    """Exact bytes each rank sends in a ring all-reduce of `numel` elements split into `world`
    chunks as ``tensor_split`` does (sizes differ by at most one element): rank r skips chunk r+1
    while reduce-scattering and chunk r+2 while all-gathering; the total is 2(n-1)·S."""
    sizes = [numel // world + (1 if c < numel % world else 0) for c in range(world)]
    if world == 1:
        return [0]
    return [element_size * (2 * numel - sizes[(r + 1) % world] - sizes[(r + 2) % world])
            for r in range(world)]


def algbw(message_bytes: float, seconds: float) -> float:
    """Algorithm bandwidth, bytes/s: the message size over the time (nccl-tests' ``algbw``)."""
    return message_bytes / seconds


def busbw(message_bytes: float, seconds: float, world: int) -> float:
    """Bus bandwidth, bytes/s: algbw · 2(n-1)/n for all-reduce (nccl-tests' ``busbw``)."""
    return algbw(message_bytes, seconds) * ring_factor(world)


@dataclass(frozen=True)
class Fit:
    """time ≈ alpha + beta · moved bytes, fitted on `points` (message bytes, world, seconds)."""

    alpha: float  # seconds per call
    beta: float  # seconds per byte moved through a rank's link
    points: tuple[tuple[float, int, float], ...] = field(default=(), repr=False)

    def time(self, message_bytes: float, world: int) -> float:
        """Predicted seconds to all-reduce `message_bytes` on `world` ranks."""
        return self.alpha + self.beta * moved_bytes(message_bytes, world)

    @property
    def bus_bandwidth(self) -> float:
        """1/β: the bus bandwidth (bytes/s) the model approaches for very large messages."""
        return 1 / self.beta

    def knee_bytes(self, world: int) -> float:
        """Message size at which latency and bandwidth cost the same (α = β · moved)."""
        return self.alpha / self.beta / ring_factor(world)

    def residuals(self) -> list[float]:
        """(measured - fitted) / fitted for every point, in the order of `points`."""
        return [(t - self.time(s, n)) / self.time(s, n) for s, n, t in self.points]


def line_fit(xs: Sequence[float], ts: Sequence[float], relative: bool = True) -> tuple[float, float]:
    """(a, b) of t ≈ a + b·x by least squares: on relative errors ((a + b·x) / t - 1) by default,
    on absolute ones (a + b·x - t) with ``relative=False``."""
    rows = [(w, w * x, w * t) for x, t in zip(xs, ts) for w in [1 / t if relative else 1.0]]
    s11 = sum(a * a for a, _, _ in rows)
    s12 = sum(a * b for a, b, _ in rows)
    s22 = sum(b * b for _, b, _ in rows)
    r1, r2 = sum(a * y for a, _, y in rows), sum(b * y for _, b, y in rows)
    det = s11 * s22 - s12 * s12
    return (r1 * s22 - r2 * s12) / det, (s11 * r2 - s12 * r1) / det


def fit(points: Iterable[tuple[float, int, float]], bandwidth_from: float | None = None) -> Fit:
    """α and β minimising the squared *relative* error over `points` (message bytes, world, seconds).

    Each point is usually the median of several repeats of one size. Dividing every equation
    ``α + β·moved = t`` by t weights a 0.1 ms call as much as a 30 ms one.

    With `bandwidth_from`, β is fitted again, α kept, on the messages of at least that many bytes
    only, by least squares on their times (the largest messages, where most of the time goes,
    weigh most): where one line does not fit every size (on a CPU, messages that fit in the caches
    move faster than larger ones), β then describes the large messages, DDP's buckets, and α the
    small ones.
    """
    points = tuple((float(s), int(n), float(t)) for s, n, t in points)
    if len({moved_bytes(s, n) for s, n, _ in points}) < 2:
        raise ValueError(tr("a fit needs at least two different message sizes"))
    if any(t <= 0 for _, _, t in points):
        raise ValueError(tr("every time must be positive"))
    alpha, beta = line_fit([moved_bytes(s, n) for s, n, _ in points], [t for _, _, t in points])
    if bandwidth_from is not None:
        large = [(moved_bytes(s, n), t) for s, n, t in points if s >= bandwidth_from and n > 1]
        if not large:
            raise ValueError(tr("no message of at least {size:g} bytes to fit beta on", size=bandwidth_from))
        # minimise sum((alpha + beta*m - t)^2) over beta alone
        beta = sum(m * (t - alpha) for m, t in large) / sum(m * m for m, _ in large)
    return Fit(alpha, beta, points)


def medians(samples: dict[int, Sequence[float]]) -> dict[int, float]:
    """{size: median seconds} from {size: [seconds of each repeat]}."""
    return {size: statistics.median(times) for size, times in sorted(samples.items())}


def slowest_rank(per_rank: Sequence[Sequence[float]]) -> list[float]:
    """Each repeat's time as its slowest rank saw it (a collective ends when the last rank is done)."""
    return [max(times) for times in zip(*per_rank)]


def sweep_table(fitted: Fit) -> list[dict[str, float]]:
    """One row per fitted point: size, world, measured and fitted seconds, algbw and busbw."""
    rows = []
    for (size, world, seconds), residual in zip(fitted.points, fitted.residuals()):
        rows.append({"bytes": size, "world": world, "seconds": seconds,
                     "fitted_seconds": fitted.time(size, world), "residual": residual,
                     "algbw": algbw(size, seconds), "busbw": busbw(size, seconds, world)})
    return rows


def bucket_layout(param_bytes: Sequence[int], cap_bytes: float,
                  first_cap_bytes: float | None = None) -> list[list[int]]:
    """Indices into `param_bytes` (in the order gradients become ready) of each DDP bucket.

    As DDP's reducer rebuilds its buckets after the first step: take the gradients in ready order,
    close a bucket as soon as it holds at least its cap; the first bucket's cap is
    `first_cap_bytes` (DDP uses 1 MiB there only when ``bucket_cap_mb`` is left at its default,
    on torch 2.13), the others' `cap_bytes`.
    """
    buckets, current, size = [], [], 0
    limit = cap_bytes if first_cap_bytes is None else first_cap_bytes
    for index, nbytes in enumerate(param_bytes):
        current.append(index)
        size += nbytes
        if size >= limit:
            buckets.append(current)
            current, size, limit = [], 0, cap_bytes
    if current:
        buckets.append(current)
    return buckets


@dataclass(frozen=True)
class Bucket:
    """One all-reduce on the predicted timeline (seconds since backward started)."""

    nbytes: int
    ready: float  # its last gradient is ready
    start: float  # ready, and the previous all-reduce is done
    end: float


@dataclass(frozen=True)
class StepPrediction:
    """Communication of one DDP step: total all-reduce time, the part backward hides, the rest."""

    buckets: tuple[Bucket, ...]
    backward_end: float
    total: float  # sum of every bucket's all-reduce time
    exposed: float  # how far the last all-reduce ends after backward: the time it adds to a step
    compute: float | None = None  # the step without communication, when given

    @property
    def hidden(self) -> float:
        """Communication time that ran while backward was still computing."""
        return self.total - self.exposed

    @property
    def step(self) -> float | None:
        """Predicted step time: compute plus exposed communication."""
        return None if self.compute is None else self.compute + self.exposed


def predict_step(fitted: Fit, world: int, buckets: Sequence[tuple[int, float]], backward_end: float,
                 compute: float | None = None) -> StepPrediction:
    """Lay out each bucket (bytes, seconds its last gradient is ready after backward starts) on one
    link, in order: it starts when ready and when the previous all-reduce is done."""
    timeline, free = [], 0.0
    for nbytes, ready in buckets:
        start = max(ready, free)
        free = start + fitted.time(nbytes, world)
        timeline.append(Bucket(nbytes, ready, start, free))
    total = sum(b.end - b.start for b in timeline)
    exposed = max(0.0, free - backward_end) if timeline else 0.0
    return StepPrediction(tuple(timeline), backward_end, total, exposed, compute)


def bucket_ready_times(layout: Sequence[Sequence[int]], ready: Sequence[float],
                       param_bytes: Sequence[int]) -> list[tuple[int, float]]:
    """(bytes, ready time) of each bucket: the sum of its gradients' bytes, its last gradient's time."""
    return [(sum(param_bytes[i] for i in bucket), max(ready[i] for i in bucket)) for bucket in layout]


def ratio(predicted: float, measured: float) -> float:
    """predicted / measured (inf when nothing was measured)."""
    return predicted / measured if measured > 0 else math.inf
