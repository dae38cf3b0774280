"""The results document of `python -m ddp_lessons bench` and its arithmetic: no torch, no launcher.

Step-time spread, rows from rank records, speedup and efficiency, selecting rows, reading, saving and
the reference documents shipped in ddp_lessons/data (taught in lesson 9; plotted by plots/scaling.py).
"""
from __future__ import annotations

import json
import statistics
from importlib import resources
from pathlib import Path
from typing import Any

from ddp_lessons import i18n
from ddp_lessons.i18n import number, tr

SCHEMA = "ddp_lessons.bench/1"


def spread(values: list[float]) -> dict[str, float]:
    """Median, quartiles, min, max and count of `values`."""
    q1, median, q3 = statistics.quantiles(values, n=4, method="inclusive") if len(values) > 1 \
        else (values[0],) * 3
    return {"median": median, "q1": q1, "q3": q3, "min": min(values), "max": max(values),
            "count": len(values)}


def rows_from_records(rank_records: list[dict[str, Any]], world: int) -> list[dict[str, Any]]:
    """One row per (measurement, sync mode); each step counts as its slowest rank."""
    rows = []
    for j, entry in enumerate(rank_records[0]["measurements"]):
        for mode in entry["sync"]:
            per_rank = [r["measurements"][j]["modes"][mode] for r in rank_records]
            step_s = [max(steps) for steps in zip(*(m["step_s"] for m in per_rank))]
            busy = [None if None in b else max(b) for b in zip(*(m["allreduce_s"] for m in per_rank))]
            global_batch = entry["per_rank_batch"] * world * entry["accumulate"]
            stats = spread(step_s)
            rows.append({
                "experiment": entry["name"], "sync": mode, "world_size": world,
                "model": entry["model"], "scaling": entry["scaling"],
                "per_rank_batch": entry["per_rank_batch"], "global_batch": global_batch,
                "accumulate": entry["accumulate"], "threads_per_rank": entry["threads"],
                "bucket_cap_mb": entry["bucket_cap_mb"], "step_s": stats,
                "samples_per_s": global_batch / stats["median"],
                "allreduce_per_step": statistics.median(per_rank[0]["allreduces"]),
                "allreduce_s": None if None in busy else spread(busy)})
    return rows


def add_speedup(rows: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Set speedup (samples/s over world 1's), efficiency (speedup / world) and its IQR range."""
    base = {(r["experiment"], r["sync"]): r for r in rows if r["world_size"] == 1}
    for row in rows:
        one = base.get((row["experiment"], row["sync"]))
        row.update(speedup=None, efficiency=None, efficiency_range=None)
        if one is None:
            continue
        row["speedup"] = row["samples_per_s"] / one["samples_per_s"]
        row["efficiency"] = row["speedup"] / row["world_size"]
        if row.get("step_s") and one.get("step_s"):
            per_world = row["global_batch"] / one["global_batch"] / row["world_size"]
            row["efficiency_range"] = [per_world * one["step_s"]["q1"] / row["step_s"]["q3"],
                                       per_world * one["step_s"]["q3"] / row["step_s"]["q1"]]
    return rows


def select(result: dict[str, Any], experiment: str, sync: str = "every") -> list[dict[str, Any]]:
    """The rows of one experiment and sync mode, by world size."""
    rows = [r for r in result["rows"] if r["experiment"] == experiment and r["sync"] == sync]
    return sorted(rows, key=lambda r: r["world_size"])


def oversubscription(result: dict[str, Any], experiment: str = "cnn/weak") -> dict[str, Any] | None:
    """At the largest world size: `experiment`'s row, its oversubscribed twin, the slowdown, and
    whether a slowdown is expected (`meaningful`: ranks computed on the CPU and the twin ran more
    threads than cores ÷ ranks; on GPUs the threads barely matter); None if not measured (lesson 9)."""
    over_rows = select(result, f"{experiment}/oversubscribed")
    if not over_rows:
        return None
    over = over_rows[-1]
    right = next(r for r in select(result, experiment) if r["world_size"] == over["world_size"])
    device = next((run["device"] for run in result["runs"] if run["world_size"] == over["world_size"]),
                  result.get("machine", {}).get("device", "cpu"))  # reference files: one machine, no runs
    more_threads = (over["threads_per_rank"] or 0) > (right["threads_per_rank"] or 0)
    why = (tr("ranks computed on the CPU with more threads than cores") if device == "cpu" and more_threads
           else tr("ranks computed on {device}: their CPU threads only feed the GPU", device=device) if device != "cpu"
           else tr("every rank already had all the cores' threads: nothing to oversubscribe"))
    return {"world_size": over["world_size"], "device": device, "right": right, "over": over,
            "slowdown": _slowdown(right, over),
            "meaningful": device == "cpu" and more_threads, "why": why}


def _slowdown(right: dict[str, Any], over: dict[str, Any]) -> float:
    """How many times longer `over` takes per sample than `right`: from step times, or from samples/s
    where a reference file records only throughput."""
    if right.get("step_s") and over.get("step_s"):
        return over["step_s"]["median"] / right["step_s"]["median"]
    return right["samples_per_s"] / over["samples_per_s"]


def save(result: dict[str, Any], path: str | Path) -> Path:
    """Write a results document (this bench's or `comm_results`') as indented JSON."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(result, indent=1) + "\n")
    return path


def load(path: str | Path, schema: str = SCHEMA) -> dict[str, Any]:
    """Read a results document, checking that it is a `schema` document."""
    result = json.loads(Path(path).read_text())
    if result.get("schema") != schema:
        raise ValueError(tr("{path}: not a {schema} document (schema {found!r})", path=path, schema=schema,
                            found=result.get("schema")))
    return result


def reference(name: str, lang: str | None = None) -> dict[str, Any]:
    """A reference document shipped in ddp_lessons/data, e.g. reference('facts_16core_cpu'), its ``label``
    and ``provenance`` in the notebook's language (or `lang`) where the document has them (``label_es``)."""
    doc = load(Path(str(resources.files("ddp_lessons") / "data" / f"{name}.json")))
    lang = lang or i18n.language()
    for key in ("label", "provenance"):
        doc[key] = doc.get(f"{key}_{lang}", doc[key])
    return doc


def format_rows(result: dict[str, Any], lang: str | None = None) -> str:
    """The rows as a fixed-width table: experiment, sync mode, world, step time, samples/s, efficiency,
    in the notebook's language (or `lang`): the sync modes through `i18n.label`, the headers through
    `tr`, each column as wide as its longest text."""
    syncs = {r["sync"]: i18n.label(r["sync"], lang=lang) for r in result["rows"]}
    sync_header, speedup_header = tr("sync", lang=lang), tr("speedup", lang=lang)
    sync_w = max([6, len(sync_header)] + [len(text) for text in syncs.values()])
    speedup_w = max(8, len(speedup_header))
    lines = [f"{tr('experiment', lang=lang):<28} {sync_header:<{sync_w}} {'world':>5} "
             f"{tr('ms/step', lang=lang):>8} {tr('IQR ms', lang=lang):>13} {tr('samples/s', lang=lang):>10} "
             f"{speedup_header:>{speedup_w}} {tr('effic.', lang=lang):>7} {tr('allred/step', lang=lang):>11}"]
    for r in result["rows"]:
        s = r["step_s"]
        lines.append(f"{r['experiment']:<28} {syncs[r['sync']]:<{sync_w}} {r['world_size']:>5} "
                     f"{number(s['median'] * 1e3, '8.1f', lang=lang)} {number(s['q1'] * 1e3, '6.1f', lang=lang)}-"
                     f"{number(s['q3'] * 1e3, '<6.1f', lang=lang)} {number(r['samples_per_s'], '10.0f', lang=lang)} "
                     f"{_fmt(r['speedup'], lang):>{speedup_w}} {_fmt(r['efficiency'], lang):>7} "
                     f"{number(r['allreduce_per_step'], '>11g', lang=lang)}")
    return "\n".join(lines)


def _fmt(value: float | None, lang: str | None = None) -> str:
    return "-" if value is None else number(value, ".2f", lang=lang)
