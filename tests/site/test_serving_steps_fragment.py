"""The table of a serving trace's steps that *A serving engine's trace* shows
(``profguide.site.parts.serving_a_model.serving_engine.steps_table``)."""

import json

import pytest

from profguide.site.data import RealTraceData
from profguide.site.fragment_run import FragmentError
from profguide.site.parts.serving_a_model.serving_engine import steps_table
from profguide.site.recordings import RealTrace
from tests.helpers import event, gpu_event

GEMM = "ampere_bf16_s16816gemm_bf16_128x128_ldg8_f2f_stages_32x5_tn"


def real_run(tmp_path, *events):
    """A real trace of these events, as the build reads one."""
    (tmp_path / "serving.json").write_text(json.dumps({"traceEvents": list(events)}))
    real = RealTrace(id="serving", file="serving.json", title="a serving trace", source="a test",
                     source_url="https://example.org", licence="MIT")
    return RealTraceData(real, tmp_path, tmp_path / "generated")


def rows_of(text):
    """The table's rows, each as its cells."""
    return [[cell.strip() for cell in line.strip("|").split("|")] for line in text.splitlines()
            if line.startswith("| <")]


def test_a_row_per_step_with_its_phase_its_requests_split_and_its_phases_gpu_work(tmp_path):
    # A prefill of one request (888 tokens) from 0 to 100 µs on the host, its GEMM on the GPU from 20 to 60; then a
    # decode step of 4 requests (4 tokens) from 200 to 250, its GEMM from 210 to 230.
    run = real_run(tmp_path,
                   event("execute_context_1(888_788544)_generation_0(0)", 0, 100, kind="annotation"),
                   event("cudaLaunchKernel", 10, 2, kind="runtime", correlation=1),
                   gpu_event(GEMM, 20, 40, correlation=1),
                   event("execute_context_0(0)_generation_4(4_100)", 200, 50, kind="annotation"),
                   event("cudaLaunchKernel", 205, 2, kind="runtime", correlation=2),
                   gpu_event(GEMM, 210, 20, correlation=2))
    text = steps_table(run)["serving-steps.md"]
    prefill, decode = rows_of(text)
    assert prefill[1:] == ["prefill", "1 (1 prefill, 0 decode)", "888", "100 µs", "40.0 µs", "100.0%",
                           "compute-bound"]
    assert decode[1:6] == ["decode", "4 (0 prefill, 4 decode)", "4", "50.0 µs", "20.0 µs"]
    assert "vLLM's annotations" in text


def test_a_trace_without_an_engines_steps_has_no_table(tmp_path):
    run = real_run(tmp_path, event("generate", 0, 100, kind="annotation"),
                   event("cudaLaunchKernel", 10, 2, kind="runtime", correlation=1),
                   gpu_event(GEMM, 20, 40, correlation=1))
    with pytest.raises(FragmentError, match="no serving engine"):
        steps_table(run)
