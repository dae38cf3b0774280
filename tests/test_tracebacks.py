"""`tracebacks`: where each failed rank left the training script, and its error, from its output."""
from types import SimpleNamespace

import pytest

from ddp_lessons import tracebacks

RANK0 = ['Traceback (most recent call last):',
         '  File "/somewhere/notebooks/scripts/10_uneven.py", line 51, in <module>',
         '    main(parser.parse_args().join)',
         '  File "/somewhere/notebooks/scripts/10_uneven.py", line 36, in main',
         '    F.mse_loss(model(x), y).backward()  # DDP all-reduces the gradient here',
         '  File "/venv/lib/python3.11/site-packages/torch/_tensor.py", line 623, in backward',
         '    torch.autograd.backward(',
         'RuntimeError: [/__w/pytorch/third_party/gloo/gloo/transport/tcp/unbound_buffer.cc:78] '
         'Timed out waiting 5000ms for recv operation to complete']


def test_script_frame_is_the_innermost_frame_of_the_script_with_its_source_line():
    assert tracebacks.script_frame(RANK0, "scripts/10_uneven.py") == \
        "10_uneven.py:36: F.mse_loss(model(x), y).backward()  # DDP all-reduces the gradient here"
    assert tracebacks.script_frame(RANK0, "scripts/other.py") is None


def test_a_frame_below_the_current_folder_is_shown_relative_to_it(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    lines = [f'  File "{tmp_path}/scripts/x.py", line 3, in main', "    dist.barrier()"]
    assert tracebacks.script_frame(lines, "scripts/x.py") == "scripts/x.py:3: dist.barrier()"


def test_error_line_drops_gloos_cpp_location_and_finds_dotted_names():
    assert tracebacks.error_line(RANK0) == "RuntimeError: Timed out waiting 5000ms for recv operation to complete"
    assert tracebacks.error_line(["torch.distributed.DistBackendError: boom", "more"]) == "DistBackendError: boom"
    assert tracebacks.error_line(["all fine"]) is None


def test_where_ranks_failed_lists_only_ranks_with_a_traceback():
    result = SimpleNamespace(rank_lines={0: RANK0, 1: ["3 batches to train on"]})
    assert tracebacks.where_ranks_failed(result, "scripts/10_uneven.py") == {
        0: "10_uneven.py:36: F.mse_loss(model(x), y).backward()  # DDP all-reduces the gradient here"
           " -> RuntimeError: Timed out waiting 5000ms for recv operation to complete"}


# The four readers of exception lines (failure attribution, this lesson helper, the Accelerate launcher,
# the grader) used to disagree on these lines; now they share `parse_exception`, which says:
@pytest.mark.parametrize("line, parsed", [
    ("ValueError: bad", ("ValueError", "bad")),
    ("torch.distributed.DistBackendError: boom", ("DistBackendError", "boom")),  # attribution kept the path
    ("KeyboardInterrupt", ("KeyboardInterrupt", "")),  # this helper and the Accelerate launcher missed it
    ("SystemExit: 3", ("SystemExit", "3")),
    ("RuntimeError: [../gloo/transport/tcp/pair.cc:534] Connection closed by peer",
     ("RuntimeError", "Connection closed by peer")),  # only this helper dropped gloo's C++ location
    ("[rank1]: ValueError: x", ("ValueError", "x")),  # torch's rank tag: only the Accelerate launcher knew it
    ("ValueError (see above)", None),  # attribution's and Accelerate's `\b.*` took any text after a name
    ("    raise ValueError('x')", None),
    ("Traceback (most recent call last):", None),
])
def test_one_parser_reads_every_exception_line(line, parsed):
    assert tracebacks.parse_exception(line) == parsed


def test_an_exception_without_a_message_is_written_without_a_colon():
    assert tracebacks.exception_text("ValueError", "") == "ValueError"  # attribution wrote "ValueError: "
    assert tracebacks.exception_text("ValueError", "bad") == "ValueError: bad"


def test_traceback_error_reads_the_exception_of_the_last_traceback():
    lines = ["ValueError: printed by the script, not raised", *RANK0]
    assert tracebacks.traceback_error(lines) == "RuntimeError: Timed out waiting 5000ms for recv operation to complete"
    assert tracebacks.traceback_error(["ValueError: printed, no traceback"]) is None
    assert tracebacks.traceback_error(["Traceback (most recent call last):", "  cut"]) == tracebacks.UNREADABLE


def test_attribution_the_accelerate_launcher_and_the_grader_read_an_exception_alike(tmp_path):
    from ddp_lessons import accelerate_launch, launch
    from ddp_lessons.grading import plugin
    from ddp_lessons.runtime import diagnose

    lines = ["Traceback (most recent call last):", '  File "x.py", line 1, in <module>',
             "torch.distributed.DistBackendError: [../gloo/pair.cc:1] boom"]
    expected = "DistBackendError: boom"
    result = launch.RunResult(command=[], nproc=2, run_dir=tmp_path, returncode=1, rank_lines={1: lines})
    assert diagnose.attribute(result)[0].error == expected
    run = accelerate_launch.AccelerateRun(command=[], lines=[f"[rank 1] {line}" for line in lines])
    assert accelerate_launch.first_error(run) == f": rank 1: {expected}"
    assert plugin.failure_text(Exception("Cell execution caused an exception"),
                               [{"output_type": "error", "ename": "DistBackendError", "evalue": "boom"}]) == expected


TWO_FILES = ['Traceback (most recent call last):',
             '  File "/home/me/project/train.py", line 10, in <module>',
             '    engine.log_metrics(loss)',
             '  File "/home/me/project/engine.py", line 5, in log_metrics',
             '    dist.all_reduce(t)',
             '  File "/venv/lib/python3.11/site-packages/torch/distributed/c10d_logger.py", line 83, in wrapper',
             '    return func(*args, **kwargs)',
             '  File "/usr/lib/python3.11/contextlib.py", line 81, in inner',
             '    return func(*args, **kwds)',
             'RuntimeError: Connection closed by peer']


def test_an_error_in_the_learners_own_module_names_that_line_and_the_scripts_line_that_led_there():
    assert tracebacks.script_frame(TWO_FILES, "train.py") == "engine.py:5: dist.all_reduce(t) (called from train.py:10)"
    found = tracebacks.frames(TWO_FILES)
    assert [f.function for f in found] == ["<module>", "log_metrics", "wrapper", "inner"]
    assert found[1].source == "dist.all_reduce(t)" and tracebacks.learner_frame(found, "train.py") == 1
    result = SimpleNamespace(rank_lines={0: TWO_FILES})
    assert tracebacks.where_ranks_failed(result, "train.py") == {
        0: "engine.py:5: dist.all_reduce(t) (called from train.py:10) -> RuntimeError: Connection closed by peer"}


@pytest.mark.parametrize("path, mine", [
    ("/home/me/project/engine.py", True), ("engine.py", True),
    ("/venv/lib/python3.11/site-packages/numpy/core.py", False), ("torch/distributed/c10d_logger.py", False),
    ("/opt/pytorch/torch/nn/modules/module.py", False), ("<frozen runpy>", False), ("<string>", False)])
def test_learner_files_are_those_outside_torch_the_standard_library_and_site_packages(path, mine):
    assert tracebacks.is_learner_file(path) is mine


def test_the_standard_library_and_this_package_are_not_the_learners():
    import json
    assert not tracebacks.is_learner_file(json.__file__) and not tracebacks.is_learner_file(tracebacks.__file__)
