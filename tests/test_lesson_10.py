"""Lesson 10's claims about torch that no lesson cell can run: DETAIL crashes DDP's constructor on torch 2.13 CPU."""
import os
import signal
import subprocess
import sys
import textwrap

import pytest
import torch

CONSTRUCT_DDP = textwrap.dedent("""
    import sys
    import torch
    import torch.distributed as dist
    from torch.nn.parallel import DistributedDataParallel as DDP
    dist.init_process_group("gloo", init_method="file://" + sys.argv[1], rank=0, world_size=1)
    DDP(torch.nn.Linear(4, 4))
    print("DDP constructed")
    dist.destroy_process_group()
""")


def construct_ddp(tmp_path, debug_level):
    env = {**os.environ, "TORCH_DISTRIBUTED_DEBUG": debug_level, "CUDA_VISIBLE_DEVICES": ""}
    return subprocess.run([sys.executable, "-c", CONSTRUCT_DDP, str(tmp_path / f"store-{debug_level}")],
                          env=env, capture_output=True, text=True, timeout=120)


@pytest.mark.slow
@pytest.mark.skipif(not torch.__version__.startswith("2.13"), reason="lesson 10 states this for torch 2.13")
def test_detail_makes_ddps_constructor_segfault_on_torch_2_13_and_info_does_not(tmp_path):
    assert construct_ddp(tmp_path, "INFO").stdout.strip() == "DDP constructed"
    crashed = construct_ddp(tmp_path, "DETAIL")
    assert crashed.returncode == -signal.SIGSEGV, (crashed.returncode, crashed.stderr[-2000:])
