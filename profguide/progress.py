"""Progress lines on stderr for work a person watches.

Recording and rendering take seconds per item, so a numbered line when an
item starts and one with its elapsed time when it ends say more than a bar
would. Each is a whole line because torch's profiler writes its own lines to
stderr in between. Standard library only: this runs on the bare GPU machine too.
"""

import sys
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import TextIO


@contextmanager
def step(index: int, total: int, message: str, stream: TextIO | None = None) -> Iterator[None]:
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


def bar(label: str, stream: TextIO | None = None, width: int = 30) -> Callable[[float], None] | None:
    """A callback that draws ``label [#####     ] 45%`` on a terminal; silent when stderr is not one."""
    stream = stream or sys.stderr
    if not stream.isatty():
        return None
    drawn = [-1]

    def update(fraction: float) -> None:
        filled = int(fraction * width)
        if filled == drawn[0]:
            return
        drawn[0] = filled
        stream.write(f"\r{label} [{'#' * filled}{' ' * (width - filled)}] {fraction:4.0%}")
        if fraction >= 1:
            stream.write("\r" + " " * (len(label) + width + 8) + "\r")
        stream.flush()

    return update
