"""Progress lines on stderr for work a person watches: one line per item.

Recording and rendering take seconds per item, so a numbered line with the
elapsed time says more than a bar would. Standard library only: this runs on
the bare GPU machine too.
"""

import sys
import time
from contextlib import contextmanager


@contextmanager
def step(index, total, message, stream=None):
    """Print ``[index/total] message ...`` and, when the block ends, how long it took."""
    stream = stream or sys.stderr
    width = len(str(total))
    stream.write(f"[{index:>{width}}/{total}] {message} ... ")
    stream.flush()
    started = time.perf_counter()
    try:
        yield
    except BaseException:
        stream.write("failed\n")
        raise
    stream.write(f"{time.perf_counter() - started:.1f} s\n")
    stream.flush()
