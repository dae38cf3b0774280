"""Which rank does the launcher blame? Stored torchrun reports, and real jobs with injected faults."""
import json
from pathlib import Path

import pytest

from ddp_lessons import launch
from ddp_lessons.runtime import diagnose

DATA = Path(__file__).parent / "data" / "diagnose"
SCRIPTS = Path(__file__).parent / "scripts"
OOM_HINT = "often the out-of-memory killer; check dmesg / memory per rank"


def stored_run(name: str, run_dir: Path) -> launch.RunResult:
    """A RunResult rebuilt from a stored sample of torchrun's and the ranks' output."""
    sample = json.loads((DATA / name).read_text())
    lines = {int(rank): output for rank, output in sample["rank_lines"].items()}
    return launch.RunResult(command=[], nproc=len(lines), run_dir=run_dir, returncode=1,
                            rank_lines=lines, launcher_lines=sample["launcher_lines"])


def write_error_record(run_dir: Path, rank: int, kind: str, message: str, when: float) -> None:
    folder = run_dir / "diagnose"
    folder.mkdir(exist_ok=True)
    (folder / f"rank{rank}.error.json").write_text(json.dumps(
        {"rank": rank, "time": when, "type": kind, "message": message, "traceback": "..."}))


def test_exit_report_lists_every_failed_rank_with_its_exit_code():
    sample = json.loads((DATA / "sigkill_rank1_of_3.json").read_text())
    assert diagnose.exit_report(sample["launcher_lines"]) == {
        0: (-15, 17019), 1: (-9, 17020), 2: (-15, 17021)}
    assert diagnose.stopped_by_agent(sample["launcher_lines"]) == {17019, 17021}


def test_killed_rank_is_blamed_although_torchrun_calls_its_peer_the_root_cause(tmp_path):
    result = stored_run("sigkill_peer_named_root_cause.json", tmp_path)
    failures = diagnose.attribute(result)
    assert [(f.rank, f.kind) for f in failures] == [(1, "signal"), (0, "peer-lost")]
    message = diagnose.failure_message(result, failures)
    first, *rest = message.splitlines()
    assert first == f"rank 1 was killed by SIGKILL (signal 9) - {OOM_HINT}"
    assert "  rank 0: lost its connection to a peer (RuntimeError: ... Read error ...) - a " \
           "consequence of rank 1's failure" in rest


def test_ranks_torchrun_stopped_are_consequences_and_every_failed_rank_is_listed(tmp_path):
    result = stored_run("sigkill_rank1_of_3.json", tmp_path)
    error = launch.RankFailedError.of(result)
    assert error.ranks[0] == 1 and sorted(error.ranks) == [0, 1, 2]
    assert error.causes[1].startswith("was killed by SIGKILL (signal 9)")
    assert all("a consequence of rank 1's failure" in error.causes[r] for r in (0, 2))
    for rank in (0, 1, 2):
        assert f"  rank {rank}: {error.causes[rank]}" in str(error)


def test_a_rank_that_raised_is_blamed_over_peers_even_when_torchrun_saw_them_first(tmp_path):
    """Three ranks: rank 2 raised; its peers' 'Connection closed by peer' reached torchrun first."""
    result = stored_run("sigkill_peer_named_root_cause.json", tmp_path)
    result.rank_lines = {0: ["Traceback (most recent call last):", "RuntimeError: [pair.cc:553] "
                             "Connection closed by peer [127.0.0.1]:5804"],
                         1: ["RuntimeError: Connection closed by peer"], 2: ["ready"]}
    result.launcher_lines = [line.replace("-9 (pid: 2241)  (SIGKILL)", "1 (pid: 2241)")
                             for line in result.launcher_lines]
    write_error_record(tmp_path, 1, "DistBackendError", "[pair.cc:553] Connection closed by peer",
                       when=100.0)
    write_error_record(tmp_path, 2, "ValueError", "rank 2 cannot read shard 7", when=100.2)
    failures = diagnose.attribute(result)
    assert [(f.rank, f.kind) for f in failures] == [(2, "raised"), (0, "peer-lost"), (1, "peer-lost")]
    assert failures[0].cause == "failed: ValueError: rank 2 cannot read shard 7"


def test_bare_exit_code_is_named_as_such(tmp_path):
    result = stored_run("sigkill_rank1_of_3.json", tmp_path)
    result.launcher_lines = [line.replace("-9 (pid: 17020)  (SIGKILL)", "3 (pid: 17020)")
                             for line in result.launcher_lines]
    assert diagnose.failure_message(result, diagnose.attribute(result)).splitlines()[0] == \
        "rank 1 exited with code 3 without a Python traceback"


def test_without_torchrun_report_ranks_with_a_traceback_are_named(tmp_path):
    result = launch.RunResult(command=[], nproc=2, run_dir=tmp_path, returncode=1,
                              rank_lines={0: ["ok"], 1: ["Traceback (most recent call last):",
                                                         '  File "x.py", line 1', "KeyError: 'lr'"]})
    assert [(f.rank, f.cause) for f in diagnose.attribute(result)] == [(1, "failed: KeyError: 'lr'")]


def test_signal_meanings_cover_the_usual_native_deaths():
    for name in ("SIGKILL", "SIGSEGV", "SIGABRT", "SIGBUS"):
        assert diagnose.signal_meaning(name)
    assert "native code" in diagnose.signal_meaning("SIGSEGV")


FAULTS = [  # (fault, rank that fails: 0 or -1 = the last, ranks, words the first line must hold)
    ("raise", 0, 3, "failed: ValueError: rank 0 cannot read shard 7"),
    ("exit3", 0, 2, "exited with code 3 without a Python traceback"),
    ("exit3", -1, 3, "exited with code 3 without a Python traceback"),
    ("sigkill", 0, 3, f"was killed by SIGKILL (signal 9) - {OOM_HINT}"),
    ("sigkill", -1, 2, f"was killed by SIGKILL (signal 9) - {OOM_HINT}"),
    ("sigsegv", 0, 2, "was killed by SIGSEGV (signal 11) - a crash in native code"),
    ("sigsegv", -1, 3, "was killed by SIGSEGV (signal 11) - a crash in native code"),
]  # raise on the last rank: tests/test_launch.py::test_failing_rank_is_named_with_its_traceback


@pytest.mark.slow
@pytest.mark.parametrize("fault,where,nproc,words", FAULTS,
                         ids=[f"{f}-rank{'last' if w < 0 else w}-of{n}" for f, w, n, _ in FAULTS])
def test_injected_fault_names_the_faulty_rank_first(tmp_path, fault, where, nproc, words):
    with pytest.raises(launch.RankFailedError) as info:
        launch.run_torchrun(SCRIPTS / "inject_fault.py", nproc=nproc, args=[fault, str(where)],
                            run_dir=tmp_path, timeout=90, echo=False)
    error, faulty = info.value, where % nproc
    message = str(error)
    assert error.ranks[0] == faulty, message
    assert message.splitlines()[0].startswith(f"rank {faulty} {words}"), message
    others = [r for r in range(nproc) if r != faulty]
    for rank in error.ranks[1:]:  # peers that failed too are consequences, and are named
        assert rank in others and not error.failures[error.ranks.index(rank)].is_root_cause
        assert f"  rank {rank}: " in message
    assert "ChildFailedError" not in message
    if fault == "raise":
        assert "Traceback" in message and "cannot read shard 7" in message
    if fault == "sigsegv":  # the rank's hooks print its Python stack when native code crashes
        assert "inject_fault.py" in error.result.output(faulty)


def test_a_multi_line_error_gives_a_one_line_cause_and_the_root_is_the_earliest_raise(tmp_path):
    result = launch.RunResult(command=[], nproc=2, run_dir=tmp_path, returncode=1)
    write_error_record(tmp_path, 1, "RuntimeError", "Expected to have finished reduction in the "
                       "prior iteration\nParameter indices which did not receive grad: 2", when=5.0)
    write_error_record(tmp_path, 0, "RuntimeError", "Expected to have finished reduction\n...",
                       when=5.1)
    failures = diagnose.attribute(result)
    assert [f.rank for f in failures] == [1, 0]
    assert failures[0].cause == ("failed: RuntimeError: Expected to have finished reduction in the "
                                 "prior iteration ...")
    assert "Parameter indices" in failures[0].error


def test_failure_kinds_keep_their_words_and_root_causes_sort_first():
    kinds = list(diagnose.FailureKind)
    assert [str(kind) for kind in kinds] == ["signal", "exit", "raised", "left-early", "peer-lost", "stopped",
                                             "unknown"]
    assert [kind.is_root_cause for kind in kinds] == [True, True, True, True, False, False, True]
    assert f"{diagnose.FailureKind.PEER_LOST}" == "peer-lost" and diagnose.FailureKind("raised").is_root_cause


def write_exit_record(run_dir: Path, rank: int, when: float) -> None:
    folder = run_dir / "diagnose"
    folder.mkdir(exist_ok=True)
    (folder / f"rank{rank}.exit.json").write_text(json.dumps({"rank": rank, "time": when, "pid": 1}))


PEER_TRACEBACK = ('Traceback (most recent call last):\n  File "/home/me/train.py", line 19, in <module>\n'
                  "    loss.backward()\n"
                  '  File "/venv/lib/python3.11/site-packages/torch/_tensor.py", line 623, in backward\n'
                  "    torch.autograd.backward(\n"
                  '  File "/venv/lib/python3.11/site-packages/torch/autograd/graph.py", line 9, in '
                  '_engine_run_backward\n'
                  "    return Variable._execution_engine.run_backward(\n"
                  "RuntimeError: [pair.cc:553] Connection closed by peer [127.0.0.1]:28051\n")


def test_a_rank_that_exited_cleanly_while_its_peer_lost_it_is_named_as_the_root_cause(tmp_path):
    result = launch.RunResult(command=[], nproc=2, run_dir=tmp_path, returncode=1, started_at=100.0,
                              rank_lines={0: PEER_TRACEBACK.splitlines(), 1: ["step 0 done", "step 1 done",
                                                                               "step 2: early stop"]},
                              launcher_lines=["  rank      : 0 (local_rank: 0)", "  exitcode  : 1 (pid: 11) "])
    (tmp_path / "diagnose").mkdir()
    (tmp_path / "diagnose" / "rank0.error.json").write_text(json.dumps(
        {"rank": 0, "time": 103.5, "type": "RuntimeError", "message": "[pair.cc:553] Connection closed by peer",
         "traceback": PEER_TRACEBACK}))
    write_exit_record(tmp_path, 0, 103.6)  # a rank that raised exits too: not a clean exit
    write_exit_record(tmp_path, 1, 103.2)
    error = launch.RankFailedError.of(result)
    assert error.ranks == [1, 0] and error.failures[0].kind == "left-early" and error.failures[0].exitcode == 0
    first, explained, *rest = str(error).splitlines()
    assert first == ("rank 1 exited (code 0) 3.2 s after the job started while rank 0 was still in backward() "
                     "at train.py:19: a rank left the training loop early")
    assert explained.startswith("what it means: a collective lost a peer")
    assert "  rank 0: lost its connection to a peer (RuntimeError: ... Connection closed by peer ...) - a " \
           "consequence of rank 1 leaving early" in rest
    assert "the end of rank 1's output:" in rest and "    step 2: early stop" in rest


def test_a_clean_exit_is_no_cause_when_another_rank_failed_on_its_own(tmp_path):
    result = stored_run("sigkill_peer_named_root_cause.json", tmp_path)
    write_exit_record(tmp_path, 2, 1.0)
    assert [f.kind for f in diagnose.attribute(result)] == ["signal", "peer-lost"]


def test_the_hang_report_says_which_ranks_had_already_exited_and_how(tmp_path):
    result = launch.RunResult(command=[], nproc=3, run_dir=tmp_path, started_at=50.0)
    write_exit_record(tmp_path, 1, 51.25)
    write_exit_record(tmp_path, 2, 52.0)
    write_error_record(tmp_path, 2, "ValueError", "no shard for rank 2", when=51.9)
    assert diagnose.exited_ranks(result, alive=[0]) == {
        1: "had already exited, 1.2 s after the job started (its Python ended without an error)",
        2: "had already exited, 2.0 s after the job started (after raising ValueError: no shard for rank 2)"}
    result.hang.exited = diagnose.exited_ranks(result, alive=[0])
    result.pids = {1, 2}
    message = diagnose.timeout_message(result, 10)
    assert "rank 1, rank 2 had already exited while the others waited" in message
    assert "rank 1: had already exited, 1.2 s after the job started" in message  # even without any stack


@pytest.mark.slow
@pytest.mark.parametrize("nproc", [2, 3])
def test_a_rank_that_left_the_training_loop_early_is_named_with_its_last_output(tmp_path, nproc):
    """The last rank stops after 2 steps (a rank-local early stop) and exits with code 0; the others' backward
    loses it. torchrun reports only the others, with gloo's 'Connection closed by peer'."""
    with pytest.raises(launch.RankFailedError) as info:
        launch.run_torchrun(SCRIPTS / "leaves_early.py", nproc=nproc, args=["break"], run_dir=tmp_path,
                            timeout=60, echo=False)
    error, last = info.value, nproc - 1
    message = str(error)
    assert error.ranks[0] == last and sorted(error.ranks) == list(range(nproc)), message
    first = message.splitlines()[0]
    assert first.startswith(f"rank {last} exited (code 0) ") and " s after the job started while rank " in first
    assert first.endswith(" was still in backward() at leaves_early.py:32: a rank left the training loop early")
    assert f"the end of rank {last}'s output:" in message and "step 2: early stop" in message
    for rank in range(last):
        assert f"  rank {rank}: lost its connection to a peer" in message
        assert error.causes[rank].endswith(f"a consequence of rank {last} leaving early")
