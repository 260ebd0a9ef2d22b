"""Running test workers in threads at once (tests/test_fuzz.py,
tests/test_single_threads.py)."""

from __future__ import annotations

import sys
import threading
from collections.abc import Callable


def run_threads(worker: Callable[[int], object], n_threads: int, switch_interval: float) -> None:
    """worker(k) for k < n_threads in as many threads at once, with the
    interpreter switching threads every switch_interval seconds."""
    old = sys.getswitchinterval()
    sys.setswitchinterval(switch_interval)
    try:
        threads = [threading.Thread(target=worker, args=(k,)) for k in range(n_threads)]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
    finally:
        sys.setswitchinterval(old)
