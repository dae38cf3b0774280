"""A bytes-per-rank calculator that checks itself: predictions next to measured ledgers (lesson 15).

Controls for the parameter count, world size, sharding strategy, optimizer, precision and the
activations one rank saves; the table shows `sharding.predict` row by row and, when the settings are
those of a configuration the lesson ran, that run's measured ledger beside it. In JupyterLab it is
ipywidgets (an ``HTML`` table redrawn by observers: no ``Output`` widget, so nbval can run the cell);
elsewhere it shows as a plain-text table (`text`). What it says is in the notebook's language
(`ddp_lessons.i18n.language`, fixed when the calculator is made, or `lang=`), like the quick checks.
"""

from __future__ import annotations

import html
from collections.abc import Mapping
from typing import Any

from ddp_lessons import i18n, sharding
from ddp_lessons.i18n import tr
from ddp_lessons.base.frontend import mimebundle

Measured = Mapping[tuple[str, int], Mapping[str, float]]
"""{(strategy, world_size): {row: bytes per rank}} for the configurations a run measured."""


def _mib(value: float | None, lang: str | None = None) -> str:
    return "-" if value is None else f"{i18n.number(value / 2**20, ',.3f', lang=lang)} MiB"


def strategy_label(strategy: str, lang: str | None = None) -> str:
    """`sharding.STRATEGIES[strategy]` in the notebook's language (or `lang`)."""
    return {"ddp": tr("DDP: every rank holds everything", lang=lang),
            "zero1": tr("ZeRO-1: optimizer state sharded", lang=lang),
            "zero2": tr("ZeRO-2: optimizer state and gradients sharded", lang=lang),
            "fsdp": tr("FSDP2 / ZeRO-3: parameters, gradients and optimizer state sharded", lang=lang)}[strategy]


def precision_label(precision: str, lang: str | None = None) -> str:
    """`sharding.PRECISIONS[precision]` in the notebook's language (or `lang`)."""
    return {"fp32": tr("fp32 parameters, gradients and optimizer state", lang=lang),
            "mixed": tr("ZeRO paper: fp16 parameters and gradients, fp32 master copy and states", lang=lang)}[precision]


row_label = sharding.row_label
"""The name of a row of the table (`sharding.ROWS` and ``total``) in the notebook's language (or `lang`)."""


class MemoryCalculator:
    """Predicted bytes per rank for one setting, and the measured ledger when a run had that setting."""

    def __init__(self, psi: int, world_size: int = 4, strategy: str = "fsdp", optimizer: str = "adam",
                 precision: str = "fp32", activations: float = 0.0, tensors: int = 0, bucket_view: bool = False,
                 measured: Measured | None = None, measured_bucket_view: bool = False, lang: str | None = None):
        """`psi` parameters in `tensors` tensors (Adam keeps a step counter per tensor); `bucket_view` is DDP's
        ``gradient_as_bucket_view`` (False, its default: DDP's buckets are a second copy of the gradients).
        `measured` maps (strategy, world size) to the mean ledger of runs of this very model, with Adam in
        fp32, DDP's buckets as `measured_bucket_view` says."""
        self.lang = lang or i18n.language()
        self.model_measured = (psi, tensors, activations)
        self.measured, self.measured_bucket_view = dict(measured or {}), measured_bucket_view
        self.settings = {"psi": psi, "world_size": world_size, "strategy": strategy, "optimizer": optimizer,
                         "precision": precision, "activations": activations, "tensors": tensors,
                         "bucket_view": bucket_view}
        self._widget = None

    def prediction(self) -> dict[str, float]:
        """`sharding.predict` for the current settings: {row: bytes} and ``total``."""
        s = self.settings
        return sharding.predict(s["psi"], s["world_size"], s["strategy"], s["optimizer"], s["precision"],
                                tensors=s["tensors"], activations=s["activations"], bucket_view=s["bucket_view"])

    def measurement(self) -> Mapping[str, float] | None:
        """The measured ledger of a run with exactly these settings, or None."""
        s = self.settings
        if (s["psi"], s["tensors"], s["activations"]) != self.model_measured:
            return None
        if (s["optimizer"], s["precision"]) != ("adam", "fp32"):
            return None
        if s["strategy"] in ("ddp", "zero1") and s["bucket_view"] != self.measured_bucket_view:
            return None  # DDP's buckets: another layout than the runs had
        return self.measured.get((s["strategy"], s["world_size"]))

    def rows(self) -> list[tuple[str, float, float | None]]:
        """(row, predicted bytes, measured bytes or None) for every row and the total."""
        predicted, measured = self.prediction(), self.measurement()
        return [(row, predicted[row], None if measured is None else measured[row])
                for row in (*sharding.ROWS, "total")]

    def title(self) -> str:
        s = self.settings
        return tr("Ψ = {psi:,} parameters, {world_size} rank(s), {strategy}, {optimizer}, {precision}",
                  lang=self.lang, psi=s["psi"], world_size=s["world_size"],
                  strategy=strategy_label(s["strategy"], self.lang), optimizer=s["optimizer"],
                  precision=precision_label(s["precision"], self.lang))

    def note(self) -> str:
        return (tr("measured: this lesson's run with these settings (mean over ranks)", lang=self.lang)
                if self.measurement() else tr("measured: no run of this lesson had these settings", lang=self.lang))

    def header(self) -> tuple[str, str, str]:
        """The column names: row, predicted, measured."""
        return (tr("per rank", lang=self.lang), tr("predicted", lang=self.lang), tr("measured", lang=self.lang))

    def text(self) -> str:
        """The table as plain text: row, predicted, measured."""
        first, predicted, measured = self.header()
        lines = [self.title(), f"{first:<12}{predicted:>18}{measured:>18}"]
        lines += [f"{row_label(row, self.lang):<12}{_mib(p, self.lang):>18}{_mib(m, self.lang):>18}"
                  for row, p, m in self.rows()]
        return "\n".join(lines + [self.note()])

    def html(self) -> str:
        """The table as HTML."""
        body = "".join(f"<tr><td>{html.escape(row_label(row, self.lang))}</td><td>{_mib(p, self.lang)}</td>"
                       f"<td>{_mib(m, self.lang)}</td></tr>" for row, p, m in self.rows())
        head = "".join(f"<th>{html.escape(name)}</th>" for name in self.header())
        return (f"<p>{html.escape(self.title())}</p><table><tr>{head}</tr>{body}</table>"
                f"<p><i>{html.escape(self.note())}</i></p>")

    def widget(self) -> Any:
        """The interactive version: controls and a table redrawn on every change (needs ipywidgets)."""
        import ipywidgets as widgets

        s, style, lang = self.settings, {"description_width": "initial"}, self.lang
        controls = {
            "psi": widgets.BoundedIntText(s["psi"], min=1, max=10**13, description=tr("parameters Ψ", lang=lang),
                                          style=style),
            "world_size": widgets.BoundedIntText(s["world_size"], min=1, max=100_000,
                                                 description=tr("world size", lang=lang), style=style),
            "strategy": widgets.Dropdown(options=[(strategy_label(k, lang), k) for k in sharding.STRATEGIES],
                                         value=s["strategy"], description=tr("sharding", lang=lang), style=style),
            "optimizer": widgets.Dropdown(options=list(sharding.OPTIMIZER_STATES), value=s["optimizer"],
                                          description=tr("optimizer", lang=lang), style=style),
            "precision": widgets.Dropdown(options=[(precision_label(k, lang), k) for k in sharding.PRECISIONS],
                                          value=s["precision"], description=tr("precision", lang=lang), style=style),
            "activations": widgets.BoundedFloatText(s["activations"], min=0, max=1e15,
                                                    description=tr("activations (bytes)", lang=lang), style=style),
            "tensors": widgets.BoundedIntText(s["tensors"], min=0, max=10**9,
                                              description=tr("parameter tensors T", lang=lang), style=style),
            "bucket_view": widgets.Checkbox(s["bucket_view"], description="gradient_as_bucket_view",  # i18n: code
                                            indent=False),
        }
        table = widgets.HTML(self.html())

        def redraw(change: dict) -> None:
            self.settings.update({name: control.value for name, control in controls.items()})
            table.value = self.html()

        for control in controls.values():
            control.observe(redraw, names="value")
        rows = list(controls.values())
        self._widget = widgets.VBox([widgets.HBox(rows[:3]), widgets.HBox(rows[3:6]), widgets.HBox(rows[6:]), table])
        return self._widget

    def _repr_mimebundle_(self, include=None, exclude=None):
        return mimebundle(self.text(), self.html(), self.widget)
