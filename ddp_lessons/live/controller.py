"""The live group's ipyparallel controller, run as ``python -m ddp_lessons.live.controller ARGS``.

It is ipyparallel's own ``ipcontroller`` (ARGS are its options) plus a watchdog thread that ends
it, and its heart-monitor child, when the notebook kernel that started it is gone.
"""

import sys

from ddp_lessons.live import watchdog


def main(argv: list[str]) -> None:
    watchdog.watch_kernel()
    from ipyparallel.controller.app import main as ipcontroller

    ipcontroller(argv=argv)


if __name__ == "__main__":
    main(sys.argv[1:])
