"""The sampler explorer redraws from its controls, agrees with torch, and is safe under nbval."""
import ipywidgets as widgets
import pytest

from ddp_lessons import sampling
from ddp_lessons.explorer import LIMITS, SamplerExplorer


def all_widgets(widget):
    """`widget` and every widget nested inside it."""
    yield widget
    for child in getattr(widget, "children", ()):
        yield from all_widgets(child)


def test_explorer_starts_drawn_with_a_png_and_a_summary():
    explorer = SamplerExplorer(size=10, world_size=3)
    assert bytes(explorer.image.value).startswith(b"\x89PNG")
    assert "3 rank(s) x 4 samples = 12 visits of 10 samples per epoch: +2 repeated" in explorer.summary.value


def test_moving_a_slider_redraws_the_plot_and_the_summary():
    explorer = SamplerExplorer(size=12, world_size=3)
    before = explorer.image.value
    assert "every index exactly once" in explorer.summary.value
    explorer.controls["world_size"].value = 5
    assert explorer.image.value != before
    assert "5 rank(s) x 3 samples = 15 visits of 12 samples per epoch: +3 repeated" in explorer.summary.value


def test_drop_last_toggle_switches_padding_to_truncation():
    explorer = SamplerExplorer(size=10, world_size=4)
    assert "+2 repeated" in explorer.describe()
    explorer.controls["drop_last"].value = True
    assert "4 rank(s) x 2 samples = 8 visits" in explorer.describe() and "-2 dropped" in explorer.describe()


def test_set_epoch_off_repeats_epoch_zeros_order():
    explorer = SamplerExplorer(size=12, world_size=3, epochs=3)
    on = explorer.shards()
    assert on[0] != on[1]
    explorer.controls["set_epoch"].value = False
    off = explorer.shards()
    assert off[0] == off[1] == off[2] == on[0]
    assert "same order every epoch (set_epoch not called)" in explorer.describe()


def test_shards_are_what_distributed_sampler_yields_for_the_settings():
    explorer = SamplerExplorer(size=11, world_size=2, epochs=2, shuffle=True, drop_last=True, seed=7)
    assert explorer.shards() == [sampling.all_shards(11, 2, epoch=e, seed=7, drop_last=True) for e in (0, 1)]


@pytest.mark.parametrize("size, world", [(1, 1), (1, 8), (2, 7), (40, 8), (40, 1)])
@pytest.mark.parametrize("drop_last", [False, True])
def test_every_slider_extreme_draws_without_error(size, world, drop_last):
    explorer = SamplerExplorer(size=size, world_size=world, drop_last=drop_last, epochs=LIMITS["epochs"][1])
    assert bytes(explorer.image.value).startswith(b"\x89PNG")


def test_no_output_widget_so_nbval_can_run_the_cell():
    explorer = SamplerExplorer()
    assert not any(isinstance(w, widgets.Output) for w in all_widgets(explorer.widget))
    assert explorer.image in explorer.widget.children and explorer.summary in explorer.widget.children


def test_static_figure_matches_the_settings():
    explorer = SamplerExplorer(size=10, world_size=3, drop_last=True, set_epoch=False)
    title = explorer.figure().axes[0].get_title()
    assert title == "size=10, world=3, shuffle=True, drop_last=True, set_epoch off"
