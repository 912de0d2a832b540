"""``profguide diff``: what changed from one trace (or folder of rank traces) to another, in words and tables.

The facts come from ``profguide.analysis.diff``; this module only puts them
into text for a terminal or Markdown for the site.
"""

from pathlib import Path
from typing import Literal

from profguide.analysis.diff import (
    Change,
    JobDiff,
    Quantity,
    RankDiff,
    RooflineChange,
    RuleChanges,
    SideFacts,
    TraceDiff,
    signed_pct,
)
from profguide.render.explain import IDLE_LABELS
from profguide.render.facts import count_words, percent
from profguide.text import cell, code_cell, count_of, cut, format_duration, format_size, markdown_table, shown

CHANGES_SHOWN = 10  # kernels listed, largest change first (--json has every one)


def duration(value: float | None) -> str:
    return "n/a" if value is None else format_duration(value)


def change_words(row: Quantity, unit: str = "duration") -> str:
    """' (×0.96, −4%)' for a change, ' (+1.5 points)' for one of a share; '' where it cannot be given."""
    if unit == "pct":
        return f" ({row['change']:+.1f} points)".replace("-", "−") if row["change"] else ""
    if row["change_pct"] is None or row["ratio"] is None:
        return ""
    return f" (×{row['ratio']:.2f}, {signed_pct(row['change_pct'])})"


def side_line(label: str, side: SideFacts) -> str:
    device = cut(side["device"]) if side["device"] else "device not named"
    steps = count_of(side["steps"], "ProfilerStep") if side["steps"] else "no ProfilerSteps"
    return f"{label} {shown(side_name(side['file']))} ({device}, {steps}): {side['verdict']}."


def side_name(file: str) -> str:
    """A side's file by its name, with its folder when the name alone says little (the guide's recordings are
    all trace.json.gz)."""
    path = Path(file)
    return f"{path.parent.name}/{path.name}" if path.parent.name and path.name.startswith("trace.") else path.name


def per_words(found: TraceDiff) -> str:
    return "per step" if found["per"] == "step" else "in the window"


def share_parts(found: TraceDiff, shares: dict[str, Quantity], times: dict[str, Quantity],
                labels: dict[str, str]) -> list[str]:
    """'loading data 63.0% → 6.8% (37.91 ms → 1.63 ms)' for each key either side spent time in."""
    return [f"{labels.get(key, key)} {percent(row['before'])} → {percent(row['after'])} "
            f"({duration(times[key]['before'])} → {duration(times[key]['after'])})"
            for key, row in sorted(shares.items(), key=lambda item: -abs(item[1]["change"] or 0.0))
            if row["before"] or row["after"]]


def host_labels(found: TraceDiff) -> dict[str, str]:
    return {key: meaning.split(" (")[0] for key, meaning in found["host_meaning"].items()}


def change_line(row: Change) -> str:
    shapes = f" {cut(row['shapes'], 40)}" if row["shapes"] else ""
    return (f"  {row['status']:<8} {count_words(row['before_count']):>8} → {count_words(row['after_count']):<8} "
            f"{format_duration(row['before_us']):>10} → {format_duration(row['after_us']):<10} "
            f"{cut(row['name'], 80)}{shapes}")


def counted(rows: list[Change]) -> str:
    """'2 added, 1 removed, 3 changed, 40 the same'."""
    by_status = {status: sum(row["status"] == status for row in rows) for status in ("added", "removed", "changed")}
    return (f"{by_status['added']:,} added, {by_status['removed']:,} removed, {by_status['changed']:,} changed, "
            f"{len(rows) - sum(by_status.values()):,} the same")


def kernel_summary(found: TraceDiff) -> str:
    matched = "by role (kernel family): few kernel names are shared" if found["kernels_matched_by"] == "role" \
        else "by name"
    return f"Kernels {per_words(found)} (count, time), matched {matched}: {counted(found['kernels'])}."


def op_summary(found: TraceDiff) -> str:
    return f"Ops {per_words(found)} by name and input shapes (calls, self CPU time): {counted(found['ops'])}."


def memory_parts(found: TraceDiff) -> list[str]:
    return [f"{device} {size(row['before'])} → {size(row['after'])}"
            for device, row in found["memory_peak_bytes"].items()]


def size(value: float | None) -> str:
    return "not recorded" if value is None else format_size(value)


def to_text(found: TraceDiff) -> str:
    lines = [side_line("Before:", found["before"]), side_line("After: ", found["after"]), found["sentence"]]
    step = found["step_us"]
    lines.append(f"Step time ({found['after']['step_is']}): {duration(step['before'])} → {duration(step['after'])}"
                 f"{change_words(step)}.")
    busy = found["gpu_busy_pct"]
    if busy["before"] is not None or busy["after"] is not None:
        lines.append(f"GPU busy: {percent(busy['before'])} → {percent(busy['after'])} of the window "
                     f"({duration(found['gpu_busy_us']['before'])} → {duration(found['gpu_busy_us']['after'])} "
                     f"{per_words(found)}).")
    idle = share_parts(found, found["idle_pct"], found["idle_us"], IDLE_LABELS)
    if idle:
        lines.append(f"GPU idle by cause (share of the window, time {per_words(found)}): " + "; ".join(idle) + ".")
    host = share_parts(found, found["host_pct"], found["host_us"], host_labels(found))
    if host:
        lines.append(f"Host activities (share of the window, time {per_words(found)}): " + "; ".join(host) + ".")
    launches = found["launches"]
    if launches["before"] or launches["after"]:
        lines.append(f"Kernel launches {per_words(found)}: {count_words(launches['before'] or 0.0)} → "
                     f"{count_words(launches['after'] or 0.0)}.")
    if found["memory_peak_bytes"]:
        lines.append("Memory peak: " + "; ".join(memory_parts(found)) + ".")
    lines += rule_lines(found["rules"])
    if found["kernels"]:
        lines.append(kernel_summary(found))
        lines += [change_line(row) for row in found["kernels"][:CHANGES_SHOWN] if row["status"] != "same"]
    if found["ops"]:
        lines.append(op_summary(found))
        lines += [change_line(row) for row in found["ops"][:CHANGES_SHOWN] if row["status"] != "same"]
    lines += roofline_change_lines(found["roofline"])
    return "\n".join(lines) + "\n"


def roof_share(value: float | None) -> str:
    return "no roof" if value is None else percent(100 * value)


ROOFLINE_CHANGES = "Against the roofline (ops with a formula on both sides, most change in time per call first):"


def kernel_words(row: RooflineChange) -> str:
    """What changed in the op's main kernel, as its name says."""
    if row["kernels"][0] == row["kernels"][1]:
        return "the same kernel"
    return ", ".join(row["kernel_changes"]) or "another name, saying nothing else different"


def changed_on_the_roofline(rows: list[RooflineChange]) -> list[RooflineChange]:
    """The ops with a formula whose time per call changed, the most first (``CHANGES_SHOWN``)."""
    return [row for row in rows if row["device_us"]["change"]][:CHANGES_SHOWN]


def roofline_change_lines(rows: list[RooflineChange]) -> list[str]:
    """The ops with a formula whose time per call changed most: their share of the roof, and their kernel."""
    shown = changed_on_the_roofline(rows)
    if not shown:
        return []
    lines = [ROOFLINE_CHANGES]
    for row in shown:
        kernel = f"; kernel: {', '.join(row['kernel_changes'])}" if row["kernel_changes"] else ""
        lines.append(f"  {row['name']} {cut(row['shapes'], 40)} {cut(row['dtype'], 20)}: "
                     f"{duration(row['device_us']['before'])} → {duration(row['device_us']['after'])} a call, "
                     f"{roof_share(row['fraction']['before'])} → {roof_share(row['fraction']['after'])} of its roof"
                     f"{kernel}.")
    return lines


RULE_CHANGES: dict[Literal["gone", "new", "kept"], str] = {
    "gone": "Rules no longer firing", "new": "Rules firing now", "kept": "Rules firing on both"}


def rule_lines(rules: RuleChanges) -> list[str]:
    """The rules that stopped firing, started firing and still fire, a line each (none for an empty list)."""
    return [f"{heading}: {', '.join(rules[key])}." for key, heading in RULE_CHANGES.items() if rules[key]]


def quantity_row(what: str, row: Quantity, as_pct: bool = False) -> tuple[str, ...]:
    shown_as = percent if as_pct else duration
    return (what, shown_as(row["before"]), shown_as(row["after"]),
            change_words(row, "pct" if as_pct else "duration").strip(" ()") or "–")


def to_markdown(found: TraceDiff) -> str:
    """The diff as a Markdown fragment: the sentence, the facts side by side, the kernels that changed most."""
    rows = [quantity_row(f"step time ({cell(found['after']['step_is'])})", found["step_us"])]
    rows.append(("verdict", cell(found["before"]["verdict"]), cell(found["after"]["verdict"]),
                 "changed" if found["verdict_changed"] else "–"))
    if found["gpu_busy_pct"]["before"] is not None or found["gpu_busy_pct"]["after"] is not None:
        rows.append(quantity_row("GPU busy (share of the window)", found["gpu_busy_pct"], as_pct=True))
    rows += [quantity_row(f"GPU idle: {cell(IDLE_LABELS.get(key, key))}", row, as_pct=True)
             for key, row in found["idle_pct"].items() if row["before"] or row["after"]]
    labels = host_labels(found)
    rows += [quantity_row(f"host: {cell(labels.get(key, key))}", row, as_pct=True)
             for key, row in found["host_pct"].items() if row["before"] or row["after"]]
    rows += [(f"memory peak: {cell(device)}", size(row["before"]), size(row["after"]), "–")
             for device, row in found["memory_peak_bytes"].items()]
    parts = [cell(found["sentence"], markdown=True), "",
             markdown_table(("", "before", "after", "change"), rows, "lrrr")]
    parts += [line for text in rule_lines(found["rules"]) for line in ("", cell(text))]
    changed = [row for row in found["kernels"][:CHANGES_SHOWN] if row["status"] != "same"]
    if changed:
        parts += ["", cell(kernel_summary(found)), "", markdown_table(
            ("kernel family" if found["kernels_matched_by"] == "role" else "kernel", "status", "count before", "after",
             "time before", "after"),
            [(code_cell(row["name"]), row["status"], count_words(row["before_count"]), count_words(row["after_count"]),
              format_duration(row["before_us"]), format_duration(row["after_us"])) for row in changed], "llrrrr")]
    ops = [row for row in found["ops"][:CHANGES_SHOWN] if row["status"] != "same"]
    if ops:
        parts += ["", cell(op_summary(found)), "", markdown_table(
            ("op", "input shapes", "status", "calls before", "after", "self CPU before", "after"),
            [(code_cell(row["name"]), cell(row["shapes"] or "–"), row["status"], count_words(row["before_count"]),
              count_words(row["after_count"]), format_duration(row["before_us"]), format_duration(row["after_us"]))
             for row in ops], "lllrrrr")]
    roofline = changed_on_the_roofline(found["roofline"])
    if roofline:
        parts += ["", ROOFLINE_CHANGES, "", markdown_table(
            ("op", "input shapes", "type", "a call before", "after", "of its roof before", "after", "kernel"),
            [(code_cell(row["name"]), cell(row["shapes"]), cell(row["dtype"]), duration(row["device_us"]["before"]),
              duration(row["device_us"]["after"]), roof_share(row["fraction"]["before"]),
              roof_share(row["fraction"]["after"]), cell(kernel_words(row)))
             for row in roofline], "lllrrrrl")]
    return "\n".join(parts) + "\n"


def rank_cells(row: RankDiff) -> tuple[str, ...]:
    return ("?" if row["rank"] is None else str(row["rank"]),
            f"{row['before_verdict'] or '–'} → {row['after_verdict'] or '–'}",
            f"{duration(row['step_us']['before'])} → {duration(row['step_us']['after'])}",
            f"{duration(row['busy_us']['before'])} → {duration(row['busy_us']['after'])}",
            f"{duration(row['exposed_us']['before'])} → {duration(row['exposed_us']['after'])}",
            f"{duration(row['wait_us']['before'])} → {duration(row['wait_us']['after'])}")


RANK_HEADINGS = ("rank", "verdict", "median step", "busy", "exposed communication", "wait for the straggler")


def job_to_text(found: JobDiff) -> str:
    lines = [f"Before: {shown(found['before_folder'])} ({found['before_verdict']}).",
             f"After:  {shown(found['after_folder'])} ({found['after_verdict']}).", found["sentence"]]
    lines += ["  " + " | ".join(cells) for cells in [RANK_HEADINGS, *map(rank_cells, found["ranks"])]]
    return "\n".join(lines) + "\n"


def job_to_markdown(found: JobDiff) -> str:
    rows = [tuple(cell(text) for text in rank_cells(row)) for row in found["ranks"]]
    return cell(found["sentence"], markdown=True) + "\n\n" + markdown_table(RANK_HEADINGS, rows, "llrrrr") + "\n"
