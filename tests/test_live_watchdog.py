"""`live.watchdog`: a live group's processes end with the kernel that started them."""
import sys
import time

import psutil

from ddp_lessons.live import watchdog


def test_the_watchdog_sees_a_dead_or_zombie_kernel_as_gone():
    child = psutil.Popen([sys.executable, "-c", "import time; time.sleep(30)"])
    try:
        assert watchdog.kernel_alive(child)
        child.kill()
        time.sleep(0.2)  # not reaped yet: a zombie
        assert not watchdog.kernel_alive(child)
    finally:
        child.wait()
    assert not watchdog.kernel_alive(child)
