"""Scaling figures draw a saved bench JSON where it belongs, with the ideal line and references."""
import json
import os
import subprocess
import sys

import pytest

from ddp_lessons import bench
from ddp_lessons.plots import scaling
from ddp_lessons.plots.figures import png_bytes

# step seconds of 4 timed steps per (experiment, sync, world): world 2 is 10 % slower per step
STEPS = {("cnn/weak", "every", 1): [0.100, 0.098, 0.102, 0.100],
         ("cnn/weak", "never", 1): [0.095, 0.094, 0.096, 0.095],
         ("cnn/weak", "every", 2): [0.110, 0.108, 0.112, 0.110],
         ("cnn/weak", "never", 2): [0.100, 0.099, 0.101, 0.100],
         ("cnn/weak/oversubscribed", "every", 2): [0.300, 0.290, 0.310, 0.300]}
IN_FLIGHT = 0.004


def rank_record(world):
    """One rank's record (as bench_train.py writes it) holding STEPS for `world`."""
    measurements = []
    for name in ("cnn/weak", "cnn/weak/oversubscribed"):
        modes = {sync: {"step_s": steps, "allreduces": [0 if sync == "never" else 1] * 4,
                        "allreduce_s": [0.0 if sync == "never" else IN_FLIGHT] * 4}
                 for (exp, sync, w), steps in STEPS.items() if exp == name and w == world}
        if modes:
            measurements.append({"name": name, "model": "cnn", "scaling": "weak", "per_rank_batch": 64,
                                 "accumulate": 1, "sync": list(modes), "bucket_cap_mb": 25.0,
                                 "threads": 1, "modes": modes})
    return {"measurements": measurements}


@pytest.fixture
def saved(tmp_path):
    """A results document saved to JSON and read back, as a lesson or the CLI would."""
    rows = [row for world in (1, 2)
            for row in bench.rows_from_records([rank_record(world)] * world, world)]
    doc = {"schema": bench.SCHEMA, "label": "test machine", "provenance": "made up for a test",
           "machine": {}, "runs": [], "rows": bench.add_speedup(rows)}
    return bench.load(bench.save(doc, tmp_path / "bench.json"))


def line_by_gid(fig, gid):
    [line] = [line for line in fig.axes[0].get_lines() if line.get_gid() == gid]
    return line


def test_speedup_has_the_ideal_line_and_the_measured_points(saved):
    fig = scaling.plot_speedup(saved, ["cnn/weak"])
    ideal = line_by_gid(fig, "ideal")
    assert list(ideal.get_xdata()) == [1, 2] and list(ideal.get_ydata()) == [1, 2]
    curve = fig.axes[0].containers[0]  # errorbar container of the measured curve
    xs, ys = curve.lines[0].get_data()
    assert list(xs) == [1, 2]
    assert list(ys) == pytest.approx([1.0, 2 * 0.100 / 0.110])
    assert fig.axes[0].get_xlabel() == "world size (ranks, log2 axis)" and "speedup" in fig.axes[0].get_ylabel()


def legend_labels(fig):
    """The labels of the figure's one legend (drawn beside the axes, not on them)."""
    assert fig.axes[0].get_legend() is None, "the legend must not sit on the data"
    [legend] = fig.legends
    return [t.get_text() for t in legend.get_texts()]


def test_reference_curves_are_overlaid_dashed_with_their_label(saved):
    facts = bench.reference("facts_16core_cpu")
    fig = scaling.plot_speedup(saved, ["cnn/weak", "cnn/strong"], [facts])
    labels = legend_labels(fig)
    assert "cnn/weak (16-core CPU host, 1 thread/rank, 2026-11)" in labels
    assert "cnn/strong (16-core CPU host, 1 thread/rank, 2026-11)" in labels
    reference = fig.axes[0].containers[1]
    assert list(reference.lines[0].get_xdata()) == [1, 2, 4, 8, 16]
    assert reference.lines[0].get_linestyle() == "--"
    assert list(line_by_gid(fig, "ideal").get_xdata()) == [1, 16]  # ideal spans every curve


def test_world_sizes_are_evenly_spaced_so_a_small_machine_is_not_squeezed_into_a_corner(saved):
    facts = bench.reference("facts_16core_cpu")
    for plot in (scaling.plot_speedup, scaling.plot_efficiency):
        ax = plot(saved, ["cnn/weak"], [facts]).axes[0]
        assert ax.get_xscale() == "log" and ax.xaxis.get_transform().base == 2
        assert list(ax.get_xticks()) == [1, 2, 4, 8, 16]
        ax.figure.canvas.draw()
        assert [t.get_text() for t in ax.get_xticklabels()] == ["1", "2", "4", "8", "16"]
        left, right = (ax.transData.transform((x, 1))[0] for x in (1, 2))
        width = ax.bbox.width
        assert (right - left) / width > 0.15, "1 to 2 ranks must take a fair share of the width"


def test_efficiency_ideal_is_one_and_error_bars_span_the_quartiles(saved):
    fig = scaling.plot_efficiency(saved, ["cnn/weak"])
    assert list(line_by_gid(fig, "ideal").get_ydata()) == [1, 1]
    [row] = [r for r in bench.select(saved, "cnn/weak") if r["world_size"] == 2]
    bars = fig.axes[0].containers[0].lines[2][0].get_segments()
    low, high = row["efficiency_range"]
    assert bars[1][0][1] == pytest.approx(low) and bars[1][1][1] == pytest.approx(high)


def test_compute_and_communication_stack_to_the_step_time(saved):
    fig = scaling.plot_compute_communication(saved, "cnn/weak")
    ax = fig.axes[0]
    heights = {gid: [p.get_height() for p in ax.patches if p.get_gid() == gid]
               for gid in ("compute:0", "overhead:0", "comm:0", "flight:0")}
    assert heights["compute:0"] == pytest.approx([95.0, 100.0])  # the no_sync step, ms
    assert heights["overhead:0"] == pytest.approx([5.0])  # 1 rank: sync minus no_sync, nothing sent
    assert heights["comm:0"] == pytest.approx([10.0])  # 2 ranks: sync minus no_sync, ms
    assert heights["flight:0"] == pytest.approx([IN_FLIGHT * 1e3])  # 2 ranks only
    assert [t.get_text() for t in ax.get_xticklabels()] == ["1 rank\n× 1 thread", "2 ranks\n× 1 thread"]


def test_the_one_rank_extra_time_is_labelled_ddp_overhead_not_communication(saved):
    labels = legend_labels(scaling.plot_compute_communication(saved, "cnn/weak"))
    [overhead] = [label for label in labels if "1 rank" in label]
    assert "DDP overhead" in overhead and "communication" not in overhead
    assert any("communication" in label for label in labels)


def test_compute_communication_refuses_a_reference_without_step_times(saved):
    with pytest.raises(ValueError, match="no measured step times"):
        scaling.plot_compute_communication(saved, "cnn/weak", [bench.reference("facts_16core_cpu")])


def test_step_times_compare_experiments_at_one_world_size(saved):
    pairs = [("cnn/weak", "every"), ("cnn/weak/oversubscribed", "every")]
    fig = scaling.plot_step_times(saved, 2, pairs)
    widths = [p.get_width() for p in fig.axes[0].patches]
    assert widths == pytest.approx([110.0, 300.0])
    assert "1 all-reduce(s)" in fig.axes[0].texts[0].get_text()


def test_plots_render_headless_from_a_saved_json(saved, tmp_path):
    path = tmp_path / "saved.json"
    path.write_text(json.dumps(saved))
    code = ("import matplotlib, sys\n"
            "from ddp_lessons import bench\n"
            "from ddp_lessons.plots import scaling\n"
            "doc = bench.load(sys.argv[1])\n"
            "figures = [scaling.plot_speedup(doc), scaling.plot_efficiency(doc),\n"
            "           scaling.plot_compute_communication(doc)]\n"
            "for i, figure in enumerate(figures):\n"
            "    figure.savefig(f'{sys.argv[1]}.{i}.png')\n"
            "print(matplotlib.get_backend())\n")
    env = {k: v for k, v in os.environ.items() if k not in ("DISPLAY", "MPLBACKEND", "WAYLAND_DISPLAY")}
    out = subprocess.run([sys.executable, "-c", code, str(path)], env=env, capture_output=True,
                         text=True, check=True)
    assert out.stdout.strip().lower() == "agg"
    assert all((tmp_path / f"saved.json.{i}.png").stat().st_size > 1000 for i in range(3))
    assert png_bytes(scaling.plot_speedup(saved)).startswith(b"\x89PNG")


def test_importing_the_scaling_plots_loads_neither_torch_nor_the_launcher():
    code = ("import sys, ddp_lessons.plots.scaling; "
            "print(sorted(m for m in ('torch', 'ddp_lessons.launch', 'ddp_lessons.bench') if m in sys.modules))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.strip() == "[]"


def test_efficiency_axis_fits_the_points_even_when_a_noisy_run_has_long_whiskers(saved):
    noisy = json.loads(json.dumps(saved))
    for row in noisy["rows"]:
        if row["efficiency_range"]:
            row["efficiency_range"] = [row["efficiency_range"][0] / 50, row["efficiency_range"][1] * 30]
    ax = scaling.plot_efficiency(noisy, ["cnn/weak"]).axes[0]
    assert ax.get_ylim() == pytest.approx((0, 1.2))  # the points (1.0, 0.91) and the ideal line stay readable
