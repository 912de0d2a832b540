"""SVG primitives every figure shares: the palette, the theme, the page geometry, axes, legends, labels.

Every figure follows the page's colour scheme when it sits inline in a
Material page (its text, rules and lane bands use Material's colour
variables, with light fallbacks for a standalone file), uses the Okabe–Ito
palette for what it draws (distinguishable with the common colour-vision
deficiencies), escapes every string that comes from a trace, and gives the
same bytes for the same input.
"""

from collections.abc import Iterable
from dataclasses import dataclass
from xml.sax.saxutils import escape

import numpy as np

from profguide.text import CONTROL, format_tick, printable

# Each kind: (fill, text colour on that fill, legend label); the text keeps WCAG's 4.5:1 contrast on its fill.
STYLE = {
    "annotation": ("#CC79A7", "#000000", "record_function region"),
    "cpu_op": ("#0072B2", "#FFFFFF", "CPU op (aten::…)"),
    "runtime": ("#E69F00", "#000000", "CUDA runtime call"),
    "driver": ("#D55E00", "#000000", "CUDA driver call"),
    "python": ("#999999", "#000000", "Python function"),
    "kernel": ("#009E73", "#000000", "GPU kernel"),
    "memcpy": ("#F0E442", "#000000", "GPU memcpy"),
    "memset": ("#56B4E9", "#000000", "GPU memset"),
}


IDLE_STYLE = {
    "busy": ("#009E73", "GPU busy"),
    "host": ("#E69F00", "idle: waiting for a launch"),
    "sync": ("#D55E00", "idle: host in a sync"),
    "queued": ("#56B4E9", "idle: next op queued"),
    "other": ("#999999", "idle: unexplained"),
}
# A step's window by what the GPU did: the same green for computing, blues for communication.
COMMUNICATION_STYLE = {
    "compute_only_us": ("#009E73", "computation alone"),
    "overlapped_us": ("#56B4E9", "communication hidden behind computation"),
    "exposed_us": ("#0072B2", "communication exposed"),
    "neither_us": ("#DDDDDD", "neither: the GPU idle"),
}


WIDTH = 800
LABEL_WIDTH = 150
RIGHT_MARGIN = 16
ROW_HEIGHT = 20
ROW_GAP = 2
LANE_GAP = 12
LEGEND_ROW = 20
BRACKET_ROW = 26
AXIS_HEIGHT = 34
FONT_SIZE = 13  # 800 px wide in a ~690 px column: still 11 px on the page
CHAR_WIDTH = 7.6  # average advance of the 13 px sans-serif face, for fitting labels
THEME = (
    "<style>"
    ".pg-fig{--pg-ink:var(--md-default-fg-color,#1f1f24);--pg-soft:var(--md-default-fg-color--light,#5d5d68);"
    "--pg-band:var(--md-default-fg-color--lightest,#00000010);--pg-bg:var(--md-default-bg-color,#ffffff)}"
    ".pg-fig .pg-bg{fill:var(--pg-bg)}.pg-fig .pg-band{fill:var(--pg-band)}"
    ".pg-fig .pg-ink{fill:var(--pg-ink)}.pg-fig .pg-soft{fill:var(--pg-soft)}"
    ".pg-fig .pg-rule{stroke:var(--pg-soft);fill:none}.pg-fig .pg-arrow{stroke:var(--pg-soft);fill:none;opacity:.8}"
    ".pg-fig .pg-head{fill:var(--pg-soft)}.pg-fig .pg-mark{stroke:var(--pg-ink);stroke-width:2;fill:none}"
    ".pg-fig .pg-callout{fill:var(--pg-ink)}.pg-fig .pg-callout-text{fill:var(--pg-bg);font-weight:700}"
    "</style>"
)


@dataclass(frozen=True)
class Scale:
    """Maps µs in [start, start + span] onto x in [left, right]."""

    start: float
    span: float
    left: float = LABEL_WIDTH
    right: float = WIDTH - RIGHT_MARGIN

    def x(self, ts: float) -> float:
        return self.left + (ts - self.start) * (self.right - self.left) / max(self.span, 1e-9)


# Replaced by '?' in any text a figure holds: what XML 1.0 forbids (C0 controls, lone surrogates, U+FFFE, U+FFFF)
# and what ``printable`` keeps from a terminal (C1 controls, bidi overrides); a newline stays, a tooltip's line break.
XML_UNSAFE = {**dict.fromkeys([*range(0xD800, 0xE000), 0xFFFE, 0xFFFF], "?"), **CONTROL, ord("\n"): "\n"}


def xml_text(text: str) -> str:
    """``text`` as an SVG element's text or a double-quoted attribute's value: well-formed XML whatever it holds."""
    return escape(text.translate(XML_UNSAFE), {'"': "&quot;"})


def svg_document(width: float, height: float, title: str, body: str) -> str:
    title = xml_text(printable(title))  # one line, as an attribute's value too
    return (
        f'<svg xmlns="http://www.w3.org/2000/svg" class="pg-fig" viewBox="0 0 {width} {height}" '
        f'width="{width}" height="{height}" role="img" aria-label="{title}" '
        f'font-family="system-ui, -apple-system, Segoe UI, Roboto, sans-serif" font-size="{FONT_SIZE}">'
        f"<title>{title}</title>{THEME}"
        f'<rect class="pg-bg" width="{width}" height="{height}" rx="6"/>' + body + "</svg>\n"
    )


def fit_label(name: str, width: float) -> str:
    """``name`` cut to fit ``width`` pixels, with an ellipsis; '' if nothing useful fits."""
    room = int((width - 6) / CHAR_WIDTH)
    if room >= len(name):
        return name
    if room < 4:
        return ""
    return name[: room - 1] + "…"


def axis_svg(scale: Scale, top: float) -> str:
    step = nice_tick_step(scale.span)
    parts = [f'<line class="pg-rule" x1="{scale.left}" y1="{top}" x2="{scale.right}" y2="{top}"/>']
    tick = 0.0
    while tick <= scale.span + step * 1e-6:
        x = scale.x(scale.start + tick)
        parts.append(f'<line class="pg-rule" x1="{x:.1f}" y1="{top}" x2="{x:.1f}" y2="{top + 5}"/>')
        parts.append(f'<text class="pg-soft" x="{x:.1f}" y="{top + 18}" text-anchor="middle">'
                     f"{xml_text(format_tick(tick))}</text>")
        tick += step
    return "".join(parts)


def nice_tick_step(span: float, target_ticks: int = 6) -> float:
    """A 1, 2 or 5 × 10^k step giving about ``target_ticks`` ticks over ``span``."""
    raw = max(span, 1e-9) / target_ticks
    magnitude = 10 ** np.floor(np.log10(raw))
    for factor in (1, 2, 5, 10):
        if factor * magnitude >= raw:
            return float(factor * magnitude)
    return float(10 * magnitude)


def legend_svg(items: Iterable[tuple[str, str]], top: float = 8, left: float = LABEL_WIDTH,
               right: float = WIDTH) -> tuple[str, float]:
    """A legend of (colour, label) items, wrapped into rows between ``left`` and ``right``; returns (svg, bottom y)."""
    parts = []
    x, y = left, top
    for fill, label in items:
        item_width = 16 + int(len(label) * CHAR_WIDTH) + 18
        if x + item_width > right and x > left:
            x, y = left, y + LEGEND_ROW
        parts.append(f'<rect x="{x}" y="{y}" width="12" height="12" fill="{fill}"/>')
        parts.append(f'<text class="pg-ink" x="{x + 16}" y="{y + 10}">{xml_text(label)}</text>')
        x += item_width
    return "".join(parts), y + LEGEND_ROW
