"""Live progress: the ranks' progress records, the watcher that polls them, and a real 2-rank run."""
import json
import threading
import time
from pathlib import Path

import pytest

from ddp_lessons import launch, records
from ddp_lessons.runtime import contract, progress

SCRIPTS = Path(__file__).parent / "scripts"


@pytest.fixture(autouse=True)
def fresh_progress_state(monkeypatch):
    """Each test starts as a fresh rank process would: no progress written yet."""
    monkeypatch.setattr(records, "_progress_state", {})


class FakeClock:
    def __init__(self, now=1000.0):
        self.now = now

    def __call__(self):
        return self.now


class RecordingDisplay:
    """A display that remembers what it was shown."""

    def __init__(self):
        self.updates, self.finished = [], None

    def update(self, rows):
        self.updates.append({rank: row["step"] for rank, row in rows.items()})

    def finish(self, rows, ok):
        self.finished = ({rank: row["step"] for rank, row in rows.items()}, ok)


def test_progress_writes_at_most_once_per_interval_but_always_the_first_and_last_step(tmp_path, monkeypatch):
    monkeypatch.setenv(contract.RUN_DIR_ENV, str(tmp_path))
    clock = FakeClock()
    monkeypatch.setattr(records.time, "time", clock)
    written = []
    for step in range(1, 11):
        written.append(records.progress(step, 10, samples=32 * step))
        clock.now += 0.1
    # 0.1 s per step, one write per 0.25 s: steps 1, 4, 7 (0.3 s apart), and the last one
    assert [step for step, wrote in zip(range(1, 11), written) if wrote] == [1, 4, 7, 10]


def test_progress_record_holds_step_total_samples_times_and_extras(tmp_path, monkeypatch):
    monkeypatch.setenv(contract.RUN_DIR_ENV, str(tmp_path))
    monkeypatch.setenv("RANK", "1")
    clock = FakeClock()
    monkeypatch.setattr(records.time, "time", clock)
    records.progress(1, 5, samples=32, phase="warm-up")
    clock.now += 2.0
    records.progress(5, 5, samples=160, phase="main")
    row = json.loads((tmp_path / "progress.rank1.json").read_text())
    assert row == {"rank": 1, "step": 5, "total": 5, "samples": 160, "time": 1002.0, "start": 1000.0,
                   "start_step": 1, "start_samples": 32, "phase": "main"}
    assert progress.rate(row) == (64.0, "samples/s")  # 128 samples in the 2 s after the first report
    assert progress.describe(row) == "step 5/5, 64 samples/s, phase=main"


def test_force_writes_within_the_interval(tmp_path, monkeypatch):
    monkeypatch.setenv(contract.RUN_DIR_ENV, str(tmp_path))
    monkeypatch.setattr(records.time, "time", FakeClock())
    assert records.progress(1, 60)
    assert not records.progress(14, 60)
    assert records.progress(14, 60, force=True)  # a loop that stops early reports where it stopped
    assert progress.read(tmp_path)[0]["step"] == 14


def test_a_new_loop_restarts_the_rate_and_writes_at_once(tmp_path, monkeypatch):
    monkeypatch.setenv(contract.RUN_DIR_ENV, str(tmp_path))
    clock = FakeClock()
    monkeypatch.setattr(records.time, "time", clock)
    records.progress(1, 3, samples=10)
    clock.now += 5.0
    records.progress(3, 3, samples=30)
    clock.now += 0.01
    assert records.progress(1, 3, samples=10, setup="second")  # step went down: a new loop
    row = progress.read(tmp_path)[0]
    assert (row["start"], row["start_samples"], progress.rate(row)) == (1005.01, 10, (None, "samples/s"))
    assert progress.describe(row) == "step 1/3, - samples/s, setup=second"


def test_a_setup_named_by_a_listed_label_is_shown_in_the_notebook_s_language(monkeypatch):
    row = {"rank": 0, "step": 1, "total": 3, "start": 0.0, "time": 0.0, "setup": "4 ranks x 32, same lr"}
    monkeypatch.setenv("DDP_LESSONS_LANG", "es")
    assert progress.describe(row).endswith(", setup=4 ranks x 32, mismo lr")
    assert progress.describe({**row, "setup": "second"}).endswith(", setup=second")  # not a label: as given
    monkeypatch.setenv("DDP_LESSONS_LANG", "en")
    assert progress.describe(row).endswith(", setup=4 ranks x 32, same lr")


def test_steps_per_second_when_a_rank_counts_no_samples():
    row = {"rank": 0, "step": 30, "total": 60, "samples": None, "time": 13.0, "start": 10.0}
    assert progress.rate(row) == (10.0, "steps/s")


def test_read_returns_each_ranks_latest_record_and_skips_other_records(tmp_path):
    records.write("progress", {"step": 3, "total": 9, "time": 1, "start": 0}, rank=1, directory=tmp_path)
    records.write("progress", {"step": 7, "total": 9, "time": 2, "start": 0}, rank=1, directory=tmp_path)
    records.write("progress", {"step": 2, "total": 9, "time": 1, "start": 0}, rank=0, directory=tmp_path)
    records.write("train", {"step": 99}, rank=0, directory=tmp_path)
    assert {rank: row["step"] for rank, row in progress.read(tmp_path).items()} == {0: 2, 1: 7}


def test_watcher_sees_steps_grow_while_fake_ranks_write_then_summarises(tmp_path):
    display = RecordingDisplay()
    watcher = progress.Watcher(tmp_path, world_size=2, display=display, poll_seconds=0.02).start()

    def fake_rank(rank):
        for step in range(1, 11):
            records.write("progress", {"step": step, "total": 10, "samples": 8 * step,
                                       "time": time.time(), "start": 0.0}, rank=rank, directory=tmp_path)
            time.sleep(0.03)

    ranks = [threading.Thread(target=fake_rank, args=(rank,)) for rank in (0, 1)]
    for thread in ranks:
        thread.start()
    for thread in ranks:
        thread.join()
    final = watcher.stop(ok=True)
    seen = [update.get(0, 0) for update in display.updates]
    assert len(set(seen)) >= 3 and seen == sorted(seen), f"rank 0's steps as polled: {seen}"
    assert display.finished == ({0: 10, 1: 10}, True)
    assert {rank: row["step"] for rank, row in final.items()} == {0: 10, 1: 10}


def test_text_display_prints_every_few_seconds_and_one_summary_line_per_rank(capsys):
    display = progress.TextDisplay(world_size=2, every=0.0)
    row = {"rank": 0, "step": 4, "total": 8, "samples": 40, "time": 12.0, "start": 10.0}
    display.update({0: row})
    display.finish({0: {**row, "step": 8}, 1: {**row, "rank": 1}}, ok=False)
    assert capsys.readouterr().out.splitlines() == [
        "[progress] rank 0: step 4/8, 20 samples/s",
        "[progress] rank 1: waiting for the first step",
        "[progress] rank 0 stopped: step 8/8, 20 samples/s",
        "[progress] rank 1 stopped: step 4/8, 20 samples/s",
    ]


def test_widget_display_moves_each_ranks_bar_and_marks_success(capsys):
    display = progress.WidgetDisplay(world_size=2)
    row = {"rank": 1, "step": 3, "total": 6, "samples": None, "time": 1.0, "start": 0.0}
    display.update({1: row})
    assert (display.bars[1].value, display.bars[1].max, display.bars[0].value) == (3, 6, 0)
    assert display.labels[1].value == "step 3/6, 3 steps/s"
    display.finish({0: {**row, "rank": 0, "step": 6}, 1: {**row, "step": 6}}, ok=True)
    assert [bar.bar_style for bar in display.bars] == ["success", "success"]


@pytest.mark.slow
def test_run_torchrun_with_progress_prints_each_ranks_summary(tmp_path, capsys, monkeypatch):
    monkeypatch.setenv(contract.PROGRESS_MODE_ENV, "text")
    run = launch.run_torchrun(SCRIPTS / "progress_steps.py", nproc=2, args=["12", "0.02"],
                              run_dir=tmp_path, timeout=90, progress=True)
    out = capsys.readouterr().out
    for rank in (0, 1):
        assert f"[progress] rank {rank} done: step 12/12, " in out
    assert {row["rank"]: row["step"] for row in records.load(run.run_dir, "progress")} == {0: 12, 1: 12}
