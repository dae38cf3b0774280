"""An interactive DistributedSampler explorer: sliders and toggles that redraw the coverage plot.

Used in lesson 5. The plot is an ``ipywidgets.Image`` holding PNG bytes rendered by matplotlib
and a summary line is an ``ipywidgets.HTML``, both replaced by observers whenever a control
changes. There is no ``Output`` widget, ``@interact`` or ``clear_output``, so nbval can run the
cell. Without a live kernel the widget does not render; `SamplerExplorer.figure` gives the same
picture as a static figure.
"""

from __future__ import annotations

import ipywidgets as widgets
from matplotlib.figure import Figure

from ddp_lessons import sampling
from ddp_lessons.i18n import tr
from ddp_lessons.plots import coverage
from ddp_lessons.plots.figures import png_bytes

LIMITS = {"size": (1, 40), "world_size": (1, 8), "epochs": (1, 5)}
"""Slider ranges: dataset size, world size, epochs shown."""


class SamplerExplorer:
    """Controls for DistributedSampler's options and the coverage plot they produce, kept in step."""

    def __init__(self, size: int = 10, world_size: int = 3, epochs: int = 3, shuffle: bool = True,
                 drop_last: bool = False, set_epoch: bool = True, seed: int = 0):
        self.seed = seed
        slider = {"continuous_update": False, "style": {"description_width": "initial"}}
        self.controls = {
            "size": widgets.IntSlider(size, *LIMITS["size"], description=tr("dataset size"), **slider),
            "world_size": widgets.IntSlider(world_size, *LIMITS["world_size"], description=tr("world size"),
                                            **slider),
            "epochs": widgets.IntSlider(epochs, *LIMITS["epochs"], description=tr("epochs"), **slider),
            "shuffle": widgets.Checkbox(shuffle, description="shuffle", indent=False),  # i18n: code (the argument)
            "drop_last": widgets.Checkbox(drop_last, description="drop_last", indent=False),
            "set_epoch": widgets.Checkbox(set_epoch, description=tr("call sampler.set_epoch(epoch)"),
                                          indent=False),
        }
        self.summary = widgets.HTML()
        self.image = widgets.Image(format="png")
        for control in self.controls.values():
            control.observe(self.redraw, names="value")
        c = self.controls
        self.widget = widgets.VBox([
            widgets.HBox([c["size"], c["world_size"], c["epochs"]]),
            widgets.HBox([c["shuffle"], c["drop_last"], c["set_epoch"]]),
            self.summary, self.image])
        self.redraw()

    def settings(self) -> dict:
        """The current value of every control, by name."""
        return {name: control.value for name, control in self.controls.items()}

    def shards(self) -> list[list[list[int]]]:
        """What DistributedSampler yields under the current settings: [epoch][rank] -> indices."""
        s = self.settings()
        return [sampling.all_shards(s["size"], s["world_size"], epoch=epoch if s["set_epoch"] else 0,
                                    seed=self.seed, shuffle=s["shuffle"], drop_last=s["drop_last"])
                for epoch in range(s["epochs"])]

    def describe(self) -> str:
        """One line on the current split: samples per rank, and padding or truncation per epoch."""
        s = self.settings()
        per_rank = sampling.samples_per_rank(s["size"], s["world_size"], s["drop_last"])
        note = sampling.epoch_note(self.shards()[0], s["size"]) or tr("every index exactly once")
        order = (tr("same order every epoch (set_epoch not called)") if s["shuffle"] and not s["set_epoch"]
                 else tr("new order every epoch") if s["shuffle"] else tr("no shuffle: same order every epoch"))
        return tr("{world} rank(s) x {per_rank} samples = {visits} visits of {size} samples per epoch: {note}; "
                  "{order}", world=s["world_size"], per_rank=per_rank, visits=per_rank * s["world_size"],
                  size=s["size"], note=note, order=order)

    def figure(self) -> Figure:
        """The coverage plot for the current settings, as a static matplotlib figure."""
        s = self.settings()
        title = tr("size={size}, world={world}, shuffle={shuffle}, drop_last={drop_last}, set_epoch {called}",
                   size=s["size"], world=s["world_size"], shuffle=s["shuffle"], drop_last=s["drop_last"],
                   called=tr("on") if s["set_epoch"] else tr("off"))
        return coverage.plot_shard_coverage(self.shards(), s["size"], title)

    def redraw(self, change: dict | None = None) -> None:
        """Re-render the plot and the summary line from the controls (the observers' callback)."""
        self.image.value = png_bytes(self.figure())
        self.summary.value = f"<code>{self.describe()}</code>"

    def _repr_mimebundle_(self, **kwargs):
        return self.widget._repr_mimebundle_(**kwargs)

