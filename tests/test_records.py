"""Per-rank JSON records: round trip, sorting by rank, atomic writes."""
import json

import pytest

from ddp_lessons import records
from ddp_lessons.runtime import contract


def test_round_trip_sorted_by_rank(tmp_path):
    for rank in (2, 0, 1):
        records.write("losses", {"loss": [1.0 / (rank + 1)], "indices": [rank, rank + 3]},
                      rank=rank, directory=tmp_path)
    rows = records.load(tmp_path, "losses")
    assert [r["rank"] for r in rows] == [0, 1, 2]
    assert rows[1] == {"rank": 1, "loss": [0.5], "indices": [1, 4]}


def test_rank_and_directory_come_from_the_environment(tmp_path, monkeypatch):
    monkeypatch.setenv("RANK", "3")
    monkeypatch.setenv(contract.RUN_DIR_ENV, str(tmp_path))
    path = records.write("seen", {"n": 5})
    assert path == tmp_path / "seen.rank3.json"
    assert json.loads(path.read_text()) == {"rank": 3, "n": 5}


def test_write_leaves_no_temp_file_even_when_data_is_not_json(tmp_path):
    with pytest.raises(TypeError):
        records.write("bad", {"x": object()}, rank=0, directory=tmp_path)
    assert list(tmp_path.iterdir()) == []


def test_names_do_not_mix(tmp_path):
    records.write("a", {"v": 1}, rank=0, directory=tmp_path)
    records.write("ab", {"v": 2}, rank=0, directory=tmp_path)
    assert [r["v"] for r in records.load(tmp_path, "a")] == [1]


def test_missing_records_explain_themselves(tmp_path):
    with pytest.raises(FileNotFoundError, match="did every rank call records.write"):
        records.load(tmp_path, "nothing")


def test_new_run_dirs_are_fresh(tmp_path):
    first = records.new_run_dir("train", root=tmp_path)
    second = records.new_run_dir("train", root=tmp_path)
    assert first != second and first.is_dir() and not any(first.iterdir())
