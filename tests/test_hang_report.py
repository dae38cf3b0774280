"""`runtime.hang_report`: one report of where each hung rank was, rendered in the launcher's words
(`RunTimeoutError`) and in live ranks' words (a cell past its timeout) from the same renderer."""
from ddp_lessons.live.results import HANG_WORDING
from ddp_lessons.runtime import hang_report, stacks
from ddp_lessons.runtime.diagnose import TIMEOUT_WORDING
from ddp_lessons.runtime.hang_report import HangReport

REPORT = HangReport(stacks={0: "s0", 1: "s1"}, tool="py-spy", note="rank 2: py-spy timed out",
                    where={1: "in barrier() at x.py:3: dist.barrier()", 0: "in all_reduce() at x.py:2: f()"})


def test_the_launchers_wording_lists_every_rank_and_says_which_has_no_stack():
    assert REPORT.lines(range(3), TIMEOUT_WORDING) == [
        "where each rank was (Python stacks taken with py-spy; full stacks: err.result.stacks[rank]):",
        "rank 0: in all_reduce() at x.py:2: f()",
        "rank 1: in barrier() at x.py:3: dist.barrier()",
        "rank 2: no stack (no live process of this rank)",
        "(rank 2: py-spy timed out)"]
    assert HangReport().lines(range(2), TIMEOUT_WORDING) == ["no Python stacks could be captured: unknown reason"]


def test_a_cells_wording_lists_the_ranks_it_caught_indented():
    assert REPORT.lines(sorted(REPORT.where), HANG_WORDING) == [
        "where each rank was waiting (Python stacks taken with py-spy; full stacks: `%ranks stacks` or "
        "err.result.stacks[rank]):",
        "  rank 0 in all_reduce() at x.py:2: f()",
        "  rank 1 in barrier() at x.py:3: dist.barrier()",
        "  (rank 2: py-spy timed out)"]
    assert HangReport().lines([], HANG_WORDING) == []  # nothing to say: no stack taken, no note
    assert HangReport(note="py-spy is not installed").lines([], HANG_WORDING) == [
        "no Python stacks could be captured: py-spy is not installed"]


def test_full_stacks_go_rank_by_rank_under_their_where_line():
    assert REPORT.full_stacks() == ("--- rank 0 (py-spy): in all_reduce() at x.py:2: f()\ns0\n"
                                    "--- rank 1 (py-spy): in barrier() at x.py:3: dist.barrier()\ns1")


def test_capture_tidies_each_stack_and_locates_each_rank(monkeypatch, tmp_path):
    monkeypatch.setattr(stacks, "capture", lambda pids, run_dir: stacks.Capture({0: "raw"}, "faulthandler", "", 0.5))
    report = hang_report.capture({0: 1}, tmp_path, locate=lambda text: f"at {text}", tidy=str.upper)
    assert report == HangReport({0: "RAW"}, {0: "at raw"}, "faulthandler", "", 0.5)


def test_a_failing_capture_becomes_the_note(monkeypatch, tmp_path):
    def capture(pids, run_dir):
        raise RuntimeError("no ptrace")
    monkeypatch.setattr(stacks, "capture", capture)
    report = hang_report.capture({0: 1}, tmp_path, locate=str)
    assert (report.tool, report.stacks, report.note) == (None, {}, "stack capture failed: RuntimeError('no ptrace')")
