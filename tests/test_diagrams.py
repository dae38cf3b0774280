"""The drawn diagrams: what each box and arrow stands for, and that every figure renders headless."""
import pytest
from matplotlib.figure import Figure

from ddp_lessons import traffic
from ddp_lessons.plots import diagrams
from ddp_lessons.plots.figures import png_bytes


def gids(ax, prefix):
    """The gids of the patches in `ax` that start with `prefix`."""
    return {p.get_gid() for p in ax.patches if (p.get_gid() or "").startswith(prefix)}


def arrows(ax, prefix):
    """Arrow gids like 'transfer:0->2' as (source, target) pairs."""
    return {tuple(int(end) for end in gid.split(":")[1].split("->")) for gid in gids(ax, prefix)}


def label(ax, gid):
    """The text of the label with this gid."""
    (text,) = [t.get_text() for t in ax.texts if t.get_gid() == gid]
    return text


@pytest.mark.parametrize("world_size", [2, 4, 8])
def test_dataparallel_is_one_process_whose_transfers_all_start_or_end_at_gpu0(world_size):
    dp_ax = diagrams.plot_dataparallel_vs_ddp(world_size).axes[0]
    assert gids(dp_ax, "process") == {"process"}
    assert gids(dp_ax, "gpu:") == {f"gpu:{k}" for k in range(world_size)}
    expected = {(0, k) for k in range(1, world_size)} | {(k, 0) for k in range(1, world_size)}
    assert arrows(dp_ax, "transfer:") == expected


@pytest.mark.parametrize("world_size", [2, 4, 8])
def test_ddp_has_one_process_per_gpu_joined_in_a_single_ring(world_size):
    ddp_ax = diagrams.plot_dataparallel_vs_ddp(world_size).axes[1]
    assert gids(ddp_ax, "process:") == {f"process:{r}" for r in range(world_size)}
    ring = dict(arrows(ddp_ax, "allreduce:"))
    assert sorted(ring) == sorted(ring.values()) == list(range(world_size))  # one out, one in each
    visited, rank = [], 0
    for _ in range(world_size):
        visited.append(rank)
        rank = ring[rank]
    assert rank == 0 and sorted(visited) == list(range(world_size))  # one cycle through every rank


def test_diagram_refuses_world_sizes_it_cannot_draw():
    with pytest.raises(ValueError, match="between 2 and 8"):
        diagrams.plot_dataparallel_vs_ddp(1)


def test_rank_5_on_node_1_is_local_rank_1_on_cuda_1():
    ax = diagrams.plot_rank_layout(nodes=2, ranks_per_node=4, gpus_per_node=4).axes[0]
    assert label(ax, "label:node1:local1") == "rank 5\nlocal_rank 1\ncuda:1"
    assert label(ax, "label:node0:local3") == "rank 3\nlocal_rank 3\ncuda:3"
    assert len(gids(ax, "slot:")) == 8
    assert not any(f"cuda:{k}" in t.get_text() for t in ax.texts for k in range(4, 8))


@pytest.mark.parametrize("gpus, devices", [(0, ["cpu", "cpu"]), (1, ["cuda:0", "cuda:0"]),
                                           (2, ["cuda:0", "cuda:1"])])
def test_rank_layout_devices_follow_the_course_rule(gpus, devices):
    ax = diagrams.plot_rank_layout(nodes=1, ranks_per_node=2, gpus_per_node=gpus).axes[0]
    shown = [label(ax, f"label:node0:local{r}").splitlines()[-1] for r in range(2)]
    assert shown == devices


def test_traffic_bars_are_the_rows_in_megabytes():
    rows = traffic.step_traffic(param_bytes=4e6, input_bytes=1e6, output_bytes=0, world_sizes=[2, 4])
    ax = diagrams.plot_traffic_per_step(rows).axes[0]
    heights = [bar.get_height() for bar in ax.patches]
    assert heights == pytest.approx([9.0, 27.0, 8.0, 12.0])  # DataParallel bars, then DDP bars
    assert [t.get_text() for t in ax.get_xticklabels()] == ["2", "4"]
    assert "MB" in ax.get_ylabel() and ax.get_xlabel() == "number of GPUs"


@pytest.mark.parametrize("figure", [
    lambda: diagrams.plot_dataparallel_vs_ddp(4),
    lambda: diagrams.plot_rank_layout(2, 4, 4),
    lambda: diagrams.plot_traffic_per_step(traffic.step_traffic(1e8, 1e7, 1e5, [2, 4, 8])),
])
def test_every_figure_has_titles_and_renders_to_png_without_a_display(figure):
    fig = figure()
    assert isinstance(fig, Figure)
    assert all(ax.get_title() for ax in fig.axes)
    assert png_bytes(fig).startswith(b"\x89PNG")
