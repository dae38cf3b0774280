"""What a live cell shows (`live.results`): each rank's lines grouped in rank order, and why it failed."""
import pytest

from ddp_lessons.live.results import CellEnd, CellResult, RankCellError, RankInterrupt, RankOutput, RankState
from ddp_lessons.runtime.hang_report import HangReport


def test_output_is_grouped_by_rank_in_rank_order_with_labels(capsys):
    result = CellResult([RankOutput(0, "ok", stdout="a\nb\n", result_text="3"),
                         RankOutput(1, "ok", stdout="c\n", stderr="warn\n")])
    result.show()
    assert capsys.readouterr().out.splitlines() == ["[rank 0] a", "[rank 0] b", "[rank 0] Out: 3",
                                                    "[rank 1] c", "[rank 1] warn"]
    assert result.ok


def test_a_failure_summary_names_the_failing_rank_and_every_ranks_state():
    result = CellResult([RankOutput(0, "running"), RankOutput(1, "error", error="ValueError: boom")],
                        group_stopped=True)
    summary = result.summary()
    assert summary.splitlines()[0] == "rank 1 raised ValueError: boom"
    assert "rank 0: still running" in summary and "%ranks restart" in summary
    assert result.stuck == [0]
    with pytest.raises(RankCellError, match="rank 1 raised"):
        result.raise_for_failure()


def test_an_interrupted_cell_raises_a_keyboard_interrupt():
    result = CellResult([RankOutput(0, "interrupted", error="KeyboardInterrupt")], interrupted=True)
    with pytest.raises(KeyboardInterrupt) as caught:
        result.raise_for_failure()
    assert isinstance(caught.value, RankInterrupt) and "usable" in str(caught.value)


def test_a_timeout_summary_says_where_each_rank_waits_in_rank_order_and_the_error_carries_the_stacks():
    result = CellResult([RankOutput(0, "running"), RankOutput(1, "interrupted", error="KeyboardInterrupt")],
                        timed_out=True, timeout=2, group_stopped=True,
                        hang=HangReport(stacks={1: "dump 1", 0: "dump 0"}, tool="py-spy", where={
                            1: "at cell line 6: time.sleep(60)", 0: "in all_reduce() at cell line 4: x"}))
    lines = result.summary().splitlines()
    start = next(i for i, line in enumerate(lines) if line.startswith("where each rank was waiting"))
    assert "py-spy" in lines[start] and "%ranks stacks" in lines[start]
    assert lines[start + 1:start + 3] == ["  rank 0 in all_reduce() at cell line 4: x",
                                          "  rank 1 at cell line 6: time.sleep(60)"]
    with pytest.raises(RankCellError) as caught:
        result.raise_for_failure()
    assert caught.value.result.stacks[0] == "dump 0"


def test_rank_states_and_cell_ends_keep_their_words():
    assert [str(state) for state in RankState] == ["ok", "error", "interrupted", "running", "exited"]
    assert [str(end) for end in CellEnd] == ["finished", "failure", "timeout", "interrupt", "ended"]
    assert RankOutput(0, "ok").state == RankState.OK  # a plain word still compares equal


