"""Coverage plots show exactly which rank visits which index, from sampling output or torch's sampler."""
import pytest
from matplotlib.colors import to_rgba
from torch.utils.data.distributed import DistributedSampler

from ddp_lessons import sampling
from ddp_lessons.plots import coverage
from ddp_lessons.plots.figures import png_bytes, rank_color, repeat_color, text_color


def epochs_of(size, world, epochs=1, **kwargs):
    """Per-epoch shards from ddp_lessons.sampling, the form every coverage function takes."""
    return [sampling.all_shards(size, world, epoch=e, **kwargs) for e in range(epochs)]


def cells(ax, color):
    """Filled cells of one colour on `ax`, as (left x, top y, height)."""
    return [(p.get_x(), p.get_y(), p.get_height()) for p in ax.patches
            if p.get_fill() and p.get_facecolor() == to_rgba(color)]


def outlines(ax):
    """The solid black frames around indices visited more than once."""
    return [p for p in ax.patches if not p.get_fill() and p.get_linestyle() in ("-", "solid")]


def repeat_marks(ax):
    """The dashed frames on the stripes that are the padding's repeat visits."""
    return [p for p in ax.patches if not p.get_fill() and p.get_linestyle() not in ("-", "solid")]


def test_the_lessons_coverage_data_helpers_stay_reachable_from_the_plot_module():
    """Lessons call coverage.contiguous_blocks and coverage.shards_from_records (now in sampling)."""
    assert coverage.contiguous_blocks is sampling.contiguous_blocks
    assert coverage.shards_from_records is sampling.shards_from_records


def test_each_cell_has_the_colour_of_the_rank_that_visits_it():
    fig = coverage.plot_shard_coverage(epochs_of(12, 3, shuffle=False), 12)
    ax = fig.axes[0]
    for rank in range(3):
        assert sorted(x + 0.5 for x, _, _ in cells(ax, rank_color(rank))) == list(range(rank, 12, 3))


def test_padding_draws_two_stripes_and_an_outline_per_repeated_index():
    size, world, epochs = 10, 3, 2
    fig = coverage.plot_shard_coverage(epochs_of(size, world, epochs), size)
    ax = fig.axes[0]
    visits = sum(len(cells(ax, rank_color(r))) + len(cells(ax, repeat_color(r)))
                 for r in range(world))
    assert visits == epochs * sampling.samples_per_rank(size, world) * world  # 12 per epoch
    assert len(outlines(ax)) == len(repeat_marks(ax)) == epochs * 2
    assert [t.get_text() for t in ax.get_yticklabels()] == ["epoch 0 (+2 repeated)", "epoch 1 (+2 repeated)"]


def test_drop_last_draws_a_hatched_cell_per_dropped_index():
    fig = coverage.plot_shard_coverage(epochs_of(10, 4, 3, drop_last=True), 10)
    ax = fig.axes[0]
    assert len(cells(ax, coverage.DROPPED_COLOR)) == 3 * 2
    assert not outlines(ax)
    assert ax.get_yticklabels()[0].get_text() == "epoch 0 (-2 dropped)"


def test_plot_works_on_indices_taken_from_torchs_sampler():
    size, world = 11, 2
    shards = [list(DistributedSampler(range(size), num_replicas=world, rank=r, shuffle=True, seed=0))
              for r in range(world)]
    fig = coverage.plot_shard_coverage([shards], size, title="from torch")
    ax = fig.axes[0]
    assert ax.get_title() == "from torch"
    assert ax.get_xlabel() == "dataset index" and ax.get_ylabel() == "epoch"
    assert len(outlines(ax)) == 1  # 11 samples on 2 ranks: one index padded
    assert png_bytes(fig).startswith(b"\x89PNG")


def test_a_single_epoch_not_wrapped_in_a_list_gets_a_clear_error():
    with pytest.raises(ValueError, match="one list of per-rank shards per epoch"):
        coverage.plot_shard_coverage(sampling.all_shards(10, 2), 10)


def test_strided_vs_contiguous_shows_both_pictures():
    fig = coverage.plot_strided_vs_contiguous(12, 3)
    titles = [ax.get_title() for ax in fig.axes]
    assert len(titles) == 2 and "WRONG" in titles[0] and "r+W" in titles[1]
    first_block = sorted(x + 0.5 for x, _, _ in cells(fig.axes[0], rank_color(0)))
    assert first_block == [0, 1, 2, 3]
    assert sorted(x + 0.5 for x, _, _ in cells(fig.axes[1], rank_color(0))) == [0, 3, 6, 9]


def test_panels_stack_one_axes_per_entry():
    fig = coverage.plot_coverage_panels({"a": epochs_of(8, 2, 2), "b": epochs_of(8, 2, 1)}, 8)
    assert [ax.get_title() for ax in fig.axes] == ["a", "b"]



def test_the_repeat_stripe_is_the_visit_past_the_end_of_the_padded_order():
    """10 samples, 4 ranks, no shuffle: the order is padded with 0, 1; ranks 2 and 3 repeat them at step 2."""
    ax = coverage.plot_shard_coverage(epochs_of(10, 4, shuffle=False), 10).axes[0]
    light = {rank: [round(x + 0.5) for x, _, _ in cells(ax, repeat_color(rank))] for rank in range(4)}
    assert light == {0: [], 1: [], 2: [0], 3: [1]}
    assert sorted(round(p.get_x() + 0.5) for p in repeat_marks(ax)) == [0, 1]


def test_step_numbers_in_split_cells_are_large_and_contrast_with_their_stripe():
    ax = coverage.plot_shard_coverage(epochs_of(10, 4, shuffle=False), 10).axes[0]
    numbers = [t for t in ax.texts if t.get_text().isdigit()]
    assert len(numbers) == 12 and min(t.get_fontsize() for t in numbers) >= 8
    for text in numbers:
        stripe = next(p for p in ax.patches if p.get_fill() and p.contains_point(
            ax.transData.transform(text.get_position())))
        assert text.get_color() == text_color(stripe.get_facecolor())


@pytest.mark.parametrize("background, text", [
    ("#ff7f0e", "black"), ("#2ca02c", "black"), ("#d62728", "white"), ("#1f77b4", "white"),
    ("white", "black"), ("black", "white")])
def test_text_colour_is_the_one_with_more_contrast(background, text):
    assert text_color(background) == text


def test_panels_with_split_cells_get_taller_rows():
    plain = coverage.plot_shard_coverage(epochs_of(12, 3, 3), 12)
    padded = coverage.plot_shard_coverage(epochs_of(10, 3, 3), 10)
    assert padded.get_figheight() - plain.get_figheight() == pytest.approx(
        3 * (coverage.SPLIT_ROW_INCHES - coverage.ROW_INCHES))
