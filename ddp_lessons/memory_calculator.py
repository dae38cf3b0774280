"""A bytes-per-rank calculator that checks itself: predictions next to measured ledgers (lesson 15).

Controls for the parameter count, world size, sharding strategy, optimizer, precision and the
activations one rank saves; the table shows `sharding.predict` row by row and, when the settings are
those of a configuration the lesson ran, that run's measured ledger beside it. In JupyterLab it is
ipywidgets (an ``HTML`` table redrawn by observers: no ``Output`` widget, so nbval can run the cell);
elsewhere it shows as a plain-text table (`text`).
"""

from __future__ import annotations

import html
from collections.abc import Mapping
from typing import Any

from ddp_lessons import sharding
from ddp_lessons.quiz import _live_kernel

Measured = Mapping[tuple[str, int], Mapping[str, float]]
"""{(strategy, world_size): {row: bytes per rank}} for the configurations a run measured."""


def _mib(value: float | None) -> str:
    return "-" if value is None else f"{value / 2**20:,.3f} MiB"


class MemoryCalculator:
    """Predicted bytes per rank for one setting, and the measured ledger when a run had that setting."""

    def __init__(self, psi: int, world_size: int = 4, strategy: str = "fsdp", optimizer: str = "adam",
                 precision: str = "fp32", activations: float = 0.0, tensors: int = 0,
                 measured: Measured | None = None):
        self.psi_measured, self.tensors, self.activations_measured = psi, tensors, activations
        self.measured = dict(measured or {})
        self.settings = {"psi": psi, "world_size": world_size, "strategy": strategy, "optimizer": optimizer,
                         "precision": precision, "activations": activations}
        self._widget = None

    def prediction(self) -> dict[str, float]:
        """`sharding.predict` for the current settings: {row: bytes} and ``total``."""
        s = self.settings
        return sharding.predict(s["psi"], s["world_size"], s["strategy"], s["optimizer"], s["precision"],
                                tensors=self.tensors, activations=s["activations"])

    def measurement(self) -> Mapping[str, float] | None:
        """The measured ledger of a run with exactly these settings, or None."""
        s = self.settings
        same_model = (s["psi"], s["activations"]) == (self.psi_measured, self.activations_measured)
        if not same_model or (s["optimizer"], s["precision"]) != ("adam", "fp32"):
            return None
        return self.measured.get((s["strategy"], s["world_size"]))

    def rows(self) -> list[tuple[str, float, float | None]]:
        """(row, predicted bytes, measured bytes or None) for every row and the total."""
        predicted, measured = self.prediction(), self.measurement()
        return [(row, predicted[row], None if measured is None else measured[row])
                for row in (*sharding.ROWS, "total")]

    def title(self) -> str:
        s = self.settings
        return (f"Ψ = {s['psi']:,} parameters, {s['world_size']} rank(s), {sharding.STRATEGIES[s['strategy']]}, "
                f"{s['optimizer']}, {sharding.PRECISIONS[s['precision']]}")

    def note(self) -> str:
        return ("measured: this lesson's run with these settings (mean over ranks)" if self.measurement()
                else "measured: no run of this lesson had these settings")

    def text(self) -> str:
        """The table as plain text: row, predicted, measured."""
        lines = [self.title(), f"{'per rank':<12}{'predicted':>18}{'measured':>18}"]
        lines += [f"{row:<12}{_mib(p):>18}{_mib(m):>18}" for row, p, m in self.rows()]
        return "\n".join(lines + [self.note()])

    def html(self) -> str:
        """The table as HTML."""
        body = "".join(f"<tr><td>{row}</td><td>{_mib(p)}</td><td>{_mib(m)}</td></tr>" for row, p, m in self.rows())
        return (f"<p>{html.escape(self.title())}</p><table><tr><th>per rank</th><th>predicted</th>"
                f"<th>measured</th></tr>{body}</table><p><i>{html.escape(self.note())}</i></p>")

    def widget(self) -> Any:
        """The interactive version: controls and a table redrawn on every change (needs ipywidgets)."""
        import ipywidgets as widgets

        s, style = self.settings, {"description_width": "initial"}
        controls = {
            "psi": widgets.BoundedIntText(s["psi"], min=1, max=10**13, description="parameters Ψ", style=style),
            "world_size": widgets.BoundedIntText(s["world_size"], min=1, max=100_000, description="world size",
                                                 style=style),
            "strategy": widgets.Dropdown(options=[(v, k) for k, v in sharding.STRATEGIES.items()],
                                         value=s["strategy"], description="sharding", style=style),
            "optimizer": widgets.Dropdown(options=list(sharding.OPTIMIZER_STATES), value=s["optimizer"],
                                          description="optimizer", style=style),
            "precision": widgets.Dropdown(options=[(v, k) for k, v in sharding.PRECISIONS.items()],
                                          value=s["precision"], description="precision", style=style),
            "activations": widgets.BoundedFloatText(s["activations"], min=0, max=1e15,
                                                    description="activations (bytes)", style=style),
        }
        table = widgets.HTML(self.html())

        def redraw(change: dict) -> None:
            self.settings.update({name: control.value for name, control in controls.items()})
            table.value = self.html()

        for control in controls.values():
            control.observe(redraw, names="value")
        self._widget = widgets.VBox([widgets.HBox(list(controls.values())[:3]),
                                     widgets.HBox(list(controls.values())[3:]), table])
        return self._widget

    def _repr_mimebundle_(self, include=None, exclude=None):
        bundle = {"text/plain": self.text(), "text/html": self.html()}
        if _live_kernel():
            view = self.widget()._repr_mimebundle_()
            bundle.update({k: v for k, v in view.items() if k != "text/plain"})
        return bundle
