"""`tracebacks`: where each failed rank left the training script, and its error, from its output."""
from types import SimpleNamespace

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
