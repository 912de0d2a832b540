"""Stacks in the folded format that ``prof.export_stacks`` writes and flame graphs read.

Each line is one sample: the frames from the outermost to the innermost, separated by ``;``, then a space
and a number (for ``export_stacks``, the metric of one op in µs). The same stack may come on several lines;
a flame graph adds them up. ``export_stacks`` writes a Python frame as ``file(line):_function`` (its spaces
become underscores).
"""

import re
from collections.abc import Iterable
from dataclasses import dataclass, field

Stack = tuple[tuple[str, ...], float]  # (frames, outermost first; value)
PYTHON_FRAME = re.compile(r"^(?P<file>.+)\((?P<line>\d+)\):_(?P<function>.+)$")


def folded(lines: Iterable[str]) -> list[Stack]:
    """Each line's frames and value; a line without a number after its last space is not a stack and is left
    out."""
    stacks = []
    for line in lines:
        frames, _, value = line.strip().rpartition(" ")
        try:
            number = float(value)
        except ValueError:
            continue
        if frames:
            stacks.append((tuple(frames.split(";")), number))
    return stacks


def function_of(frame: str) -> str:
    """The function a frame names: ``block`` for ``snippets/x.py(12):_block``; any other frame as it is."""
    match = PYTHON_FRAME.match(frame)
    return match["function"] if match else frame


def time_under(stacks: Iterable[Stack], function: str = "") -> float:
    """The total value of the stacks with a frame of ``function`` (of every stack when empty)."""
    return sum(value for frames, value in stacks
               if not function or any(function_of(frame) == function for frame in frames))


@dataclass
class Node:
    """A frame in the merged tree of stacks: its own value, and its callees by frame."""

    frame: str
    value: float = 0.0  # the value of every stack through this node
    children: dict[str, "Node"] = field(default_factory=dict)


def merged(stacks: Iterable[Stack]) -> Node:
    """The stacks as one tree under a root named ``all``, equal stacks added up: what a flame graph draws."""
    root = Node("all")
    for frames, value in stacks:
        root.value += value
        node = root
        for frame in frames:
            node = node.children.setdefault(frame, Node(frame))
            node.value += value
    return root
