"""`grading.gradebook`: the CSV files and the summary table."""
import csv

from ddp_lessons import grading


def test_gradebook_csv_has_the_agreed_columns_and_joins_failures(tmp_path):
    grades = [grading.Grade("bob", "99_synthetic", 2, 5, ["cell 3: AssertionError: a", "cell 5: b"])]
    grading.write_gradebook(grades, tmp_path / "grades.csv")
    with open(tmp_path / "grades.csv", newline="") as f:
        rows = list(csv.DictReader(f))
    assert rows == [{"student": "bob", "exercise": "99_synthetic", "points": "2", "max_points": "5",
                     "failed_checks": "cell 3: AssertionError: a | cell 5: b"}]


def test_summary_table_has_a_row_per_student_and_totals():
    grades = [grading.Grade("alice", "01_a", 3, 3), grading.Grade("alice", "02_b", 1, 4),
              grading.Grade("bob", "01_a", 0, 3), grading.Grade("bob", "02_b", 4, 4)]
    lines = grading.summary_table(grades).splitlines()
    assert lines[0].split() == ["student", "01_a", "02_b", "total"]
    assert lines[1].split() == ["alice", "3/3", "1/4", "4/7"]
    assert lines[2].split() == ["bob", "0/3", "4/4", "4/7"]
