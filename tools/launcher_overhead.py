"""How much the course's launcher costs over a bare `torchrun --standalone` (issue 2's 1.10x bar).

Runs a trivial 2-rank job both ways, interleaved, and prints each time and the ratio of medians:
    .venv/bin/python tools/launcher_overhead.py [--runs 5]
"""
import argparse
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from ddp_lessons import launch

TRIVIAL = """import torch.distributed as dist
dist.init_process_group("gloo")
dist.barrier()
print("rank", dist.get_rank())
dist.destroy_process_group()
"""


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=5)
    runs = parser.parse_args().runs
    with tempfile.TemporaryDirectory() as scratch:
        script = Path(scratch) / "trivial.py"
        script.write_text(TRIVIAL)
        bare_cmd = [sys.executable, "-m", "torch.distributed.run", "--standalone", "--nproc_per_node", "2",
                    str(script)]
        bare, ours = [], []
        for i in range(runs):
            start = time.perf_counter()
            subprocess.run(bare_cmd, check=True, capture_output=True)
            bare.append(time.perf_counter() - start)
            start = time.perf_counter()
            launch.run_torchrun(script, nproc=2, echo=False, run_dir=Path(scratch) / f"run{i}")
            ours.append(time.perf_counter() - start)
    for name, times in (("bare torchrun", bare), ("run_torchrun", ours)):
        print(f"{name:>13}: {' '.join(f'{t:.2f}' for t in times)} s; median {statistics.median(times):.2f} s")
    print(f"ratio of medians: {statistics.median(ours) / statistics.median(bare):.3f}")


if __name__ == "__main__":
    main()
