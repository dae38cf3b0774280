"""The results of `python -m ddp_lessons bench-comm` and lesson 16's tables: no torch, no launcher.

From what ranks measured (``scripts/bench_comm.py``): the sweep's points (each repeat counts as
its slowest rank, then the median), and per model and bucket size one row of predicted against
measured communication (`model_row`). Published figures to compare with live in
``ddp_lessons/data/comm_references.json`` (`references`).
"""

from __future__ import annotations

import json
import statistics
from collections import defaultdict
from importlib import resources
from pathlib import Path
from typing import Any, Sequence

from ddp_lessons import comm_model, i18n
from ddp_lessons.i18n import number, tr
from ddp_lessons.base import scaling_results

SCHEMA = "ddp_lessons.bench_comm/1"


def sweep_points(per_rank: Sequence[Sequence[dict[str, Any]]]) -> list[tuple[int, int, float]]:
    """(bytes, world, seconds) per size and world: the median over repeats of the slowest rank.

    `per_rank`: each rank's sweep rows ``{world, bytes, seconds: [each repeat]}``.
    """
    times: dict[tuple[int, int], list[list[float]]] = defaultdict(list)
    for rows in per_rank:
        for row in rows:
            times[(int(row["world"]), int(row["bytes"]))].append(row["seconds"])
    return [(size, world, statistics.median(comm_model.slowest_rank(times[(world, size)])))
            for world, size in sorted(times)]


def _median_of_slowest(per_rank: Sequence[Sequence[float | None]]) -> float | None:
    if any(value is None for values in per_rank for value in values):
        return None
    return statistics.median(comm_model.slowest_rank(per_rank))


def prediction(per_rank_profiles: Sequence[dict[str, Any]], fitted: comm_model.Fit, world: int,
               cap_bytes: float, first_cap_bytes: float | None) -> comm_model.StepPrediction:
    """DDP's communication predicted from each rank's `bench_comm.profile_model` (no DDP ran): the
    buckets `comm_model.bucket_layout` makes of the slowest rank's gradients in ready order (a
    step waits for the slowest rank), timed by the fit, against that rank's backward; the compute
    is the plain model's step (median over steps of the slowest rank)."""
    slowest = max(per_rank_profiles, key=lambda m: m["backward_ms"])
    layout = comm_model.bucket_layout(slowest["param_bytes"], cap_bytes, first_cap_bytes)
    buckets = comm_model.bucket_ready_times(layout, [ms / 1e3 for ms in slowest["ready_ms"]],
                                            slowest["param_bytes"])
    compute = statistics.median(comm_model.slowest_rank([m["step_s"] for m in per_rank_profiles]))
    return comm_model.predict_step(fitted, world, buckets, slowest["backward_ms"] / 1e3, compute)


def _median_of_slowest(per_rank: Sequence[Sequence[float | None]]) -> float | None:
    if any(value is None for values in per_rank for value in values):
        return None
    return statistics.median(comm_model.slowest_rank(per_rank))


def _median_of_fastest(per_rank: Sequence[Sequence[float | None]]) -> float | None:
    """Median over steps of the shortest time among ranks: for an all-reduce, the rank that arrived
    last waited for nobody, so its time in flight is the all-reduce's own."""
    if any(value is None for values in per_rank for value in values):
        return None
    return statistics.median(min(values) for values in zip(*per_rank))


def model_row(per_rank_profiles: Sequence[dict[str, Any]], per_rank_runs: Sequence[dict[str, Any]],
              fitted: comm_model.Fit, world: int) -> dict[str, Any]:
    """Predicted (`prediction`) against measured (each rank's `bench_comm.run_ddp`) communication of
    one model at one bucket size, with the ratios predicted / measured. Steps count as their slowest
    rank; the all-reduces' time in flight as the rank that arrived last (`_median_of_fastest`)."""
    run = per_rank_runs[0]
    predicted_step = prediction(per_rank_profiles, fitted, world, run["cap_bytes"], run["first_cap_bytes"])
    every = _median_of_slowest([r["step_s"]["every"] for r in per_rank_runs])
    never = _median_of_slowest([r["step_s"]["never"] for r in per_rank_runs])
    in_flight = _median_of_fastest([r["allreduce_s"] for r in per_rank_runs])
    buckets = [b.nbytes for b in predicted_step.buckets]
    return {"model": run["model"], "bucket_cap_mb": run["bucket_cap_mb"], "world": world,
            "batch": run["batch"], "buckets_predicted": buckets, "buckets_built": run["buckets_built"],
            "layout_matches": buckets == run["buckets_built"],
            "backward_s": predicted_step.backward_end,
            "timeline": [{"bytes": b.nbytes, "ready_s": b.ready, "start_s": b.start, "end_s": b.end}
                         for b in predicted_step.buckets],
            "predicted": {"comm_s": predicted_step.total, "exposed_s": predicted_step.exposed,
                          "hidden_s": predicted_step.hidden, "compute_s": predicted_step.compute,
                          "step_s": predicted_step.step},
            "measured": {"in_flight_s": in_flight, "exposed_s": every - never, "compute_s": never,
                         "step_s": every},
            "ratio": {"comm": None if in_flight is None else comm_model.ratio(predicted_step.total, in_flight),
                      "exposed": comm_model.ratio(predicted_step.exposed, every - never),
                      "step": comm_model.ratio(predicted_step.step, every)}}


def cap_label(bucket_cap_mb: float | None) -> str:
    """'25 MB (default)' for None, else '1 MB'."""
    return tr("25 MB (default)") if bucket_cap_mb is None else tr("{mb:g} MB", mb=bucket_cap_mb)


def summary_line(row: dict[str, Any]) -> str:
    """One line: the model, its buckets, predicted vs measured communication and step, with ratios."""
    p, m, r = row["predicted"], row["measured"], row["ratio"]
    flight = ("" if m["in_flight_s"] is None else
              tr("all-reduce {predicted:.1f} ms predicted / {flight:.1f} ms in flight ({ratio:.2f}); ",
                 predicted=p["comm_s"] * 1e3, flight=m["in_flight_s"] * 1e3, ratio=r["comm"]))
    return tr("{model}, bucket_cap_mb {cap}, {count} bucket(s): {flight}exposed {exposed:.1f} ms predicted / "
              "{measured:.1f} ms measured ({exposed_ratio}); step {step:.1f} / {step_measured:.1f} ms "
              "({step_ratio:.2f})", model=row["model"], cap=cap_label(row["bucket_cap_mb"]),
              count=len(row["buckets_predicted"]), flight=flight, exposed=p["exposed_s"] * 1e3,
              measured=m["exposed_s"] * 1e3, exposed_ratio=_fmt_ratio(r["exposed"]), step=p["step_s"] * 1e3,
              step_measured=m["step_s"] * 1e3, step_ratio=r["step"])


def _fmt_ratio(value: float) -> str:
    return tr("n/a: nothing measured") if value in (float("inf"), float("-inf")) or value < 0 else number(value, ".2f")


def format_rows(rows: Sequence[dict[str, Any]]) -> str:
    """A fixed-width table of predicted vs measured milliseconds per model and bucket size."""
    lines = [f"{tr('model'):<6} {tr('bucket cap'):>16} {'buckets':>7} {tr('comm pred'):>9} {tr('in flight'):>9} "
             f"{tr('exposed pred'):>12} {tr('exposed meas'):>12} {tr('step pred'):>9} {tr('step meas'):>9} "
             f"{tr('ratio'):>6}"]
    for row in rows:
        p, m = row["predicted"], row["measured"]
        flight = "-" if m["in_flight_s"] is None else number(m["in_flight_s"] * 1e3, ".1f")
        lines.append(f"{row['model']:<6} {cap_label(row['bucket_cap_mb']):>16} "
                     f"{len(row['buckets_predicted']):>7} {number(p['comm_s'] * 1e3, '9.1f')} {flight:>9} "
                     f"{number(p['exposed_s'] * 1e3, '12.1f')} {number(m['exposed_s'] * 1e3, '12.1f')} "
                     f"{number(p['step_s'] * 1e3, '9.1f')} {number(m['step_s'] * 1e3, '9.1f')} "
                     f"{number(row['ratio']['step'], '6.2f')}")
    return "\n".join(lines)


def fit_line(fitted: comm_model.Fit, world: int) -> str:
    """α, β as a bus bandwidth, the knee, and the largest residual, in one line."""
    worst = max(fitted.residuals(), key=abs)
    return tr("time = {alpha:.3f} ms + moved bytes / {gbs:.2f} GB/s; knee at {knee:.0f} KB on {world} ranks; "
              "largest residual {worst:+.0%}", alpha=fitted.alpha * 1e3, gbs=fitted.bus_bandwidth / 1e9,
              knee=fitted.knee_bytes(world) / 1e3, world=world, worst=worst)


def best_caps(rows: Sequence[dict[str, Any]]) -> dict[str, float | None]:
    """Among rows of one model: the bucket cap with the shortest predicted step and the measured one."""
    predicted = min(rows, key=lambda row: row["predicted"]["step_s"])
    measured = min(rows, key=lambda row: row["measured"]["step_s"])
    return {"predicted": predicted["bucket_cap_mb"], "measured": measured["bucket_cap_mb"]}


REFERENCE_WORDS = ("setup", "note", "source", "setting")
"""The fields of a reference a learner reads as words: the file holds their Spanish under each entry's "es"."""


def references(lang: str | None = None) -> dict[str, Any]:
    """Published figures the lesson and the bench compare with (sources inside), their words
    (`REFERENCE_WORDS`) in the notebook's language (or `lang`); the figures themselves as published."""
    path = resources.files("ddp_lessons") / "data" / "comm_references.json"
    lang = lang or i18n.language()

    def speak(entry: dict[str, Any]) -> dict[str, Any]:
        shown = {key: value for key, value in entry.items() if key not in i18n.LANGUAGES}
        return {**shown, **(entry.get(lang, {}) if lang != i18n.SOURCE else {})}

    return {key: [speak(entry) for entry in value] if isinstance(value, list) else
            speak(value) if isinstance(value, dict) else value
            for key, value in json.loads(path.read_text(encoding="utf-8")).items()}


def save(document: dict[str, Any], path: str | Path) -> Path:
    """Write a bench-comm document as indented JSON."""
    return scaling_results.save(document, path)


def load(path: str | Path) -> dict[str, Any]:
    """Read a bench-comm document, checking its schema."""
    return scaling_results.load(path, SCHEMA)
