"""Runner for exercise 11's check (`checks.real_distributed_accuracy` launches it): STUDENT_SCRIPT.

Each rank joins a gloo group, calls the student's ``evaluate(model, dataset)`` on the check's
data sets of several sizes, and records what it returned as its 'evaluate' record.
"""

import sys

import torch.distributed as dist

from ddp_lessons import records
from ddp_lessons.checks.metrics import REAL_SIZES, load_evaluate, make_case


def main(script: str) -> None:
    dist.init_process_group(backend="gloo")
    evaluate = load_evaluate(script)
    accuracy = {str(size): float(evaluate(*make_case(size))) for size in REAL_SIZES}
    records.write("evaluate", {"accuracy": accuracy})
    dist.destroy_process_group()


if __name__ == "__main__":
    main(sys.argv[1])
