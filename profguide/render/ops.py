"""``profguide explain TRACE --ops``: the op view (``profguide.analysis.ops``) as text and as Markdown."""

from collections.abc import Sequence

from profguide.analysis.ops import MemoryPeak, ModuleRow, OpRow, OpsView, RegionRow
from profguide.text import cell, code_cell, cut, format_duration, format_size, markdown_table

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


def to_text(view: OpsView) -> str:
    """The op view as aligned text: ops, modules, regions (when there are any), memory peak."""
    return "\n".join([f"Op view of {view['file']}", *op_lines(view), *module_lines(view["modules"]),
                      *region_lines(view), *memory_lines(view)]) + "\n"


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
