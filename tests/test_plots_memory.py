"""Lesson 15's figures draw the records' ledgers: bar heights are the records' bytes, each bar carries the
formula's prediction, and every word is in the notebook's language."""
import pytest

from ddp_lessons.plots import memory
from ddp_lessons.plots.figures import png_bytes

SHAPES = [[4, 3], [4], [2, 4], [2]]  # Ψ = 26 parameters in T = 4 tensors
PSI, T = 26, 4


def record(strategy, n, rank, step, forward=None, bucket_view=False, shapes=SHAPES):
    return {"strategy": strategy, "world_size": n, "rank": rank, "shapes": shapes, "bucket_view": bucket_view,
            "step": {**step, "total": sum(step.values())}, "forward": forward or {}}


def ledger(parameters, gradients, optimizer, buckets=0):
    return {"parameters": parameters, "gathered": 0, "gradients": gradients, "optimizer": optimizer,
            "buffers": 0, "buckets": buckets, "activations": 0}


# DDP without gradient_as_bucket_view: 4Ψ + 4Ψ + (8Ψ + 4T) + 4Ψ = 104 + 104 + 224 + 104 = 536 on every rank.
# ZeRO-1 on 2 ranks: its whole-tensor split gives rank 0 more state than rank 1 (the formula says the mean,
# 112). FSDP2 on 2 ranks: 52 + 52 + 104 + 16 = 224; its rank 1 measures 4 bytes more, which the formula's
# line must not follow.
RECORDS = [record("ddp", 1, 0, ledger(104, 104, 224, 104)),
           *(record("ddp", 2, r, ledger(104, 104, 224, 104)) for r in range(2)),
           record("zero1", 2, 0, ledger(104, 104, 180, 104)), record("zero1", 2, 1, ledger(104, 104, 44, 104)),
           record("fsdp", 2, 0, ledger(52, 52, 120)), record("fsdp", 2, 1, ledger(52, 52, 124))]
PREDICTED = {"ddp:1": 536, "ddp:2": 536, "zero1:2": 104 + 104 + 112 + 104, "fsdp:2": 52 + 52 + 104 + 16}


def drawn(fig, prefix):
    return {a.get_gid(): a for a in fig.findobj() if (a.get_gid() or "").startswith(prefix)}


def texts(fig):
    """Every piece of text the figure shows: titles, axis labels, group names, legend entries, ticks."""
    fig.canvas.draw()
    return [t.get_text() for t in fig.findobj(lambda a: hasattr(a, "get_text")) if t.get_text().strip()]


def test_each_bar_stacks_the_mean_of_the_records_rows_and_a_dot_marks_each_ranks_total():
    fig = memory.plot_bytes_per_rank(RECORDS)
    bars = drawn(fig, "bar:")
    assert bars["bar:optimizer:zero1:2"].get_height() == (180 + 44) / 2
    assert bars["bar:optimizer:fsdp:2"].get_height() == 122
    assert bars["bar:buckets:ddp:1"].get_height() == 104 and "bar:buckets:fsdp:2" not in bars  # no empty segment
    assert [bars[f"bar:{row}:ddp:2"].get_y() for row in ("parameters", "gradients", "optimizer", "buckets")] \
        == [0, 104, 208, 432]  # stacked in the ledger's order
    positions = [bars[f"bar:parameters:{key}"].get_x() for key in PREDICTED]
    assert positions == sorted(positions)  # DDP, ZeRO-1, FSDP2; world sizes ascending
    dots = drawn(fig, "rank:")
    assert {gid: list(dot.get_ydata()) for gid, dot in dots.items()} == {
        "rank:ddp:1:0": [536], "rank:ddp:2:0": [536], "rank:ddp:2:1": [536],
        "rank:zero1:2:0": [492], "rank:zero1:2:1": [356], "rank:fsdp:2:0": [224], "rank:fsdp:2:1": [228]}
    assert png_bytes(fig).startswith(b"\x89PNG")


def test_each_bar_carries_the_formulas_prediction_not_its_own_height():
    fig = memory.plot_bytes_per_rank(RECORDS)
    lines = drawn(fig, "predicted:")
    assert {gid.removeprefix("predicted:"): list(line.get_ydata()) for gid, line in lines.items()} == {
        key: [value, value] for key, value in PREDICTED.items()}
    bars = drawn(fig, "bar:parameters:")
    for key in PREDICTED:  # the line spans its own bar
        left, right = lines[f"predicted:{key}"].get_xdata()
        bar = bars[f"bar:parameters:{key}"]
        assert left < bar.get_x() and bar.get_x() + bar.get_width() < right
    viewed = [dict(r, bucket_view=True, step={**r["step"], "buckets": 0}) for r in RECORDS if r["strategy"] == "ddp"]
    lines = drawn(memory.plot_bytes_per_rank(viewed), "predicted:")
    assert list(lines["predicted:ddp:2"].get_ydata()) == [432, 432]  # no bucket copy with the view


def reshard_records():
    """FSDP2 on 2 ranks, resharding (fsdp) and keeping the gathered parameters (fsdp-keep) until backward."""
    forward = {"parameters": 52, "gradients": 0, "optimizer": 120, "activations": 300}
    return [record(name, 2, r, ledger(52, 52, 120), forward={**forward, "gathered": gathered})
            for name, gathered in (("fsdp", 0), ("fsdp-keep", 104)) for r in range(2)]


def test_the_reshard_figure_stacks_the_end_of_forward_and_marks_the_total_after_the_step():
    fig = memory.plot_reshard(reshard_records())
    bars = drawn(fig, "bar:")
    assert bars["bar:gathered:False:2"].get_height() == 104 and "bar:gathered:True:2" not in bars
    assert bars["bar:activations:False:2"].get_y() == 52 + 104 + 120  # parameters, gathered, optimizer below
    assert bars["bar:parameters:True:2"].get_x() < bars["bar:parameters:False:2"].get_x()
    after = drawn(fig, "after:")
    assert {gid: list(line.get_ydata()) for gid, line in after.items()} == {
        "after:True:2": [224, 224], "after:False:2": [224, 224]}
    assert [label.get_text() for label in fig.axes[0].get_xticklabels()] == ["True", "False"]


def test_the_figures_speak_spanish_in_a_spanish_notebook(monkeypatch):
    monkeypatch.setenv("DDP_LESSONS_LANG", "en")
    english = texts(memory.plot_bytes_per_rank(RECORDS)) + texts(memory.plot_reshard(reshard_records()))
    monkeypatch.setenv("DDP_LESSONS_LANG", "es")
    spanish = texts(memory.plot_bytes_per_rank(RECORDS)) + texts(memory.plot_reshard(reshard_records()))
    for words in ("parámetros", "gradientes", "optimizador", "activaciones", "reunidos", "bytes por rank",
                  "total de cada rank", "fórmula (sharding.predict)", "total tras el paso", "2 ranks"):
        assert words in spanish, words
    assert any(text.startswith("Tras el paso, Ψ = 26 parámetros") for text in spanish)
    assert any(text.startswith("FSDP2 al final de la propagación hacia delante") for text in spanish)
    names = {"DDP", "ZeRO-1", "FSDP2", "True", "False", "reshard_after_forward", "buckets", "world size (ranks)",
             "2 ranks"}
    left_english = [t for t in spanish if t in english and t not in names and not t.replace(" ", "").isdigit()]
    assert left_english == []  # every other word the figures show was translated


@pytest.mark.parametrize("records, message", [
    ([record("zero2-ish", 1, 0, ledger(1, 1, 1))], "no bar for strategy 'zero2-ish'"),
    ([record("ddp", 2, 0, ledger(1, 1, 1))], r"ddp on 2 ranks: records of ranks \[0\]"),
    ([record("ddp", 1, 0, ledger(1, 1, 1)), record("ddp", 2, 0, ledger(1, 1, 1), shapes=[[3]]),
      record("ddp", 2, 1, ledger(1, 1, 1), shapes=[[3]])], "2 different models"),
    ([], "no records"),
])
def test_records_that_cannot_make_the_figure_are_refused_saying_why(records, message):
    with pytest.raises(ValueError, match=message):
        memory.plot_bytes_per_rank(records)
