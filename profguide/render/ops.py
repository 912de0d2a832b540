"""``profguide explain TRACE --ops``: the op view (``profguide.analysis.ops``) as text and as Markdown."""

from collections.abc import Sequence

from profguide.analysis.footprint import FOOTPRINTS_SHOWN, FootprintRow
from profguide.analysis.op_view import OpsView
from profguide.analysis.ops import MemoryPeak, ModuleRow, OpRow, RegionRow
from profguide.render.roofline import (
    KERNELS_SHOWN,
    ROOFLINE_HEADINGS,
    ROOFLINE_SHOWN,
    kernels_heading,
    roofline_cells,
    roofline_heading,
    roofline_lines,
)
from profguide.text import cell, code_cell, count_of, cut, format_duration, format_size, markdown_table
from profguide.trace.loader import STDIN

OPS_SHOWN = 30  # the text's ops table; --json has every row
SHAPES_WIDTH = 40  # characters of an op's input shapes the text shows


def shown_ops(view: OpsView, limit: int = OPS_SHOWN) -> list[OpRow]:
    """The ops the text lists: the most device time first on a GPU trace, the most self CPU time on a CPU one."""
    if view["on_gpu"]:
        return view["ops"][:limit]
    return sorted(view["ops"], key=lambda row: -row["self_cpu_us"])[:limit]


def ops_heading(view: OpsView, shown: int) -> str:
    order = "device time" if view["on_gpu"] else "self CPU time"
    of = f"the top {shown} of {len(view['ops']):,}" if shown < len(view["ops"]) else f"all {len(view['ops']):,}"
    return f"Ops by name and input shapes, by {order} ({of}; --json lists every one):"


def op_cells(row: OpRow, on_gpu: bool) -> tuple[str, ...]:
    times = [row["device_us"], row["self_device_us"]] if on_gpu else []
    return (*(format_duration(us) for us in [*times, row["cpu_us"], row["self_cpu_us"]]), f"{row['calls']:,}")


def op_headings(on_gpu: bool) -> tuple[str, ...]:
    return (*(("Device", "Self device") if on_gpu else ()), "CPU total", "Self CPU", "Calls")


def aligned(headings: Sequence[str], rows: Sequence[Sequence[str]]) -> list[str]:
    """Right-aligned number columns, then the last (a name), left-aligned; the first line the headings."""
    widths = [max(len(text) for text in column) for column in zip(*[headings, *rows], strict=True)]
    return ["  ".join([*(text.rjust(width) for text, width in zip(line[:-1], widths, strict=False)), line[-1]])
            for line in [headings, *rows]]


def op_lines(view: OpsView) -> list[str]:
    ops = shown_ops(view)
    if not ops:
        return ["No ops in this trace (no cpu_op events)."]
    rows = [(*op_cells(row, view["on_gpu"]), f"{cut(row['name'], 50)}  {cut(row['shapes'], SHAPES_WIDTH)}".rstrip())
            for row in ops]
    return [ops_heading(view, len(ops)), *("  " + line for line in aligned((*op_headings(view["on_gpu"]),
                                                                             "Op  Input shapes"), rows))]


def module_lines(modules: list[ModuleRow]) -> list[str]:
    if not modules:
        return ["No nn.Module events (profile with with_stack=True to see modules)."]
    rows = [(format_duration(row["cpu_us"]), format_duration(row["device_us"]), f"{row['kernels']:,}",
             f"{row['calls']:,}", cut(row["name"])) for row in modules]
    return ["Modules by class (every instance of a class in one row):",
            *("  " + line for line in aligned(("CPU total", "Device", "Kernels", "Calls", "Module"), rows))]


REGIONS_HEADING = "Regions (record_function), with the backward of the ops inside them:"
DEVICE_COLUMNS = (1, 2, 5, 6)  # of the regions' columns: Device, Kernels, Backward device, Backward kernels


def region_headings(on_gpu: bool) -> tuple[str, ...]:
    headings = ("CPU", "Device", "Kernels", "Calls", "Backward CPU", "Backward device", "Backward kernels")
    return headings if on_gpu else tuple(text for at, text in enumerate(headings) if at not in DEVICE_COLUMNS)


def region_cells(row: RegionRow, on_gpu: bool) -> tuple[str, ...]:
    """A region's columns; without GPU work in the trace, its CPU columns alone."""
    cells = (format_duration(row["cpu_us"]), format_duration(row["device_us"]), f"{row['kernels']:,}",
             f"{row['calls']:,}", format_duration(row["backward_cpu_us"]), format_duration(row["backward_device_us"]),
             f"{row['backward_kernels']:,}")
    return cells if on_gpu else tuple(text for at, text in enumerate(cells) if at not in DEVICE_COLUMNS)


def region_lines(view: OpsView) -> list[str]:
    """The regions as aligned text; nothing when there are none."""
    if not view["regions"]:
        return []
    rows = [(*region_cells(row, view["on_gpu"]), cut(row["name"])) for row in view["regions"]]
    return [REGIONS_HEADING,
            *("  " + line for line in aligned((*region_headings(view["on_gpu"]), "Region"), rows))]


def peak_words(peak: MemoryPeak, origin: float) -> str:
    inside = f"in {peak['op']}" + (f" {peak['shapes']}" if peak["shapes"] else "") if peak["op"] else "in no op"
    return (f"{peak['device']}: {format_size(peak['peak_bytes'])} allocated at "
            f"+{format_duration(peak['at_us'] - origin)}, {cut(inside, 100)}")


def memory_lines(view: OpsView) -> list[str]:
    if view["memory_peak"] is None:
        return ["No memory events (profile with profile_memory=True to see the memory peak)."]
    return ["Memory peak (times from the trace's first event, as Perfetto shows them):",
            *(f"  {peak_words(peak, view['trace_start_us'])}" for peak in view["memory_peak"])]


FOOTPRINT_HEADING = "Kernels: resource footprint and occupancy"
FOOTPRINT_HEADINGS = ("Device", "Launches", "Regs", "Shared", "Threads", "Blocks/SM", "Warps/SM", "Theor.",
                      "Trace", "Limited by")


def percent(fraction: float | None) -> str:
    return "–" if fraction is None else f"{fraction:.0%}"


def limits_cell(row: FootprintRow) -> str:
    """Our limiting factors, and the trace's own where its occupancy object names others."""
    ours = ", ".join(row["limited_by"]) or "–"
    theirs = ", ".join(row["trace_limited_by"])
    return ours if not theirs or row["trace_limited_by"] == row["limited_by"] else f"{ours} (trace: {theirs})"


def footprint_cells(row: FootprintRow) -> tuple[str, ...]:
    blocks, warps = (("–" if value is None else f"{value:,}") for value in (row["blocks_per_sm"], row["warps_per_sm"]))
    return (format_duration(row["device_us"]), f"{row['launches']:,}", f"{row['registers']:,}",
            format_size(row["shared_bytes"]), f"{row['threads']:,}", blocks, warps, percent(row["theoretical"]),
            percent(row["recorded"]), limits_cell(row))


# A page's column is narrower than a terminal: blocks and warps per SM share a cell, and so do the two occupancies.
NARROW_FOOTPRINT_HEADINGS = ("Device", "Launches", "Regs", "Shared", "Threads", "Blocks (warps)/SM",
                             "Occupancy (trace)", "Limited by")


def narrow_footprint_cells(row: FootprintRow) -> tuple[str, ...]:
    """``footprint_cells`` with blocks and warps in one cell, the theoretical and recorded occupancy in another."""
    device, launches, registers, shared, threads, blocks, warps, theoretical, recorded, limits = footprint_cells(row)
    return (device, launches, registers, shared, threads, f"{blocks} ({warps})", f"{theoretical} ({recorded})",
            limits)


def footprint_notes(rows: Sequence[FootprintRow]) -> list[tuple[int, str]]:
    """The notes of each shown kernel that has some or has other footprints, with its row's number."""
    lines = []
    for number, row in enumerate(rows, 1):
        others = [f"{count_of(row['other_footprints'], 'other footprint')} (the row shows the one with the most "
                  "time)"] if row["other_footprints"] else []
        if notes := row["notes"] + others:
            lines.append((number, "; ".join(notes)))
    return lines


def roofline_text(view: OpsView) -> list[str]:
    """The roofline section as aligned text: explain's lines, then the ops with a formula; nothing on a CPU trace."""
    rows = view["roofline_ops"][:ROOFLINE_SHOWN]
    if view["roofline"] is None or not rows:
        return []
    kernels = view["roofline_kernels"][:KERNELS_SHOWN]
    by_kernel = [kernels_heading(view["roofline_kernels"], len(kernels)),
                 *("  " + line for line in aligned((*ROOFLINE_HEADINGS[:-1], "Kernel  Type"),
                                                   [roofline_cells(row) for row in kernels]))] if kernels else []
    return [*roofline_lines(view["roofline"]), roofline_heading(view["roofline"], view["roofline_ops"], len(rows)),
            *("  " + line for line in aligned(ROOFLINE_HEADINGS, [roofline_cells(row) for row in rows])), *by_kernel]


def roofline_markdown(view: OpsView) -> list[str]:
    rows = view["roofline_ops"][:ROOFLINE_SHOWN]
    if view["roofline"] is None or not rows:
        return []
    table = [(code_cell(row["name"]), cell(row["shapes"]), cell(row["dtype"]), *roofline_cells(row)[:-1])
             for row in rows]
    kernels = [(code_cell(row["name"]), cell(row["dtype"]), *roofline_cells(row)[:-1])
               for row in view["roofline_kernels"][:KERNELS_SHOWN]]
    by_kernel = [kernels_heading(view["roofline_kernels"], len(kernels)), "",
                 markdown_table(("Kernel", "Type", *ROOFLINE_HEADINGS[:-1]), kernels, "ll" + "r" * 6), ""] \
        if kernels else []
    return [*(f"- {cell(line)}" for line in roofline_lines(view["roofline"])), "",
            roofline_heading(view["roofline"], view["roofline_ops"], len(rows)), "",
            markdown_table(("Op", "Input shapes", "Type", *ROOFLINE_HEADINGS[:-1]), table, "lll" + "r" * 6), "",
            *by_kernel]


def footprint_intro(view: OpsView, narrow: bool = False) -> str:
    """What the section says above its table (``narrow``: the Markdown one, ``NARROW_FOOTPRINT_HEADINGS``), or
    instead of it when there are no rows."""
    kernels = view["kernels"]
    if not kernels:
        return (f"{FOOTPRINT_HEADING}: not read from standard input (name the file to see them)."
                if view["file"] == STDIN else f"{FOOTPRINT_HEADING}: none recorded in this trace.")
    of = f"the top {FOOTPRINTS_SHOWN} of {len(kernels):,}" if len(kernels) > FOOTPRINTS_SHOWN else \
        f"all {len(kernels):,}"
    columns = ("Occupancy: the theoretical occupancy, the trace's estimate in brackets" if narrow else
               "Theor.: the theoretical occupancy, Trace: the trace's estimate")
    return f"{FOOTPRINT_HEADING} ({of} kernels by time, the whole trace; {columns}):"


def footprint_lines(view: OpsView) -> list[str]:
    rows = view["kernels"][:FOOTPRINTS_SHOWN]
    if not rows:
        return [footprint_intro(view)]
    table = [(*footprint_cells(row), f"{number}. {cut(row['name'], 60)}")
             for number, row in enumerate(rows, 1)]
    return [footprint_intro(view), *("  " + line for line in aligned((*FOOTPRINT_HEADINGS, "Kernel"), table)),
            *(f"  {number}. {notes}" for number, notes in footprint_notes(rows))]


def to_text(view: OpsView) -> str:
    """The op view as aligned text: ops, modules, regions (when there are any), memory peak."""
    return "\n".join([f"Op view of {view['file']}", *op_lines(view), *roofline_text(view), *footprint_lines(view),
                      *module_lines(view["modules"]), *region_lines(view), *memory_lines(view)]) + "\n"


def to_markdown(view: OpsView) -> str:
    """The op view as Markdown: a table of ops, one of modules, one of regions (when there are any), the memory
    peak in a list."""
    lines = [f"**Op view of {cell(view['file'])}**", ""]
    ops = shown_ops(view)
    if ops:
        rows = [(code_cell(row["name"]), cell(row["shapes"]), *op_cells(row, view["on_gpu"])) for row in ops]
        lines += [ops_heading(view, len(ops)), "",
                  markdown_table(("Op", "Input shapes", *op_headings(view["on_gpu"])), rows,
                                 "ll" + "r" * len(op_headings(view["on_gpu"])))]
    else:
        lines += op_lines(view) + [""]
    lines += roofline_markdown(view)
    lines += footprint_markdown(view)
    if view["modules"]:
        rows = [(code_cell(row["name"]), format_duration(row["cpu_us"]), format_duration(row["device_us"]),
                 f"{row['calls']:,}", f"{row['kernels']:,}") for row in view["modules"]]
        lines += ["Modules by class:", "",
                  markdown_table(("Module", "CPU total", "Device", "Calls", "Kernels"), rows, "lrrrr")]
    else:
        lines += module_lines(view["modules"]) + [""]
    if view["regions"]:
        headings = region_headings(view["on_gpu"])
        rows = [(code_cell(row["name"]), *region_cells(row, view["on_gpu"])) for row in view["regions"]]
        lines += [REGIONS_HEADING, "", markdown_table(("Region", *headings), rows, "l" + "r" * len(headings))]
    memory = memory_lines(view)
    lines += memory[:1] + ([""] + [f"- {cell(line.strip())}" for line in memory[1:]] if len(memory) > 1 else [])
    return "\n".join(lines) + "\n"


def footprint_markdown(view: OpsView) -> list[str]:
    """The kernels' footprint section as Markdown: its table and its notes, numbered as the rows."""
    rows = view["kernels"][:FOOTPRINTS_SHOWN]
    if not rows:
        return [footprint_intro(view), ""]
    table = [(f"{number}. {code_cell(row['name'])}", *narrow_footprint_cells(row))
             for number, row in enumerate(rows, 1)]
    notes = footprint_notes(rows)
    headings = ("Kernel", *NARROW_FOOTPRINT_HEADINGS)
    return [footprint_intro(view, narrow=True), "", markdown_table(headings, table, "l" + "r" * 7 + "l"),
            *([f"- Kernel {number}: {cell(text)}" for number, text in notes] + [""] if notes else [])]
