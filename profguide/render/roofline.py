"""The roofline (``profguide.analysis.roofline``) in words: explain's lines and the op view's table."""

from collections.abc import Sequence

from profguide.analysis.summary import Roofline, RooflineRow
from profguide.render.facts import percent, share
from profguide.text import count_of, cut, format_duration, three_figures

ROOFLINE_SHOWN = 20  # the op view's roofline rows; --json has every one


def rate(row: RooflineRow) -> str:
    """What the op achieved in the unit of its roof: TFLOP/s for compute-bound work, TB/s for memory-bound."""
    if row["bound"] == "memory" or (row["bound"] is None and not row["flops"]):
        return "–" if row["tb_per_s"] is None else f"{three_figures(row['tb_per_s'])} TB/s"
    return "–" if row["tflops"] is None else f"{three_figures(row['tflops'])} TFLOP/s"


def of_roof(row: RooflineRow) -> str:
    """'4.2% of its memory roof', or why there is none."""
    if row["fraction"] is None:
        return "no roof (the device is not in profguide's table)"
    return f"{percent(100 * row['fraction'])} of its {row['bound']} roof"


def op_label(row: RooflineRow, width: int = 40) -> str:
    """An op's (or a kernel's) name, shapes and type, cut to fit a line."""
    return f"{cut(row['name'], 60)} {cut(row['shapes'], width)} {cut(row['dtype'], 20)}".replace("  ", " ").strip()


def roofline_lines(roofline: Roofline | None) -> list[str]:
    """explain's lines: what share of the GPU time the formulas cover and how near its roof, the ops furthest
    below theirs, and the GPU work with no formula."""
    if roofline is None or not roofline["device_us"]:
        return []
    covered = share(roofline["modelled_us"], roofline["device_us"])
    if not roofline["modelled_us"]:
        lines = ["Roofline: no op with a formula launched GPU work here" + (
            "." if roofline["shapes_recorded"] else
            ": the trace records no input shapes, which the formulas need (profile with record_shapes=True).")]
    elif roofline["peaks_model"] is None:
        lines = [f"Roofline: no peaks for {roofline['device'] or 'this GPU (deviceProperties names none)'} in "
                 f"profguide's table, so no roof; ops with a formula hold {covered} of the GPU time "
                 "(explain --ops gives their TFLOP/s and TB/s)."]
    else:
        lines = [f"Roofline against the {roofline['peaks_model']}'s datasheet: ops with a formula hold {covered} "
                 f"of the GPU time, {share(roofline['near_roof_us'], roofline['modelled_us'])} of theirs at half "
                 "their roof or more."]
    for row in roofline["furthest"][:3]:
        lines.append(f"Below its roof: {op_label(row)}: {rate(row)}, {of_roof(row)}; "
                     f"{format_duration(row['lost_us'] or 0.0)} lost over {count_of(row['calls'], 'call')}.")
    unmodelled = [row for row in roofline["unmodelled"] if row["device_us"] > 0]
    if unmodelled:
        names = ", ".join(f"{cut(row['name'], 50)} ({format_duration(row['device_us'])})" for row in unmodelled[:3])
        lines.append(f"No formula for {share(roofline['device_us'] - roofline['modelled_us'], roofline['device_us'])}"
                     f" of the GPU time; most under {names}.")
    return lines


ROOFLINE_HEADINGS = ("Device", "TFLOP/s", "TB/s", "FLOP/B", "Of roof", "Bound", "Op  Input shapes  Type")


def roofline_cells(row: RooflineRow) -> tuple[str, ...]:
    def number(value: float | None) -> str:
        return "–" if value is None else three_figures(value)

    fraction = "–" if row["fraction"] is None else percent(100 * row["fraction"])
    return (format_duration(row["device_us"]), number(row["tflops"]), number(row["tb_per_s"]),
            number(row["intensity"]), fraction, row["bound"] or "–", op_label(row))


KERNELS_SHOWN = 10  # the op view's rows by kernel


def kernels_heading(rows: Sequence[RooflineRow], shown: int) -> str:
    of = f"the top {shown} of {len(rows):,}" if shown < len(rows) else f"all {len(rows):,}"
    return f"The same by kernel, over the calls that launched it and no other kernel ({of}):"


def roofline_heading(roofline: Roofline | None, rows: Sequence[RooflineRow], shown: int) -> str:
    against = (f"against the {roofline['peaks_model']} ({roofline['tb_per_s']:g} TB/s)"
               if roofline and roofline["peaks_model"] and roofline["tb_per_s"] else "with no roof for this device")
    of = f"the top {shown} of {len(rows):,}" if shown < len(rows) else f"all {len(rows):,}"
    return f"Roofline, {against}: ops with a formula by device time ({of}; --json lists every one):"
