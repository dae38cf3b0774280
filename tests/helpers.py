"""Plain helpers shared by the tests (fixtures live in conftest.py, browser helpers in browser.py)."""
import time
from pathlib import Path

from ddp_lessons.base import scaling_results
from ddp_lessons.runtime import processes

ROOT = Path(__file__).resolve().parents[1]
NOTEBOOKS, SOLUTIONS, EXERCISES, EXAMPLES = (ROOT / name for name in ("notebooks", "solutions", "exercises",
                                                                      "examples"))
SCRIPTS = ROOT / "tests" / "scripts"
"""The tests' own rank scripts."""


def wait_until_gone(pids, seconds: float = 30.0) -> list[int]:
    """The pids still alive after waiting up to `seconds` for all of them to end."""
    deadline = time.monotonic() + seconds
    while processes.alive(pids) and time.monotonic() < deadline:
        time.sleep(0.2)
    return processes.alive(pids)


CELL = "import time\nt = torch.ones(1)\nif rank == 0:\n    step(t)\nelse:\n    time.sleep(60)\n"
"""A live cell that hangs: rank 0 all-reduces (in `EARLIER`'s function), rank 1 sleeps."""
EARLIER = "def step(t):\n    dist.all_reduce(t)\n"
"""The earlier cell that defines the function `CELL` calls."""


# -- the bench's records and rows (test_bench.py, test_scaling_results.py) --
ROW_KEYS = {"experiment", "sync", "world_size", "model", "scaling", "per_rank_batch", "global_batch",
            "accumulate", "threads_per_rank", "bucket_cap_mb", "step_s", "samples_per_s",
            "allreduce_per_step", "allreduce_s", "speedup", "efficiency", "efficiency_range"}
SPREAD_KEYS = {"median", "q1", "q3", "min", "max", "count"}
RUN_KEYS = {"world_size", "backend", "device", "choice", "launch_wall_s", "startup_s",
            "torchrun_and_python_start_s", "init_process_group_s", "ddp_construct_s", "measuring_s",
            "teardown_s", "load_average"}
MACHINE_KEYS = {"cpu_model", "cpu_cores", "gpus", "torch", "python", "platform", "backend", "device"}


def rank_record(step_s, allreduces=1, name="cnn/weak", per_rank_batch=8, sync=("every",)):
    """A rank's record as bench_train.py writes it, with one measurement."""
    modes = {mode: {"step_s": list(step_s), "allreduces": [allreduces] * len(step_s),
                    "allreduce_s": [0.001] * len(step_s)} for mode in sync}
    return {"measurements": [{"name": name, "model": "cnn", "scaling": "weak",
                              "per_rank_batch": per_rank_batch, "accumulate": 1, "sync": list(sync),
                              "bucket_cap_mb": 25.0, "threads": 1, "modes": modes}]}


def rows_at(world, name="cnn/weak", seconds=0.1, threads=1):
    return scaling_results.rows_from_records([rank_record([seconds] * 3, name=name)] * world, world)
