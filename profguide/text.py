"""Words and numbers for people: durations, sizes, counts, and names from traces and paths made short and safe."""

import math
import os
import re
from collections.abc import Iterable, Sequence
from html import escape

# What a name from a trace may not send to a terminal, each replaced by '?': C0 controls and DEL (escape sequences,
# newlines), C1 controls (U+009B is a CSI, U+0085 a newline to some terminals), and the marks that reorder text
# (bidi embeddings, overrides, isolates and marks), with which a name could show as another.
CONTROL = dict.fromkeys([*range(32), 127, *range(0x80, 0xA0), 0x061C, 0x200E, 0x200F, *range(0x202A, 0x202F),
                         *range(0x2066, 0x206A)], "?")


def format_duration(us: float) -> str:
    """A duration in µs as a short human string: 850 ns, 12.3 µs, 4.56 ms, 1.20 s; a negative one in the unit of
    its size, signed (-587 µs)."""
    if us < 0:
        size = format_duration(-us)
        return size if size == "0 ns" else f"-{size}"
    if us < 1:
        return f"{us * 1000:.0f} ns"
    if us < 100:
        return f"{us:.1f} µs"
    if us < 1000:
        return f"{us:.0f} µs"
    if us < 1_000_000:
        return f"{us / 1000:.2f} ms"
    return f"{us / 1_000_000:.2f} s"


# Why a time from a host event to a GPU one (a launch delay, a queueing time) can be below zero.
CLOCKS_DIFFER = "below zero, the GPU op started before its launch call ended: the host's and the GPU's clocks differ"


def clocks_note(*us: float) -> str:
    """`` (below zero, …: the host's and the GPU's clocks differ)`` when one of ``us`` is negative, else ''."""
    return f" ({CLOCKS_DIFFER})" if min(us, default=0) < 0 else ""


def format_tick(us: float) -> str:
    """An axis label: like format_duration, without trailing zeros (500 ms, 1.5 s)."""
    if us == 0:
        return "0"
    number, unit = format_duration(us).split(" ")
    if "." in number:
        number = number.rstrip("0").rstrip(".")
    return f"{number} {unit}"


def three_figures(value: float) -> str:
    """A number to three significant figures, without an exponent: 0.0123, 4.56, 789, 1,234; 0 as "0"."""
    if value == 0 or not math.isfinite(value):
        return f"{value:g}"
    decimals = max(0, 2 - math.floor(math.log10(abs(value))))
    return f"{value:,.{decimals}f}"


def count_of(n: int, noun: str) -> str:
    """'no GPU lanes', '1 kernel', '3 kernels'."""
    if n == 0:
        return f"no {noun}s"
    return f"{n:,} {noun}" + ("" if n == 1 else "s")


def format_size(count: float) -> str:
    """A number of bytes as a short human string: 512 bytes, 32 MiB, 2 GiB; a negative one (more freed than
    allocated) with a minus sign: −8 MiB."""
    if count < 0:
        return "−" + format_size(-count)
    for unit, scale in (("GiB", 1 << 30), ("MiB", 1 << 20), ("KiB", 1 << 10)):
        if count >= scale:
            return f"{round(count / scale, 1):g} {unit}"  # 515 KiB and 514.5 KiB, never 515.0 KiB
    return f"{count} bytes"


def shown(path: str | os.PathLike[str]) -> str:
    """A path as text a terminal can print: bytes of its name that are not UTF-8 become ``\\xNN``."""
    return printable(os.fsencode(path).decode("utf-8", "backslashreplace"))


def printable(name: str) -> str:
    """A name from a trace with control characters (terminal escapes, newlines) and bidi marks replaced by '?'."""
    return name.translate(CONTROL)


def cut(name: str, width: int = 70) -> str:
    """``name`` made printable and cut to ``width`` characters with an ellipsis."""
    name = printable(name)
    return name if len(name) <= width else name[: width - 1] + "…"


def without_groups(text: str, opening: str, closing: str) -> str:
    """``text`` with every balanced ``opening``…``closing`` group removed (nested ones too)."""
    kept: list[str] = []
    depth = 0
    for char in text:
        if char == opening:
            depth += 1
        elif char == closing and depth:
            depth -= 1
        elif not depth:
            kept.append(char)
    return "".join(kept)


def kernel_name(name: str) -> str:
    """A C++ kernel name as a reader wants it: no return type, namespaces, template arguments,
    lambdas or parameter list (``void at::native::elementwise_kernel<128, …>(int, …)`` becomes
    ``elementwise_kernel``). Names without C++ decoration come back unchanged."""
    short = re.sub(r"^void ", "", name.strip())
    short = short.replace("(anonymous namespace)::", "")
    short = without_groups(short, "{", "}")
    short = without_groups(short, "<", ">")
    parts = short.split("(", 1)[0].rstrip(":").split("::")
    # A bare "Kernel" says little: keep the namespace that says whose kernel it is.
    short = "::".join(parts[-2:]) if len(parts) > 1 and len(parts[-1]) <= 8 else parts[-1]
    return short.strip() or name


# The characters Markdown reads inside a table cell, as entities: a pipe ends the cell, a backtick opens code,
# ``*`` and ``_`` emphasis (``ncclDevComm*``, ``__next__``), brackets a link (``[x](javascript:…)``), a backslash
# escapes; a newline would end the row.
CELL_ENTITIES = str.maketrans({"|": "&#124;", "`": "&#96;", "*": "&#42;", "_": "&#95;", "[": "&#91;", "]": "&#93;",
                               "\\": "&#92;", "\n": " ", "\r": " "})
SHORT_CODE = 48  # characters of a code name a table cell shows; a longer one is cut, its full name in a tooltip


# What is left of them in the guide's own Markdown (a claim's words), whose code spans and emphasis stay.
MARKDOWN_CELL_ENTITIES = str.maketrans({"|": "&#124;", "\n": " ", "\r": " "})


def cell(text: object, markdown: bool = False) -> str:
    """Text from a trace or a run as Markdown shows it literally, in a table cell or a sentence: HTML escaped,
    Markdown's own characters as entities, on one line. With ``markdown``, text in the guide's own Markdown:
    its code spans and emphasis kept, only what would break the cell (pipes, newlines, HTML) escaped."""
    return escape(str(text)).translate(MARKDOWN_CELL_ENTITIES if markdown else CELL_ENTITIES)


def code(name: object) -> str:
    """``name`` as inline HTML code that Markdown leaves alone (``cell``)."""
    return f"<code>{cell(name)}</code>"


def code_cell(name: object, width: int = SHORT_CODE) -> str:
    """A code name (a kernel's, an op's) for a table cell: as it is when short; else cut to ``width``
    characters, the full name in a tooltip, so that a long C++ name does not widen the table past its page."""
    name = printable(str(name))
    if len(name) <= width:
        return code(name)
    return f'<span title="{cell(name)}">{code(cut(name, width))}</span>'


def markdown_table(headings: Sequence[str], rows: Iterable[Sequence[object]], align: str) -> str:
    """A Markdown table: ``headings`` and each row's cells are Markdown already (data made safe with ``cell``
    or ``code``); ``align`` holds one letter a column, ``l`` or ``r``."""
    rule = "|" + "|".join("---:" if side == "r" else "---" for side in align) + "|"
    lines = ["| " + " | ".join(headings) + " |", rule]
    lines += ["| " + " | ".join(str(value) for value in row) + " |" for row in rows]
    return "\n".join(lines) + "\n"
