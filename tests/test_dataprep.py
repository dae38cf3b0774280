"""Lesson 11's simulated download: read() tells missing, partial and complete files apart."""
import threading
import time

from ddp_lessons import dataprep


def test_a_missing_file_is_reported_missing(tmp_path):
    assert dataprep.read(tmp_path / "data.csv") == {"status": "missing", "rows": 0}


def test_download_alone_writes_every_row_and_the_end_line(tmp_path):
    path = tmp_path / "data.csv"
    dataprep.download(path, rows=10)
    assert dataprep.read(path) == {"status": "complete", "rows": 10}
    assert path.read_text().splitlines()[-1] == "# end: 10 rows"


def test_a_read_during_the_download_sees_half_the_rows_and_lets_it_finish(tmp_path, monkeypatch):
    path = tmp_path / "data.csv"
    monkeypatch.setattr(dataprep.dist, "is_initialized", lambda: True)
    monkeypatch.setattr(dataprep.dist, "get_world_size", lambda: 2)
    monkeypatch.setattr(dataprep.dist, "get_rank", lambda: 1)  # the reader's rank
    monkeypatch.setattr(dataprep, "MIN_PAUSE", 0.0)
    writer = threading.Thread(target=dataprep.download, args=(path, 10))
    start = time.monotonic()
    writer.start()
    while not path.exists() or not path.read_text().count("\n") > 5:
        time.sleep(0.005)
    assert dataprep.read(path) == {"status": "partial", "rows": 5}  # the rank-1 read signal ends the pause
    writer.join(timeout=10)
    assert time.monotonic() - start < dataprep.MAX_PAUSE
    assert dataprep.read(path)["status"] == "complete"


def test_a_rank_that_waits_for_the_first_rows_reads_exactly_the_first_half(tmp_path, monkeypatch):
    path = tmp_path / "data.csv"
    monkeypatch.setattr(dataprep.dist, "is_initialized", lambda: True)
    monkeypatch.setattr(dataprep.dist, "get_world_size", lambda: 2)
    monkeypatch.setattr(dataprep.dist, "get_rank", lambda: 1)
    writer = threading.Thread(target=dataprep.download, args=(path, 10))
    writer.start()
    dataprep.wait_for_first_rows(path, rows=10)
    assert dataprep.read(path) == {"status": "partial", "rows": 5}
    writer.join(timeout=10)
    assert dataprep.read(path) == {"status": "complete", "rows": 10}


def test_waiting_for_rows_that_never_come_gives_up_after_its_timeout(tmp_path):
    start = time.monotonic()
    dataprep.wait_for_first_rows(tmp_path / "never.csv", timeout=0.2)
    assert 0.2 <= time.monotonic() - start < 5
