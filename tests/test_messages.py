"""What the package shows a learner speaks the notebook's language: every message, figure, widget and
report goes through `i18n.tr` (tests/test_translations.py then fails when a template has no Spanish),
and a figure drawn in a Spanish notebook shows no English and writes its numbers with a decimal comma.

Two nets, each shown to catch what it is for:
* a scan of the learner-facing modules' source for words handed to a learner without `tr`
  (print, raise, a figure's title/label/legend/text, a widget's description, the launcher's and the
  live ranks' texts);
* every public figure drawn in Spanish from small fixture data, every text on it read back.
No torchrun launch: failures and hang reports are rendered from stored torchrun samples.
"""
from __future__ import annotations

import ast
import importlib
import inspect
import json
import pkgutil
import re
from pathlib import Path

import pytest
from matplotlib.text import Text

import ddp_lessons
from ddp_lessons import comm_model, i18n, sampling, traffic
from ddp_lessons import plots as plots_package
from ddp_lessons.base import scaling_results
from ddp_lessons.plots import (collectives, comm, coverage, diagrams, gradients, grading, measure, memory,
                               pipeline, precision, report_card, scaling, timeline, training)
from ddp_lessons.plots.figures import new_figure

PACKAGE = Path(ddp_lessons.__file__).resolve().parent

LEFT_OUT = ("i18n/", "runtime/rank_hooks/", "runtime/contract.py", "live/worker.py", "live/controller.py",
            "live/watchdog.py", "tooling/translations.py", "tooling/catalogs.py", "tooling/code_strings.py",
            "tooling/error_docs.py", "tooling/site.py", "base/exercise_format.py", "quiz.py", "base/quiz_forms.py")
"""The whole package is scanned (a new module too) but these, each for a reason: ``i18n/`` (the tables
themselves); ``runtime/rank_hooks`` (runs before the package can be imported; it writes evidence files,
not messages); ``runtime/contract.py`` (names, no words); ``live/worker.py``, ``live/controller.py`` and
``live/watchdog.py`` (processes no learner reads); ``tooling/translations.py``, ``tooling/catalogs.py``,
``tooling/code_strings.py``, ``tooling/error_docs.py`` and ``base/exercise_format.py`` (authoring tools that report on the English sources); ``tooling/site.py``'s
build messages (a maintainer's command; the pages it writes speak through `tr`); ``quiz.py`` and
``base/quiz_forms.py`` (what they show a learner is `tr` templates already, checked by
tests/test_translations.py; what is left is authors' errors, a lesson asking a question that does not
exist).

A string that is code, not words (a widget labelled with the argument it sets), is marked on its line
with ``# i18n: code`` (and why)."""
CODE_MARK = "# i18n: code"

SAYS = {"print", "set_title", "set_xlabel", "set_ylabel", "suptitle", "text", "annotate", "legend", "set_xticks",
        "set_yticks", "set_xticklabels", "set_yticklabels", "set", "Patch", "Line2D", "HTML", "Label"}
"""Calls whose arguments a learner reads (print and figure artists), besides ``raise``."""
SAYS_KEYWORDS = {"label", "title", "xlabel", "ylabel", "description", "yticklabels", "xticklabels"}
KEPT = {"rank", "ranks", "all-reduce", "all-gather", "reduce-scatter", "gloo", "nccl", "cpu", "cuda", "gpu", "gpus",
        "ms", "mb", "mib", "gb", "kb", "torchrun", "ddp", "fsdp", "zero", "sync", "out", "ok", "nan", "checkpoint",
        "checkpoints", "bucket", "buckets", "backend", "backends", "speedup", "broadcast", "hook", "snapshot",
        "traceback", "buffer", "world size"}
"""Words that are the same in every language of the course (glossary terms kept in English, units)."""
CODE_LIKE = re.compile(r"`[^`]*`|\S*[_()\[\]=/\\<>%]\S*|\w+\.\w+\S*|\{[^}]*\}|(?<!\S)--?\w[\w-]*|world size", re.I)
WORD = re.compile(r"[A-Za-z][A-Za-z'-]*[A-Za-z]")


def words(text: str) -> list[str]:
    """The words of `text` outside code, fields and kept terms (two letters or more)."""
    return [w for w in WORD.findall(CODE_LIKE.sub(" ", text)) if w.lower().strip("'") not in KEPT]


# --- 1. the source: no words reach a learner without tr -------------------------------------------------

def _literal_words(node: ast.AST, said: bool = True) -> list[int]:
    """Lines of the string literals and f-strings in `node` (outside any tr(...) call) that hold words.
    A plain literal handed to a call inside the expression (``number(x, ".3g")``) is a parameter, not said."""
    if isinstance(node, ast.Call):
        if getattr(node.func, "id", getattr(node.func, "attr", None)) == "tr":
            return []
        return [line for arg in [node.func, *node.args] for line in _literal_words(arg, said=False)]
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        return [node.lineno] if said and words(node.value) else []
    if isinstance(node, ast.JoinedStr):
        text = "".join(v.value if isinstance(v, ast.Constant) else "{x}" for v in node.values)
        return [node.lineno] if words(text) else []
    if isinstance(node, (ast.Subscript, ast.Compare)):  # d["key"], x == "value": no message
        return []
    return [line for child in ast.iter_child_nodes(node) for line in _literal_words(child, said=True)]


def untranslated(source: str) -> list[int]:
    """Lines where `source` hands words to a learner without `tr`: in an exception raised, a print, a
    figure's text, label or title, a widget's description."""
    found = []
    marked = {n for n, line in enumerate(source.splitlines(), start=1) if CODE_MARK in line}
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Raise) and isinstance(node.exc, ast.Call):
            found += [line for arg in node.exc.args for line in _literal_words(arg)]
        elif isinstance(node, ast.Call):
            name = getattr(node.func, "id", getattr(node.func, "attr", None))
            if name in SAYS:
                found += [line for arg in node.args for line in _literal_words(arg)]
            found += [line for kw in node.keywords if kw.arg in SAYS_KEYWORDS for line in _literal_words(kw.value)]
    return sorted(set(found) - marked)


def learner_facing_files() -> list[Path]:
    return [p for p in sorted(PACKAGE.rglob("*.py"))
            if not any(p.relative_to(PACKAGE).as_posix().startswith(skip) for skip in LEFT_OUT)]


def test_every_string_the_package_shows_a_learner_goes_through_tr():
    found = [f"{path.relative_to(PACKAGE.parent)}:{line}" for path in learner_facing_files()
             for line in untranslated(path.read_text(encoding="utf-8"))]
    assert not found, ("words shown to a learner without i18n.tr (write them as tr templates, with their Spanish "
                       "in ddp_lessons/i18n/messages_es.py):\n" + "\n".join(found))


def test_the_scan_catches_words_that_bypass_tr_and_spares_code_and_tr():
    bypass = '''
ax.set_title("Training loss")
print(f"rank {rank} stopped after {seconds:.1f} s")
raise ValueError(f"no row for {name!r}")
handles = [Patch(color="red", label="visited twice (padding)")]
widgets.IntSlider(3, description="dataset size")
ax.set(xlabel="step", title=tr("fine"))
widgets.Checkbox(True, description="shuffle")  # i18n: code
'''
    assert untranslated(bypass) == [2, 3, 4, 5, 6, 7]
    spared = '''
ax.set_title(tr("Training loss"))
print(f"[rank {rank}] {line}")
print(tr("{count} ranks joined", count=n) if ok else tr("stopped"))
ax.set_yticks([0, 1], ["all-reduce", "rank 1"])
ax.text(x, y, f"{value:.3g} ms", ha="center", color="white")
raise UsageError(tr("usage: %ranks start N"))
ax.plot(xs, ys, "k--", label=tr("ideal"), gid="ideal")
'''
    assert untranslated(spared) == []


def test_every_learner_facing_module_is_scanned():
    scanned = {p.relative_to(PACKAGE).as_posix() for p in learner_facing_files()}
    for module in ("plots/coverage.py", "runtime/diagnose.py", "runtime/hang_report.py", "runtime/progress.py",
                   "live/magics.py", "live/results.py", "launch.py", "explorer.py", "memory_calculator.py"):
        assert module in scanned
    assert not any(name.startswith("runtime/rank_hooks") for name in scanned)
    assert {"checksums.py", "diffs.py", "scripts/bench_train.py", "tooling/doctor.py"} <= scanned


# --- 2. the figures: drawn in Spanish, read back ---------------------------------------------------------

ENGLISH = set("""the and of with per for from into to on by at is are was were each every its their this that
these than then after before only also not nothing all any some one two whole own step steps loss time times size
samples sample seconds milliseconds epoch epochs dataset index visited twice never number process processes
gradient gradients weights batch mean sum score students student passing rate check checks exercise report
accuracy validation training resumed loaded measured predicted fit message bandwidth hidden
exposed behind waiting wait arrival arrives arrived last first threads thread unknown linear
efficiency scaling communication overhead sent inside queued launched running launches returns since called
layer layers optimizer held-out setup counted ways logged prints chunk holds whose orange edge dashed
dotted knee moved colour grey slow slowest takes wrong takes positions node nodes device sends receives
outputs inputs move afterwards ring during shared distribution pass class median compute repeat padding drop
dropped repeated order new same call""".split())
"""English words no Spanish figure of the course needs (none is a Spanish word: not `total`, `global`, `ideal`,
`mental`, `bus`, `once`)."""
DECIMAL_POINT = re.compile(r"(?<![\w.=:/-])[-−+]?\d+\.\d+(?![\w.])")


def two_rank_traces():
    return [[{"phase": "start", "step": 0, "sent": None, "values": [1.0, 1.0]},
             {"phase": "reduce-scatter", "step": 1, "sent": 0, "values": [1.0, 3.0]},
             {"phase": "all-gather", "step": 1, "sent": 1, "values": [3.0, 3.0]}],
            [{"phase": "start", "step": 0, "sent": None, "values": [2.0, 2.0]},
             {"phase": "reduce-scatter", "step": 1, "sent": 1, "values": [3.0, 2.0]},
             {"phase": "all-gather", "step": 1, "sent": 0, "values": [3.0, 3.0]}]]


def sweep():
    points = [(s, n, 1e-4 + 1e-9 * comm_model.moved_bytes(s, n)) for n in (2, 3) for s in (1024, 2 ** 20, 2 ** 24)]
    return comm_model.fit(points), comm_model.fit(points, bandwidth_from=2 ** 20)


def timeline_step():
    return {"layers": {"linear1": {"start": 0.0, "end": 2.5}, "linear0": {"start": 2.5, "end": 5.0}},
            "buckets": [{"index": 0, "start": 2.5, "run_start": 3.0, "end": 5.5, "bytes": 8, "layers": ["linear1"]},
                        {"index": 1, "start": 5.0, "end": 6.5, "bytes": 4, "layers": ["linear0"]}],
            "backward_end": 7.0, "step_end": 7.5, "clock": "host clock"}


def loss_rows(offset=0):
    return [{"rank": r, "epochs": [offset, offset + 1, offset + 2], "loss": [1.5 - r / 10, 0.75, 0.25]} for r in (0, 1)]


def memory_records(forward: bool = False) -> list[dict]:
    """Lesson 15's records (`plots.memory`): DDP and FSDP2 on 2 ranks, or FSDP2 resharding and not (`forward`)."""
    def ledger(parameters, gathered=0):
        return {"parameters": parameters, "gathered": gathered, "gradients": parameters, "optimizer": 2 * parameters,
                "buffers": 0, "buckets": 0, "activations": 64}
    shapes = [[4, 3], [4]]
    cases = [("fsdp", ledger(32), ledger(32)), ("fsdp-keep", ledger(32), ledger(32, 32))] if forward else [
        ("ddp", ledger(64), {}), ("fsdp", ledger(32), {})]
    return [{"strategy": strategy, "world_size": 2, "rank": rank, "shapes": shapes, "bucket_view": True,
             "step": {**step, "total": sum(step.values())}, "forward": end_of_forward}
            for strategy, step, end_of_forward in cases for rank in range(2)]


def figures() -> dict:
    """{plot function: a call drawing it from small data, with the names a Spanish notebook would pass}."""
    fitted, large = sweep()
    bench_doc = scaling_results.reference("runner_2core_cpu")
    predictions = {"cnn": comm_model.predict_step(comm_model.Fit(1e-4, 1e-9), 2, [(4_000_000, 0.01)], 0.02)}
    run = {"name": "fp32", "losses": [2.5, 1.5, 0.75], "step_ms": [10.5, 9.5, 9.25], "bytes_per_step": [4e6] * 3}
    shards = [sampling.all_shards(10, 4, epoch=e) for e in range(2)]
    return {
        collectives.plot_barrier: lambda: collectives.plot_barrier([0.0, 0.5], [0.5, 0.5]),
        collectives.plot_rank_values: lambda: collectives.plot_rank_values({"antes": [[1.5], [2.0]],
                                                                           "después": [[3.5], [3.5]]}),
        comm.plot_ring: lambda: comm.plot_ring(two_rank_traces()),
        comm.plot_sweep: lambda: comm.plot_sweep(fitted, large=large),
        comm.plot_step_prediction: lambda: comm.plot_step_prediction(predictions),
        comm.plot_predicted_vs_measured: lambda: comm.plot_predicted_vs_measured([{
            "model": "mlp", "bucket_cap_mb": None, "predicted": {"compute_s": 0.0105, "exposed_s": 0.004},
            "measured": {"compute_s": 0.011, "exposed_s": 0.0025}}]),
        comm.plot_stragglers: lambda: comm.plot_stragglers([[0.0105] * 3, [0.0125] * 3], [[0.004] * 3, [0.0125] * 3],
                                                           slow_rank=1),
        coverage.plot_shard_coverage: lambda: coverage.plot_shard_coverage(shards, 10),
        coverage.plot_coverage_panels: lambda: coverage.plot_coverage_panels(
            {"drop_last=True": [sampling.all_shards(10, 4, drop_last=True)]}, 10),
        coverage.plot_strided_vs_contiguous: lambda: coverage.plot_strided_vs_contiguous(12, 3),
        diagrams.plot_dataparallel_vs_ddp: lambda: diagrams.plot_dataparallel_vs_ddp(4),
        diagrams.plot_rank_layout: lambda: diagrams.plot_rank_layout(2, 4, 2),
        diagrams.plot_traffic_per_step: lambda: diagrams.plot_traffic_per_step(
            traffic.step_traffic(1.5e6, 2e5, 1e3, world_sizes=[2, 4])),
        gradients.plot_gradient_agreement: lambda: gradients.plot_gradient_agreement(
            [0.5, -1.5], [1.0, -3.0], [[0.5, -1.5], [0.5, -1.5]], [[0.5, -1.5], [0.5, -1.5]]),
        grading.plot_class_report: lambda: grading.plot_class_report(
            {"01_why_ddp": [0.5, 1.0, 0.75]}, [("01_why_ddp: torchrun_env", 0.25), ("01_why_ddp: ddp_gradients", 0.75)]),
        measure.plot_accuracy_methods: lambda: measure.plot_accuracy_methods(
            {"padded": {"accuracy": 0.875, "correct": 7, "seen": 8}, "all_reduce": {"accuracy": 0.8, "correct": 8,
                                                                                    "seen": 10}}, 0.8),
        measure.plot_logged_loss: lambda: measure.plot_logged_loss(
            [{"rank": r, "log": {"local": [1.5, 1.25, 0.75, 0.5], "global": [1.5, 1.0, 0.75, 0.5],
                                 "windows": [1.25, 0.625]}} for r in (0, 1)], log_every=2),
        measure.plot_loss_vs_steps_and_samples: lambda: measure.plot_loss_vs_steps_and_samples(
            {"lote 32": {"loss": [2.5, 1.5, 0.75], "global_batch": 32}}, eval_every=5),
        pipeline.plot_data_wait: lambda: pipeline.plot_data_wait(
            [[{"num_workers": n, "wait_s": [0.5, 0.0125, 0.0125], "compute_s": [0.0025] * 3} for n in (0, 2)]] * 2),
        memory.plot_bytes_per_rank: lambda: memory.plot_bytes_per_rank(memory_records()),
        memory.plot_reshard: lambda: memory.plot_reshard(memory_records(forward=True)),
        precision.plot_precision_runs: lambda: precision.plot_precision_runs([run, {**run, "name": "bf16"}]),
        scaling.plot_speedup: lambda: scaling.plot_speedup(bench_doc, ["cnn/weak"]),
        scaling.plot_efficiency: lambda: scaling.plot_efficiency(bench_doc, ["cnn/weak", "mlp/weak"]),
        scaling.plot_compute_communication: lambda: scaling.plot_compute_communication(bench_doc, "cnn/weak"),
        scaling.plot_step_times: lambda: scaling.plot_step_times(bench_doc, 2, [("cnn/weak", "every"),
                                                                                ("cnn/weak", "never")]),
        timeline.plot_backward_timeline: lambda: timeline.plot_backward_timeline({"bucket_cap_mb=1": timeline_step()}),
        training.plot_loss_per_rank: lambda: training.plot_loss_per_rank(loss_rows(), loss_rows()[0]),
        training.plot_resumed_loss: lambda: training.plot_resumed_loss(loss_rows(), loss_rows(3)),
        report_card.plot_report_card: lambda: report_card.plot_report_card({
            "lang": None, "lessons": [{"lesson": "01", "questions": 3, "answered": 2, "right_first_time": 1}],
            "calibration": {"sure": {"right": 1, "answered": 2}},
            "predictions": [{"lesson": "06", "question": 2, "predicted": 4.0, "measured": 2.5, "off_by": 1.6}]}),
    }


DRAWN_BY = {coverage.draw_shard_coverage: coverage.plot_shard_coverage,
            timeline.draw_backward_timeline: timeline.plot_backward_timeline}
"""Public drawing helpers and the figure that draws them."""


def texts(fig) -> list[str]:
    """Every text the drawn figure shows: titles, labels, ticks, legends, annotations."""
    fig.set_dpi(20)  # drawn small, and not rasterized: only the texts matter
    fig.draw_without_rendering()  # what Jupyter and png_bytes draw, tick labels and layout included
    return [t.get_text() for t in fig.findobj(Text) if t.get_visible() and t.get_text().strip()]


def english_in(shown: list[str]) -> list[str]:
    return [f"{text!r}: {sorted(found)}" for text in shown
            if (found := {w for w in words(text) if w.lower() in ENGLISH})]


def decimal_points_in(shown: list[str]) -> list[str]:
    return [repr(text) for text in shown if DECIMAL_POINT.search(text)]


def test_every_public_figure_is_drawn_by_the_spanish_figure_test():
    drawn = set(figures()) | set(DRAWN_BY)
    public = {fn for info in pkgutil.iter_modules(plots_package.__path__)
              for name, fn in inspect.getmembers(importlib.import_module(f"ddp_lessons.plots.{info.name}"),
                                                 inspect.isfunction)
              if fn.__module__.endswith(info.name) and name.startswith(("plot_", "draw_"))}
    assert public - drawn == set(), "add these figures to figures() in tests/test_messages.py"


def test_a_figure_drawn_in_a_spanish_notebook_shows_no_english_and_writes_decimal_commas(monkeypatch):
    monkeypatch.setenv(i18n.LANGUAGE_ENV, "es")
    english, points = {}, {}
    for plot, draw in figures().items():
        shown = texts(draw())
        assert shown, plot.__name__
        if found := english_in(shown):
            english[plot.__name__] = found
        if found := decimal_points_in(shown):
            points[plot.__name__] = found
    assert not english, "English on Spanish figures:\n" + json.dumps(english, ensure_ascii=False, indent=1)
    assert not points, "decimal points on Spanish figures:\n" + json.dumps(points, ensure_ascii=False, indent=1)


def test_the_same_figure_in_english_keeps_its_english(monkeypatch):
    monkeypatch.setenv(i18n.LANGUAGE_ENV, "en")
    shown = texts(figures()[training.plot_resumed_loss]())
    assert "Training resumed from a checkpoint" in shown and "epoch" in shown
    assert "0.5" in texts(figures()[collectives.plot_barrier]())  # seconds on the x axis
    monkeypatch.setenv(i18n.LANGUAGE_ENV, "es")
    shown = texts(figures()[training.plot_resumed_loss]())
    assert "Entrenamiento reanudado desde un checkpoint" in shown and "época" in shown
    assert "0,5" in texts(figures()[collectives.plot_barrier]())


def test_the_figure_check_catches_an_untranslated_title_and_a_decimal_point(monkeypatch):
    monkeypatch.setenv(i18n.LANGUAGE_ENV, "es")
    fig, [[ax]] = new_figure(3, 2)
    ax.plot([0.0, 0.5, 1.5], [1.0, 2.0, 2.5])
    ax.set_title("Training loss of each rank")
    ax.text(0.5, 2.0, "2.5 ms")
    shown = texts(fig)
    assert english_in(shown) == ["'Training loss of each rank': ['Training', 'each', 'loss', 'of']"]
    assert decimal_points_in(shown) == ["'2.5 ms'"]  # the tick labels read 0,5 1,0 ...: localized
    assert "0,5" in shown


# --- 3. messages rendered in Spanish: the launcher, live ranks, progress, the explorer ----------------

def spanish(monkeypatch):
    monkeypatch.setenv(i18n.LANGUAGE_ENV, "es")


def assert_spanish(text: str) -> None:
    found = english_in(text.splitlines())
    assert not found, "English in a Spanish message:\n" + "\n".join(found) + "\n---\n" + text


def test_a_failed_run_is_explained_in_spanish_with_torchs_own_words_kept(monkeypatch, tmp_path):
    from ddp_lessons import launch

    spanish(monkeypatch)
    sample = json.loads((Path(__file__).parent / "data" / "diagnose" / "sigkill_rank1_of_3.json").read_text())
    result = launch.RunResult(command=[], nproc=3, run_dir=tmp_path, returncode=1, launcher_lines=sample["launcher_lines"],
                              rank_lines={int(r): lines for r, lines in sample["rank_lines"].items()})
    message = str(launch.RankFailedError.of(result))
    assert message.startswith("el rank 1 murió por SIGKILL (señal 9) - a menudo, el OOM killer")
    assert "todos los ranks que fallaron, la causa raíz primero:" in message
    assert "consecuencia del fallo del rank 1" in message and "el final de la salida del rank 1:" in message
    explained = message.split("el final de la salida")[0]  # the ranks' own output stays as they printed it
    assert_spanish(re.sub(r"\(\w+Error: \.\.\. .*? \.\.\.\)", "(…)", explained))  # and torch's words, quoted


def test_a_hang_is_reported_in_spanish(monkeypatch, tmp_path):
    from ddp_lessons import launch
    from ddp_lessons.runtime import diagnose
    from ddp_lessons.runtime.hang_report import HangReport

    spanish(monkeypatch)
    result = launch.RunResult(command=[], nproc=2, run_dir=tmp_path, pids={1, 2, 3},
                              rank_lines={0: ["paso 3"], 1: []})
    result.hang = HangReport(stacks={0: "..."}, where={0: "dentro de all_reduce() en train.py:9: dist.all_reduce(t)"},
                             tool="py-spy", exited={1: "ya había terminado, 1,5 s después de empezar el trabajo"})
    message = diagnose.timeout_message(result, 60.0)
    assert message.startswith("el trabajo no terminó dentro del tiempo límite (timeout) de 60 s")
    assert "dónde estaba cada rank (pilas de Python tomadas con py-spy" in message
    assert "última salida del rank 1:\n    (nada)" in message
    assert_spanish(message)


def test_live_ranks_speak_spanish(monkeypatch):
    from IPython.core.error import UsageError

    from ddp_lessons.live import magics
    from ddp_lessons.live.results import CellResult, RankOutput, RankState

    spanish(monkeypatch)
    monkeypatch.setattr(magics, "_group", None)
    with pytest.raises(UsageError, match="todavía no hay ranks en vivo: ejecute antes `%ranks start 2`"):
        magics.current()
    result = CellResult([RankOutput(0, RankState.OK), RankOutput(1, RankState.ERROR, error="ValueError: boom")],
                        seconds=1.0)
    summary = result.summary()
    assert summary.splitlines() == ["el rank 1 lanzó ValueError: boom", "  rank 0: terminó",
                                    "  rank 1: lanzó una excepción (ValueError: boom)",
                                    "el grupo se puede seguir usando (cada rank conserva sus variables)"]
    timed_out = CellResult([RankOutput(0, RankState.INTERRUPTED)], timed_out=True, timeout=2.5).summary()
    assert timed_out.startswith("la celda superó su tiempo límite (timeout) de 2,5 s")
    assert_spanish(summary.replace("ValueError: boom", "") + "\n" + timed_out)


def test_progress_lines_and_the_sampler_explorer_speak_spanish(monkeypatch):
    from ddp_lessons.explorer import SamplerExplorer
    from ddp_lessons.runtime import progress

    spanish(monkeypatch)
    row = {"rank": 0, "step": 40, "total": 120, "samples": 2500, "time": 2.0, "start": 0.0, "start_samples": 0}
    assert progress.describe(row) == "paso 40/120, 1 250 muestras/s"
    assert progress.describe(None) == "esperando el primer paso"
    explorer = SamplerExplorer(size=10, world_size=4, epochs=2, drop_last=False)
    assert explorer.describe() == ("4 rank(s) x 3 muestras = 12 visitas de 10 muestras por época: +2 repetidos; "
                                   "un orden nuevo en cada época")
    assert explorer.controls["size"].description == "tamaño del conjunto de datos"
    assert_spanish(explorer.describe())
    assert not english_in(texts(explorer.figure()))


def test_numbers_follow_the_language_and_code_values_keep_their_dot():
    assert i18n.tr("{n:,} x {gb:.2f}", lang="es", n=1147466, gb=4.587) == "1 147 466 x 4,59"
    assert i18n.tr("{n:,} x {gb:.2f}", lang="en", n=1147466, gb=4.587) == "1,147,466 x 4.59"
    assert i18n.tr("lr={lr!r}, {flag}", lang="es", lr=0.1, flag=True) == "lr=0.1, True"  # code keeps its dot
    assert i18n.number(1.5e-05, ".2g", lang="es") == "1,5e-05" and i18n.number(2, lang="es") == "2"
