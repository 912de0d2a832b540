"""Progress lines on stderr for work a person watches.

Recording and rendering take seconds per item, so a numbered line when an
item starts and one with its elapsed time when it ends say more than a bar
would. Each is a whole line because torch's profiler writes its own lines to
stderr in between. Standard library only: this runs on the bare GPU machine too.
"""

import sys
import time
from contextlib import contextmanager


@contextmanager
def step(index, total, message, stream=None):
    """Print ``[index/total] message`` and, when the block ends, how long it took."""
    stream = stream or sys.stderr
    counter = f"[{index:>{len(str(total))}}/{total}]"
    stream.write(f"{counter} {message}\n")
    stream.flush()
    started = time.perf_counter()
    try:
        yield
    except BaseException:
        stream.write(f"{counter} failed: {message}\n")
        raise
    stream.write(f"{counter} done in {time.perf_counter() - started:.1f} s\n")
    stream.flush()
