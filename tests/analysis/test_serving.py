"""profguide.analysis.serving: a serving engine's steps from its own annotations, and a verdict per phase."""

import re

import pytest

from profguide.analysis import serving
from profguide.analysis.summarise import measure, summarise
from profguide.analysis.verdict import verdict
from profguide.render.explain import serving_lines
from profguide.trace.model import KIND
from tests.helpers import event as cpu
from tests.helpers import gpu_event as gpu
from tests.helpers import make_trace as make

VLLM_REPLAY = "mi300x_vllm_piecewise_graph_execution.json.gz"
VLLM_B200 = "b200_vllm_moe_tp8_rank0.json.gz"
SGLANG = "mi300x_sglang_qwen3_8b_prefill_decode.json.gz"


@pytest.mark.parametrize(("name", "expected"), [
    ("execute_context_1(888_788544)_generation_0(0)", ("prefill", 1, 0, 888)),
    ("execute_context_0()_generation_2(2_4)", ("decode", 0, 2, None)),
    ("execute_8192_context_9(sq8155sk8430)_generation_37(sq37sk34489)", ("mixed", 9, 37, 8192)),
    ("execute_64_context_0(0)_generation_64(sq64sk9000)", ("decode", 0, 64, 64)),
    ("execute_model", None),
])
def test_vllm_step_names_its_phase_requests_and_tokens(name, expected):
    assert serving.vllm_step(name) == expected


@pytest.mark.parametrize(("name", "expected"), [
    ("step[EXTEND bs=15 toks=15360]", ("prefill", 15, 15360)),
    ("step[DECODE bs=32 toks=32]", ("decode", 32, 32)),
    ("step[DECODE bs=8]", ("decode", 8, None)),
    ("stepper", None),
])
def test_sglang_step_names_its_phase_batch_and_tokens(name, expected):
    assert serving.phase_step(name) == expected


@pytest.mark.parametrize(("name", "expected"), [
    ("prefill bs=4 toks=2048", ("prefill", 4, 2048)),
    ("decode bs=4 toks=4", ("decode", 4, 4)),
    ("Decode", ("decode", None, None)),
    ("prefill[bs=2]", ("prefill", 2, None)),
    ("prefill_cache", None),
    ("decode-step", None),
    ("decoder", None),
    ("run decode", None),
])
def test_a_readers_own_region_named_after_its_phase_is_a_step(name, expected):
    assert serving.phase_step(name, serving.OWN_STEP) == expected


def test_a_generation_loops_own_regions_give_its_phases_and_an_engines_annotation_wins_over_them():
    events = [cpu("prefill bs=2 toks=64", 0, 300, kind="annotation")]
    events += [cpu("decode bs=2 toks=2", 400 + 100 * i, 80, kind="annotation") for i in range(3)]
    found = serving.serving_steps(make(*events))
    assert found is not None
    engine, steps = found
    assert engine == "record_function"
    assert [(step["phase"], step["batch"], step["tokens"]) for step in steps] == [
        ("prefill", 2, 64), ("decode", 2, 2), ("decode", 2, 2), ("decode", 2, 2)]
    decode_line = serving_lines(summarise(make(*events))["serving"])[1]
    assert decode_line.startswith("Serving (record_function), decode: 3 steps, batch 2, 6 tokens; ")
    engine_too = serving.serving_steps(make(*events, cpu("step[DECODE bs=2 toks=2]", 800, 50, kind="annotation")))
    assert engine_too is not None and engine_too[0] == "SGLang"


def engine_steps(phases, kernel_us=50.0, host_us=100.0):
    """A vLLM-like engine: one step per phase given, each launching one kernel of ``kernel_us``."""
    names = {"prefill": "execute_512_context_2(x)_generation_0(y)", "decode": "execute_4_context_0(x)_generation_4(y)",
             "mixed": "execute_260_context_1(x)_generation_4(y)"}
    events, now = [], 0.0
    for number, phase in enumerate(phases, start=1):
        events += [cpu(names[phase], now, host_us, kind="annotation"),
                   cpu("cudaLaunchKernel", now + 10, 5, kind="runtime", correlation=number),
                   gpu(f"{phase}_kernel", now + 20, kernel_us, correlation=number)]
        now += host_us + 50
    return make(*events)


def test_each_phase_is_judged_by_the_same_verdict_over_the_work_its_steps_launched():
    t = engine_steps(["prefill", "prefill", "decode", "decode", "decode"])
    found = summarise(t)["serving"]
    assert found["engine"] == "vLLM"
    assert [step["phase"] for step in found["steps"]] == ["prefill"] * 2 + ["decode"] * 3
    assert [step["tokens"] for step in found["steps"]] == [512, 512, 4, 4, 4]
    assert [step["batch"] for step in found["steps"]] == [2, 2, 4, 4, 4]
    phases = {phase["phase"]: phase for phase in found["phases"]}
    assert {name: row["steps"] for name, row in phases.items()} == {"prefill": 2, "decode": 3}
    kernels = t.kind == KIND["kernel"]
    decode_kernels = [i for i in range(len(t)) if kernels[i] and t.names[t.name[i]] == "decode_kernel"]
    window = phases["decode"]["window"]
    # From the first decode kernel's start to the last one's end: the GPU work the decode steps launched.
    assert (window["start_us"], window["end_us"]) == (t.ts[decode_kernels[0]], t.end[decode_kernels[-1]])
    name, _, basis = verdict(measure(t, (window["start_us"], window["end_us"])))
    assert (phases["decode"]["verdict"], phases["decode"]["verdict_basis"]) == (name, basis)


def test_a_phase_whose_steps_interleave_with_another_is_judged_over_its_longest_step():
    t = engine_steps(["decode", "prefill", "decode"])
    decode = next(phase for phase in summarise(t)["serving"]["phases"] if phase["phase"] == "decode")
    assert decode["steps"] == 2
    assert decode["window"]["dur_us"] == 50.0  # one step's kernel, not the span over the prefill between


def test_a_trace_without_an_engines_annotations_has_no_serving():
    assert summarise(make(cpu("cudaLaunchKernel", 0, 5, kind="runtime", correlation=1),
                          gpu("k", 10, 5, correlation=1)))["serving"] is None


def annotation_names(trace):
    return [trace.names[trace.name[i]] for i in range(len(trace)) if trace.kind[i] == KIND["annotation"]]


@pytest.mark.parametrize("name", [VLLM_REPLAY, VLLM_B200])
def test_a_real_vllm_trace_gives_its_steps_from_the_annotation(name, real_trace):
    t = real_trace(name)
    found = summarise(t)
    steps = found["serving"]["steps"]
    marks = [text for text in annotation_names(t) if text.startswith("execute_")]
    assert found["serving"]["engine"] == "vLLM" and [step["name"] for step in steps] == marks
    for step in steps:
        counts = re.search(r"context_(\d+)\(.*\)_generation_(\d+)\(", step["name"])
        assert (step["prefill_requests"], step["decode_requests"]) == tuple(map(int, counts.groups()))
        expected = {(True, False): "prefill", (False, True): "decode", (True, True): "mixed"}
        assert step["phase"] == expected[(step["prefill_requests"] > 0, step["decode_requests"] > 0)]
        # The logits' matrix multiply has a row per request; the layers' (where not inside a graph) a row per token.
        dims = [gemm["input_dims"] for gemm in found["gemm"]]
        assert any(text.startswith(f"[[{step['batch']}, ") for text in dims)
        assert step["name"].startswith(f"execute_{step['tokens']}_") or any(f"[{step['tokens']}, " in text
                                                                             for text in dims)
    for phase in found["serving"]["phases"]:
        window = phase["window"]
        assert phase["verdict"] == verdict(measure(t, (window["start_us"], window["end_us"])))[0]


def test_the_real_sglang_trace_is_sglangs_though_it_carries_vllms_annotation_too(real_trace):
    t = real_trace(SGLANG)
    names = annotation_names(t)
    assert any(name.startswith("execute_") for name in names)  # the vLLM layers SGLang runs name it too
    found = summarise(t)
    step = found["serving"]["steps"][0]
    assert found["serving"]["engine"] == "SGLang" and step["phase"] == "prefill"
    assert f"bs={step['batch']} toks={step['tokens']}" in step["name"]
    (phase,) = found["serving"]["phases"]
    # The step's own GPU work leaves out the long synchronisation before it: busier than the whole window.
    assert phase["gpu_busy_pct"] > found["gpu_busy_pct"]
    line = serving_lines(found["serving"])[0]
    assert line.startswith(f"Serving (SGLang), prefill: 1 step, batch {step['batch']}, {step['tokens']:,} tokens; "
                           f"{phase['verdict']} over ")
