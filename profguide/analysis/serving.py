"""A serving engine's steps, from the engine's own annotations: which run prefill, which decode, how many requests
and tokens each holds, and the span over which each phase is judged.

vLLM's model runner names each step ``execute_[T_]context_N(…)_generation_M(…)`` (``record_function``, a
``user_annotation``): N requests in prefill (their context), M decoding, and, in newer versions, T tokens
scheduled; each part's parentheses begin with its query tokens (``888_…``, ``sq8155sk…``), which add up to
T. SGLang's scheduler names it ``step[EXTEND bs=B toks=T]`` (prefill) or ``step[DECODE bs=B …]``.
An SGLang trace can carry vLLM's annotation too (SGLang runs vLLM's layers): SGLang's wins there.

A reader's own generation loop is found the same way when it names each step's region after its phase, as the
guide's decoder does (``record_function("prefill bs=1 toks=512")``, ``"decode bs=1 toks=1"``): the word
``prefill`` or ``decode`` first, then SGLang's ``bs=`` and ``toks=`` where the loop gives them.
"""

import re

import numpy as np

from profguide.analysis.intervals import Window
from profguide.analysis.select import gpu_work, kinds_mask, launch_of, names_where
from profguide.analysis.summary import ServingStep
from profguide.analysis.vocabulary import Engine, Phase
from profguide.trace.model import Trace

VLLM_STEP = re.compile(r"^execute_(?:(?P<tokens>\d+)_)?context_(?P<prefill>\d+)\((?P<prefill_sizes>[^)]*)\)"
                       r"_generation_(?P<decode>\d+)\((?P<decode_sizes>[^)]*)\)")
FIRST_NUMBER = re.compile(r"\d+")
SGLANG_STEP = re.compile(r"^step\[(?P<mode>EXTEND|DECODE|MIXED|PREFILL)\b(?P<fields>[^\]]*)\]")
SGLANG_FIELD = re.compile(r"\b(bs|toks)=(\d+)")
OWN_STEP = re.compile(r"^(?P<mode>prefill|decode)(?![\w-])(?P<fields>.*)$", re.IGNORECASE)
SGLANG_PHASES: dict[str, Phase] = {"EXTEND": "prefill", "PREFILL": "prefill", "DECODE": "decode", "MIXED": "mixed"}
ENGINE_STEPS: dict[Engine, re.Pattern[str]] = {"SGLang": SGLANG_STEP, "vLLM": VLLM_STEP, "record_function": OWN_STEP}
PHASES: tuple[Phase, ...] = ("prefill", "mixed", "decode")  # the order phases are reported in


def vllm_phase(prefill: int, decode: int) -> Phase:
    """Prefill when only contexts run, decode when only generations do, mixed when both."""
    if prefill and decode:
        return "mixed"
    return "prefill" if prefill else "decode"


def vllm_step(name: str) -> tuple[Phase, int, int, int | None] | None:
    """(phase, prefill requests, decode requests, tokens) from vLLM's step annotation, or None."""
    found = VLLM_STEP.match(name)
    if found is None:
        return None
    prefill, decode = int(found["prefill"]), int(found["decode"])
    return vllm_phase(prefill, decode), prefill, decode, vllm_tokens(found)


def vllm_tokens(found: re.Match[str]) -> int | None:
    """The tokens a vLLM step runs: the number after ``execute_``, else the first number in each part's
    parentheses (its query tokens: ``context_1(888_…)``, ``generation_37(sq37sk…)``) added up."""
    if found["tokens"] is not None:
        return int(found["tokens"])
    parts = [FIRST_NUMBER.search(found[sizes]) for sizes in ("prefill_sizes", "decode_sizes")]
    return None if None in parts else sum(int(part[0]) for part in parts if part)


def phase_step(name: str, step: re.Pattern[str] = SGLANG_STEP) -> tuple[Phase, int | None, int | None] | None:
    """(phase, batch, tokens) from SGLang's step annotation, or from a reader's own region (``step`` =
    ``OWN_STEP``), which names them in the same words; or None."""
    found = step.match(name)
    if found is None:
        return None
    fields = dict(SGLANG_FIELD.findall(found["fields"]))
    batch, tokens = fields.get("bs"), fields.get("toks")
    return (SGLANG_PHASES[found["mode"].upper()], None if batch is None else int(batch),
            None if tokens is None else int(tokens))


def step_row(name: str, start: float, dur: float, engine: Engine) -> ServingStep | None:
    """One step, if ``name`` is ``engine``'s step annotation."""
    if engine != "vLLM":
        found = phase_step(name, ENGINE_STEPS[engine])
        if found is None:
            return None
        phase, batch, tokens = found
        prefill = decode = None
    else:
        vllm = vllm_step(name)
        if vllm is None:
            return None
        phase, prefill, decode, tokens = vllm
        batch = prefill + decode
    return {"name": name, "start_us": start, "dur_us": dur, "phase": phase, "prefill_requests": prefill,
            "decode_requests": decode, "batch": batch, "tokens": tokens}


def serving_steps(trace: Trace) -> tuple[Engine, list[ServingStep]] | None:
    """The engine and its steps in order of start, or None when the trace has no engine's step annotation."""
    annotations = kinds_mask(trace, ("annotation",))
    for engine, step in ENGINE_STEPS.items():  # SGLang before vLLM, whose layers it runs; a reader's own last
        marks = np.flatnonzero(annotations & names_where(trace, step.match))  # each distinct name matched once
        rows = [row for i in marks.tolist()
                if (row := step_row(trace.names[trace.name[i]], float(trace.ts[i]), float(trace.dur[i]), engine))]
        if rows:
            return engine, rows
    return None


def launched_span(trace: Trace, steps: list[ServingStep]) -> Window:
    """The GPU work the steps launched, from the first op's start to the last one's end; the steps' own span
    where they launched none."""
    start, end = steps[0]["start_us"], steps[-1]["start_us"] + steps[-1]["dur_us"]
    ops = np.flatnonzero(gpu_work(trace))
    launch = launch_of(trace, ops)
    launch_ts = trace.ts[np.maximum(launch, 0)]
    launched = ops[(launch >= 0) & (launch_ts >= start) & (launch_ts < end)]
    if not len(launched):
        return start, end
    return float(trace.ts[launched].min()), float(trace.end[launched].max())


def phase_windows(trace: Trace, steps: list[ServingStep]) -> list[tuple[Phase, int, Window]]:
    """(phase, its steps, the span to judge it over) for each phase the steps run: the GPU work its steps
    launched (``launched_span``), or only its longest step's where a step of another phase starts in between."""
    found = []
    for phase in PHASES:
        own = [step for step in steps if step["phase"] == phase]
        if not own:
            continue
        first, last = own[0]["start_us"], own[-1]["start_us"]
        if any(first < step["start_us"] < last for step in steps if step["phase"] != phase):
            own_span = [max(own, key=lambda step: step["dur_us"])]
            found.append((phase, len(own), launched_span(trace, own_span)))
        else:
            found.append((phase, len(own), launched_span(trace, own)))
    return found
