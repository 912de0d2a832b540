"""The recordings of the Reference: Around the profiler, one for each tool beside torch.profiler that runs on a
CPU."""

from __future__ import annotations

import json
from typing import TYPE_CHECKING, cast

from profguide.site.measures.communication import LastCollective
from profguide.site.measures.results import ExecutionTraceCovers, StackLines, StackTime, TimerRatio
from profguide.site.measures.timing import StepCount, StepNumber
from profguide.site.recordings import Claim, Recording, exactly

if TYPE_CHECKING:
    from profguide.jsontypes import JSON
    from profguide.site.fragment_run import Maker
    from profguide.site.recordings import Run

PAGE = "reference/around-the-profiler.md"

RECORDINGS = (
    Recording(
        id="around-benchmark",
        module="snippets.reference.around_the_profiler.benchmark",
        function="time_against_profile",
        params={"size": 128, "calls": 200, "threads": 1, "min_run_time": 1.0},
        device="cpu",
        title="A {size}×{size} matmul timed by torch.utils.benchmark, then profiled {calls} times, on {threads} "
              "thread",
        claims=(
            Claim(PAGE, "the profiler's median for `aten::matmul` lies within a tenth of the Timer's median",
                  TimerRatio("aten::matmul"), at_least=0.9, at_most=1.1),
        ),
    ),
    Recording(
        id="around-stacks",
        module="snippets.reference.around_the_profiler.stacks",
        function="profile_stacks",
        params={"tokens": 64, "width": 64, "hidden": 256, "calls": 20},
        device="cpu",
        title="A transformer block's arithmetic as plain functions, {calls} calls, profiled with with_stack=True",
        claims=(
            exactly(PAGE, "Without the option, the same profile writes an empty file", StackLines("plain"), 0),
            Claim(PAGE, "nearly all of the time the stacks hold lies under `block`", StackTime("block"),
                  at_least=0.9, at_most=1),
        ),
    ),
    Recording(
        id="around-execution-trace",
        module="snippets.reference.around_the_profiler.execution_trace",
        function="execution_trace_summary",
        params={"width": 32, "batch": 8},
        device="cpu",
        title="One training step of a two-layer model, profiled with an execution trace observer",
        claims=(
            exactly(PAGE, "it holds a node for every op and every region of the profiler's trace",
                    ExecutionTraceCovers(), 1),
        ),
    ),
    Recording(
        id="around-on-demand",
        module="snippets.reference.around_the_profiler.on_demand",
        function="train_on_request",
        params={"steps": 40, "ask_at": 20, "active": 3},
        device="cpu",
        title="A job of {steps} training steps that asks for a profile at step {ask_at}",
        claims=(
            exactly(PAGE, "The trace holds three steps", StepCount(), 3),
            exactly(PAGE, "the first of them is `ProfilerStep#22`", StepNumber("first"), 22),
        ),
    ),
    Recording(
        id="around-flight-recorder",
        module="snippets.reference.around_the_profiler.flight_recorder",
        function="skip_a_collective",
        params={"collectives": 3},
        device="cpu",
        ranks=2,
        timeout_s=300,
        title="Two ranks on Gloo; rank 0 calls all_reduce once more than rank 1 ({collectives} each before)",
        claims=(
            exactly(PAGE, "Rank 0's buffer ends with collective 4", LastCollective(0), 4),
            exactly(PAGE, "rank 1's ends with collective 3", LastCollective(1), 3),
        ),
    ),
)


# The fragments only this page's recordings give (the generic ones: profguide.site.fragments). Their imports
# are inside them: `profguide record` imports this module on a bare GPU machine, with the standard library only.


def exported_stack_lines(data: Run) -> list[str]:
    from profguide.site.fragment_run import FragmentError, results_of

    lines: list[str]
    (lines,) = results_of(data, "the lines export_stacks wrote", "stacks")
    if not lines:
        raise FragmentError("export_stacks wrote no line in this recording")
    return lines


EXECUTION_TRACE_KEYS = ("id", "name", "ctrl_deps", "inputs", "outputs")  # a node's fields, less its long attrs


def two_levels(value: JSON, indent: str = "") -> str:
    """JSON with a line for each key of ``value`` and of the objects it holds, deeper values on their key's line."""
    if not isinstance(value, dict):
        return json.dumps(value)
    inner = indent + "  "
    lines = [f"{inner}{json.dumps(key)}: {two_levels(item, inner) if not indent else json.dumps(item)}"
             for key, item in value.items()]
    return "{\n" + ",\n".join(lines) + f"\n{indent}}}"


def stack_lines(data: Run, shown: int = 3) -> dict[str, str]:
    """The first lines of the stacks file that end in the snippet's own code, as ``export_stacks`` wrote them."""
    from profguide.render import fragments as render
    from profguide.text import code, count_of

    # This page's fragments are made for its recordings alone (it has no real trace), each of a snippet.
    lines, snippet = exported_stack_lines(data), cast(Recording, data.recording).snippet
    ending = [line for line in lines if line.rpartition(" ")[0].rpartition(";")[2].startswith(snippet)]
    distinct = {line.rpartition(" ")[0] for line in lines}
    sentence = (f"The file holds {count_of(len(lines), 'line')}, one for each op with its stack, "
                f"and {count_of(len(distinct), 'distinct stack')}; above, the first {shown} that end in "
                f"{code(snippet)}.")
    return {"stacks.md": "```text\n" + "\n".join(ending[:shown]) + "\n```\n\n" + sentence + "\n\n"
            + render.provenance_note(data.meta)}


def flame(data: Run) -> dict[str, str]:
    """The flame graph of the stacks ``export_stacks`` wrote."""
    from profguide.analysis import stacks
    from profguide.figures.flame import flame_svg
    from profguide.render import fragments as render
    from profguide.site.fragment_run import svg_path
    from profguide.text import count_of

    # This page's fragments are made for its recordings alone (it has no real trace), each of a snippet.
    lines, snippet = exported_stack_lines(data), cast(Recording, data.recording).snippet
    svg = flame_svg(stacks.folded(lines), (snippet,), title=f"Flame graph: {data.title}")
    caption = (f"The {count_of(len(lines), 'line')} that `export_stacks` wrote, drawn as a flame graph: each bar "
               "is a Python frame, as wide as the self CPU time of the ops below it, and the frames it called sit "
               "on top of it. Hover over a bar for its file, line and time.")
    return {"flame.svg": svg, "flame.md": render.extra_figure_fragment(svg_path(data, "flame.svg"), caption)
            + "\n" + render.provenance_note(data.meta)}


def execution_trace(data: Run, rows: int = 10) -> dict[str, str]:
    """One node of the execution trace, and its nodes by name beside the profiler's events of the same name."""
    from profguide.analysis.select import name_counts
    from profguide.render import fragments as render
    from profguide.site.fragment_run import results_of
    from profguide.text import code, count_of, markdown_table

    schema, by_name, example = results_of(data, "an execution trace's summary", "schema", "nodes_by_name",
                                          "example")
    trace = data.trace
    events = name_counts(trace, by_name)
    node = {key: example[key] for key in EXECUTION_TRACE_KEYS if key in example}
    node["attrs"] = [attr for attr in example.get("attrs", []) if attr["name"] == "op_schema"]
    table = markdown_table(("Node name", "Nodes", "Events in the profiler's trace"),
                           [(code(name), count, events[name]) for name, count in list(by_name.items())[:rows]],
                           "lrr")
    besides = [name for name, count in events.items() if not count]
    sentence = (f"The execution trace ({code(schema)}) holds {count_of(sum(by_name.values()), 'node')} under "
                f"{count_of(len(by_name), 'name')}; above, the {rows} most frequent. Names with no event in the "
                f"profiler's trace: {', '.join(code(name) for name in besides) or 'none'}. The node shown is its "
                f"first {code(example['name'])}, with only its operator schema among its attributes.")
    return {"execution-trace.md": f"```json\n{two_levels(node)}\n```\n\n{table}\n{sentence}\n\n"
            + render.provenance_note(data.meta)}


def flight_recorder(data: Run) -> dict[str, str]:
    """Each rank's flight recorder: its collectives, in order."""
    from profguide.render import fragments as render
    from profguide.site.fragment_run import results_of
    from profguide.text import code, markdown_table

    (ranks,) = results_of(data, "the ranks' flight recorders", "ranks")
    rows = [(rank, entry["seq"], code(entry["name"]), code(json.dumps(entry["sizes"])))
            for rank, buffer in enumerate(ranks) for entry in buffer]
    table = markdown_table(("Rank", "Collective", "Name", "Input sizes"), rows, "rrll")
    return {"flight-recorder.md": table + "\n" + render.provenance_note(data.meta)}


FRAGMENTS: dict[str, Maker] = {"stacks.md": stack_lines, "flame.md": flame, "execution-trace.md": execution_trace,
             "flight-recorder.md": flight_recorder}
