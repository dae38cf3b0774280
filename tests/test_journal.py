"""The learner's record (`ddp_lessons.journal`): atomic appends that never lose a line, corrupt lines
reported and skipped, and written only by a learner's own kernel; what quiz and the checks record in it."""
import hashlib
import json
import subprocess
import sys
import textwrap
import time

import pytest

from ddp_lessons import journal, quiz
from ddp_lessons.checks import common
from ddp_lessons.runtime.contract import JOURNAL_ENV, SESSION_ENV


@pytest.fixture
def record(tmp_path):
    return journal.Journal(tmp_path / "course" / "my_progress.jsonl")


def test_an_event_is_one_json_line_with_version_time_and_language(record, monkeypatch):
    monkeypatch.setenv("DDP_LESSONS_LANG", "es")
    written = record.append("answer", lesson="06", question=1, answer="b", correct=True, confidence="sure")
    (line,) = record.path.read_text(encoding="utf-8").splitlines()
    assert json.loads(line) == written
    assert (written["v"], written["event"], written["lang"], written["lesson"]) == (1, "answer", "es", "06")
    assert written["time"].endswith("+00:00")
    with pytest.raises(ValueError, match="evento desconocido 'guess'"):  # in the notebook's language
        record.append("guess")


def test_a_missing_file_is_an_empty_record_and_the_first_append_starts_it(record):
    assert not record.path.parent.exists() and record.read() == journal.Reading()
    record.append("reveal", lesson="06", question=3, measured=4, predicted=None)
    assert [e["event"] for e in record.read().events] == ["reveal"]


def test_a_corrupt_line_is_reported_and_skipped_and_no_other_line_is_lost(record):
    record.append("answer", lesson="01", question=1, answer="a", correct=False)
    with open(record.path, "ab") as out:  # an edited line, a non-object, bytes that are not UTF-8, a torn line
        out.write(b'{"event": "answer", oops\n[1, 2]\n\xff\xfe\n{"v": 1, "event": "check", "passed": tr')
    record.append("answer", lesson="01", question=2, answer="c", correct=True)
    reading = record.read()
    assert [(e["lesson"], e["question"]) for e in reading.events] == [("01", 1), ("01", 2)]
    assert [number for number, _ in reading.skipped] == [2, 3, 4, 5]
    assert reading.skipped[0][1] == '{"event": "answer", oops'
    assert b'"passed": tr\n{"v": 1' in record.path.read_bytes()  # the torn line is kept, ended before the next


APPENDER = textwrap.dedent("""
    import hashlib, pathlib, sys, time
    from ddp_lessons import journal
    record, writer, go = journal.Journal(sys.argv[1]), int(sys.argv[2]), pathlib.Path(sys.argv[4])
    (go.parent / f"ready{writer}").touch()
    while not go.exists():  # every writer starts at once
        time.sleep(0.001)
    for i in range(int(sys.argv[3])):
        payload = f"{writer}-{i}-" + "x" * (5000 + 37 * i % 3000)  # longer than a pipe's atomic 4 KiB
        record.append("check", exercise="90", check=payload, passed=True,
                      hint=hashlib.sha256(payload.encode()).hexdigest())
""")


def test_appends_from_several_processes_at_once_never_interleave_or_get_lost(record, tmp_path):
    writers, lines, go = 4, 300, tmp_path / "go"
    children = [subprocess.Popen([sys.executable, "-c", APPENDER, str(record.path), str(w), str(lines), str(go)])
                for w in range(writers)]
    deadline = time.monotonic() + 60
    while len(list(tmp_path.glob("ready*"))) < writers and time.monotonic() < deadline:
        time.sleep(0.01)
    go.touch()
    assert [child.wait(timeout=120) for child in children] == [0] * writers
    reading = record.read()
    assert reading.skipped == []
    assert all(hashlib.sha256(e["check"].encode()).hexdigest() == e["hint"] for e in reading.events)
    assert sorted(e["check"].split("-x")[0].rsplit("-", 1)[0] + "-" for e in reading.events) == sorted(
        f"{w}-" for w in range(writers) for _ in range(lines))
    assert len({e["check"] for e in reading.events}) == writers * lines


def in_a_course(tmp_path, monkeypatch):
    """The working folder is a course's notebooks/ folder (as a lesson's kernel's is)."""
    for folder in ("notebooks", "exercises"):
        (tmp_path / folder).mkdir()
    monkeypatch.chdir(tmp_path / "notebooks")
    return tmp_path / journal.FILE


def test_only_a_learners_own_kernel_records_by_default(tmp_path, monkeypatch):
    default = in_a_course(tmp_path, monkeypatch)
    monkeypatch.delenv(JOURNAL_ENV, raising=False)
    monkeypatch.setenv(SESSION_ENV, str(tmp_path / "notebooks" / "06_x.ipynb"))
    assert journal.recording_path() is None  # under pytest (PYTEST_CURRENT_TEST): nothing
    monkeypatch.delenv("PYTEST_CURRENT_TEST")
    assert journal.recording_path() == default  # a JupyterLab kernel: the course's root
    monkeypatch.delenv(SESSION_ENV)
    assert journal.recording_path() is None  # nbval, make course, a script: nothing
    monkeypatch.setenv(JOURNAL_ENV, "off")
    monkeypatch.setenv(SESSION_ENV, "x.ipynb")
    assert journal.recording_path() is None and not journal.current()
    monkeypatch.setenv(JOURNAL_ENV, str(tmp_path / "mine.jsonl"))
    assert journal.recording_path() == tmp_path / "mine.jsonl"  # an explicit path wins


def test_answers_and_checks_under_pytest_write_nothing(tmp_path, monkeypatch, capsys):
    default = in_a_course(tmp_path, monkeypatch)
    monkeypatch.delenv(JOURNAL_ENV, raising=False)
    monkeypatch.setenv(SESSION_ENV, str(tmp_path / "notebooks" / "05_x.ipynb"))
    monkeypatch.setattr(quiz, "_first", {})
    quiz.ask("05", 1)
    quiz.check("a", confidence="sure")
    with pytest.raises(AssertionError):
        failing_check([1])
    assert not default.exists() and list(tmp_path.rglob("*.jsonl")) == []


@pytest.fixture
def learner(tmp_path, monkeypatch):
    """This process as a learner's kernel recording to an explicit path; a fresh kernel's quiz state."""
    path = tmp_path / "record.jsonl"
    monkeypatch.setenv(JOURNAL_ENV, str(path))
    monkeypatch.setattr(quiz, "_first", {})
    monkeypatch.setattr(quiz, "_revealed", set())
    monkeypatch.setattr(common, "_given", common.Counter())
    return journal.Journal(path)


def test_a_widget_answer_records_the_first_answer_once(learner):
    asked = quiz.ask("05", 1)
    _, choices, sure, button, _ = asked.widget().children
    wrong = (asked.answer + 1) % len(asked.options)
    choices.value, sure.value = wrong, "think"
    button.click()
    choices.value = asked.answer  # a later click: feedback, no new record
    button.click()
    (event,) = learner.read().events
    assert {k: event[k] for k in ("event", "lesson", "question", "answer", "correct", "confidence", "via")} == {
        "event": "answer", "lesson": "05", "question": 1, "answer": "abcd"[wrong], "correct": False,
        "confidence": "think", "via": "widget"}


def test_the_first_answer_holds_after_a_kernel_restart(learner, monkeypatch, capsys):
    quiz.ask("05", 1)
    quiz.check("a", confidence="guess")
    monkeypatch.setattr(quiz, "_first", {})  # a new kernel: only the record remembers
    again = quiz.ask("05", 1)
    assert again.first == quiz.Answer(0, "guess", again.answer == 0, "text")
    quiz.check("b")
    assert len(learner.read().events) == 1


def test_a_prediction_and_its_reveal_are_recorded(learner, monkeypatch, tmp_path, capsys):
    number = {"question": "How many?", "unit": "buckets", "kind": "numeric", "explanation": "x", "revisit": "A"}
    quiz.write_questions(tmp_path / "q", "90", [number])
    monkeypatch.setattr(quiz, "_questions", lambda lang="en": quiz.read_questions(tmp_path / "q", lang))
    quiz.predict("90", 1)
    quiz.check("5", confidence="sure")
    quiz.reveal("90", 1, measured=4.0)
    quiz.reveal("90", 1, measured=4.0)  # the cell run again: recorded once
    answer, reveal = learner.read().events
    assert (answer["kind"], answer["answer"], answer["correct"], answer["confidence"]) == ("numeric", 5, None, "sure")
    assert (reveal["event"], reveal["measured"], reveal["predicted"]) == ("reveal", 4, 5)


@common.recorded("90")
def failing_check(values):
    common.expect(values == [2], "one", "symptom: got one", "fix: two")
    common.passed("two")


def test_each_check_result_is_recorded_with_its_hint(learner, capsys):
    for values in ([1], [1], [2]):
        try:
            failing_check(values)
        except AssertionError:
            pass
    fields = [(e["exercise"], e["check"], e["passed"], e["hint"], e["fix_shown"]) for e in learner.read().events]
    assert fields == [("90", "failing_check", False, "one", False), ("90", "failing_check", False, "one", True),
                      ("90", "failing_check", True, None, False)]


def test_a_check_that_errors_records_the_error(learner):
    @common.recorded("90")
    def broken():
        raise KeyError("rank")

    with pytest.raises(KeyError):
        broken()
    (event,) = learner.read().events
    assert (event["passed"], event["error"], event["hint"]) == (False, "KeyError", None)


def test_reset_keeps_the_old_record_aside_and_starts_a_new_one(record):
    assert journal.reset(record.path) is None
    record.append("answer", lesson="01", question=1, answer="a", correct=True)
    backup = journal.reset(record.path)
    assert backup.parent == record.path.parent and backup.name.startswith("my_progress.")
    assert not record.path.exists() and len(journal.read(backup).events) == 1
    record.append("answer", lesson="01", question=1, answer="b", correct=False)
    assert [e["answer"] for e in record.read().events] == ["b"]


def test_a_recorded_answer_edited_into_nonsense_is_read_past(learner, capsys):
    journal.append_line(learner.path, json.dumps({"event": "answer", "lesson": "05", "question": 1, "answer": "zz"}))
    asked = quiz.ask("05", 1)
    assert asked.first is None
    quiz.check("a")
    assert "is the one recorded" not in capsys.readouterr().out
    assert learner.read().events[-1]["answer"] == "a"  # the real first answer is kept
