"""A flame graph of folded stacks: each frame a bar as wide as the time of the stacks through it, callees on
top of their callers, the root at the bottom (Brendan Gregg's layout)."""

from collections.abc import Iterable

from profguide.analysis.stacks import Node, Stack, function_of, merged
from profguide.figures.svg import CHAR_WIDTH, FONT_SIZE, RIGHT_MARGIN, WIDTH, legend_svg, svg_document, xml_text
from profguide.text import format_duration

ROW = 20
LEFT = 8
MIN_WIDTH = 0.5  # narrower frames are left out: they would be invisible, and they swell the file
# Frames by where their code lives: (fill, text colour on it, legend label); the text keeps 4.5:1 contrast.
FRAME_STYLE = {
    "yours": ("#E69F00", "#000000", "your code (frames in {files})"),
    "torch": ("#56B4E9", "#000000", "PyTorch's Python code (torch/…)"),
    "other": ("#BBBBBB", "#000000", "everything else (the caller, built-ins)"),
}


def frame_kind(frame: str, yours: tuple[str, ...]) -> str:
    """Whose code a frame is: the files in ``yours``, torch's, or anything else."""
    if frame.startswith(yours):
        return "yours"
    return "torch" if frame.startswith("torch/") else "other"


def bars(node: Node, x: float, depth: int, scale: float, found: list[tuple[Node, float, int, float]]) -> None:
    """Each frame wide enough to draw, as (node, x, depth, width), callees left to right in the stacks' order."""
    for child in node.children.values():
        width = child.value * scale
        if width >= MIN_WIDTH:
            found.append((child, x, depth, width))
            bars(child, x, depth + 1, scale, found)
        x += width


def flame_svg(stacks: Iterable[Stack], yours: tuple[str, ...], title: str, unit: str = "self CPU time") -> str:
    """The flame graph of ``stacks``; frames in the files ``yours`` are coloured as the reader's own code."""
    root = merged(stacks)
    right = WIDTH - RIGHT_MARGIN
    found: list[tuple[Node, float, int, float]] = []
    bars(root, LEFT, 1, (right - LEFT) / root.value if root.value else 0, found)
    files = ", ".join(yours)
    drawn = {"other"} | {frame_kind(node.frame, yours) for node, *_ in found}  # the root is "other"
    legend, top = legend_svg([(fill, label.format(files=files)) for kind, (fill, _, label) in FRAME_STYLE.items()
                              if kind in drawn], top=8)
    depth = max((d for _, _, d, _ in found), default=0) + 1
    base = top + depth * ROW  # the root's row, at the bottom
    parts = [legend]
    parts.append(bar_svg(root, f"all: {format_duration(root.value)} of {unit}", LEFT, base, right - LEFT,
                         "other", 1.0))
    for node, x, level, width in found:
        share = node.value / root.value
        tooltip = f"{node.frame}\n{format_duration(node.value)} of {unit}, {share:.1%} of all"
        parts.append(bar_svg(node, tooltip, x, base - level * ROW, width, frame_kind(node.frame, yours),
                             share))
    return svg_document(WIDTH, base + ROW + 8, title, "".join(parts))


def bar_svg(node: Node, tooltip: str, x: float, y: float, width: float, kind: str, share: float) -> str:
    fill, ink, _ = FRAME_STYLE[kind]
    label = fitted(function_of(node.frame), f" {share:.0%}", width)
    text = (f'<text x="{x + 3:.1f}" y="{y + ROW - 6}" fill="{ink}" font-size="{FONT_SIZE - 1}">'
            f"{xml_text(label)}</text>") if label else ""
    return (f'<g><title>{xml_text(tooltip)}</title><rect x="{x:.1f}" y="{y}" width="{max(width - 1, 0.5):.1f}" '
            f'height="{ROW - 2}" fill="{fill}" rx="2"/>{text}</g>')


def fitted(name: str, suffix: str, width: float) -> str:
    """A bar's label: the function and its share where both fit, the function alone, or a cut name."""
    room = int((width - 6) / CHAR_WIDTH)
    for label in (name + suffix, name):
        if len(label) <= room:
            return label
    return name[: room - 1] + "…" if room >= 4 else ""
