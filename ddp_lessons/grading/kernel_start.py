"""nbval's kernel start, tried twice: a kernel that dies before it answers ``kernel_info`` is started once more.

Under load, with several kernels starting at once (`make test`'s workers, `grade --jobs N`), a new kernel
can die before its first reply (jupyter_client picks its ZeroMQ ports by binding and releasing them, and
another kernel starting at the same moment can take one first). nbval then fails every cell of the
notebook (``RuntimeError: Kernel died before replying to kernel_info``): a lesson's test, or a student's
grade, lost to a race that has nothing to do with the notebook. `install` wraps
``nbval.kernel.start_new_kernel`` (module-level, looked up by `RunningKernel` at each start) so that
such a start is tried once more; any other failure, and a second death, still raise.
"""

from __future__ import annotations

import functools

DIED = "Kernel died before replying to kernel_info"


def install() -> None:
    """Wrap nbval's `start_new_kernel` (once per process)."""
    from nbval import kernel

    if getattr(kernel.start_new_kernel, "tries_twice", False):
        return
    start = kernel.start_new_kernel

    @functools.wraps(start)
    def start_new_kernel(*args, **kwargs):
        try:
            return start(*args, **kwargs)
        except RuntimeError as error:
            if DIED not in str(error):
                raise
            return start(*args, **kwargs)

    start_new_kernel.tries_twice = True
    kernel.start_new_kernel = start_new_kernel
