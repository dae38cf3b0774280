"""Each rank's lines, put back together from torchrun's teed streams; paths cut for display."""
import sys
import threading
from pathlib import Path

from ddp_lessons import launch
from ddp_lessons.runtime import contract, rank_output


def test_a_line_split_by_another_ranks_line_is_put_back_together(capsys):
    """torchrun's tee can emit half of rank 0's line, then rank 1's line, then the rest."""
    mark = contract.RANK_MARK.replace("${rank}", "{}")
    stream = [f"{mark.format(0)}loss 0.2{mark.format(1)}loss 0.3\n",
              f"{mark.format(0)}5 at step 7\n",
              "W1129 19:23:18.429000 3811 torch/distributed/elastic/... closing signal\n",
              f"{mark.format(1)}[rank1]: ValueError: boom\n",
              f"{mark.format(0)}unfinished"]
    result = launch.RunResult(command=[], nproc=2, run_dir=Path("."))
    rank_output.pump(iter(stream), result, threading.Lock(), echo=True)
    assert result.rank_lines == {0: ["loss 0.25 at step 7", "unfinished"],
                                 1: ["loss 0.3", "ValueError: boom"]}
    assert result.launcher_lines == [stream[2].rstrip("\n")]
    printed = capsys.readouterr().out.splitlines()
    assert printed == ["[rank 1] loss 0.3", "[rank 0] loss 0.25 at step 7", "[rank 1] ValueError: boom",
                       "[rank 0] unfinished"]


def test_noise_from_torchrun_is_recognised_but_rank_lines_are_not():
    assert rank_output.is_torchrun_noise("W1129 19:23:18.429000 3811 torch/distributed/elastic ...")
    assert rank_output.is_torchrun_noise("*****************************************")
    assert not rank_output.is_torchrun_noise("epoch 1 loss 0.25")


def test_tail_keeps_the_last_lines_indented_without_trailing_blanks():
    assert rank_output.tail(["a", "b", "c", "", " "], n=2) == "    b\n    c"


def test_shorten_paths_cuts_the_working_directory_site_packages_and_pythons_prefix():
    text = (f'Process 7: {sys.executable} -u scripts/x.py\n'
            '  File "/home/me/course/notebooks/scripts/x.py", line 3 in <module>\n'
            '  File "/opt/venv/lib/python3.11/site-packages/torch/distributed/distributed_c10d.py"')
    assert rank_output.shorten_paths(text, cwd="/home/me/course/notebooks") == (
        f'Process 7: {Path(sys.executable).relative_to(sys.prefix)} -u scripts/x.py\n'
        '  File "scripts/x.py", line 3 in <module>\n'
        '  File "torch/distributed/distributed_c10d.py"')
