"""profguide.site.fragments: what each fragment a page can include says about its recording."""

import dataclasses
import gzip
import json
import re

import pytest

from profguide.site import claims, fragments
from profguide.site.catalogue import REAL_TRACES, RECORDINGS, by_id
from profguide.site.data import RealTraceData, RecordingData
from profguide.site.measures.results import TimerRatio
from profguide.site.parts.basics import index as basics_index
from profguide.site.parts.basics import steps as basics_steps
from profguide.site.parts.inside_a_model import attention, kernel_speed, transformer_block
from profguide.site.parts.multi_gpu import overlap
from profguide.site.parts.reading_output import anti_patterns, footprint
from profguide.site.recordings import Figure, RealTrace, Recording
from tests.helpers import ROOT, TINY, Results, event, gpu_event, make_trace

CALLS = dataclasses.replace(TINY, id="calls", params={"size": 8, "calls": 3}, figure=Figure(region="matmul_bias"))
STEPS = Recording(id="steps", module="snippets.basics.steps", function="profile_steps", title="steps",
                  params={"size": 8, "steps": 4, "wait": 0, "warmup": 1, "active": 3}, figure=Figure(spread="aten::mm"))


@pytest.fixture
def recorded(recordings_made_once):
    """A recording made once for the session, as the build reads it (the fragments only read it)."""
    return lambda recording: RecordingData(recording, recordings_made_once(recording))


def test_the_figure_includes_its_svg_and_hands_off_its_trace(recorded):
    files = fragments.figure(recorded(TINY))
    assert set(files) == {"figure.md", "timeline.svg"}
    assert files["timeline.svg"].startswith("<svg") and "<title>Timeline: tiny 8×8</title>" in files["timeline.svg"]
    assert '--8<-- "docs/generated/tiny-matmul/timeline.svg"' in files["figure.md"]
    assert 'data-trace="generated/tiny-matmul/trace.json.gz"' in files["figure.md"]


def test_calls_compare_the_first_call_with_the_later_ones(recorded):
    found = recorded(CALLS)
    text = basics_index.calls(found)["calls.md"]
    assert len(re.findall(r"^\| \d \|", text, re.MULTILINE)) == 3  # a row per call
    assert "The first call of <code>matmul&#95;bias</code> took " in text and "the slowest of the 2 later calls" in text
    with pytest.raises(fragments.FragmentError, match="fewer than two calls of 'matmul_bias'"):
        basics_index.calls(recorded(dataclasses.replace(TINY, figure=Figure(region="matmul_bias"))))


def test_events_count_every_phase_of_the_trace(recorded):
    found = recorded(TINY)
    document = json.loads(gzip.decompress(found.trace_path().read_bytes()))
    complete = sum(1 for e in document["traceEvents"] if e.get("ph") == "X")
    text = basics_index.events(found)["events.md"]
    assert f"Of the {len(document['traceEvents'])} events in this recording's trace, {complete} are complete" in text


def test_step_fragments(recorded):
    found = recorded(STEPS)
    assert len(re.findall(r"^\| \d \|", fragments.steps(found)["steps.md"], re.MULTILINE)) == 3
    compare = basics_steps.compare(found)
    assert "ProfilerStep#1" in compare["compare.svg"] and "compare.svg" in compare["compare.md"]
    spread = fragments.spread(found)
    assert "Every duration of <code>aten::mm</code>" in spread["spread.md"]
    with pytest.raises(fragments.FragmentError, match="no ProfilerStep"):
        fragments.steps(recorded(TINY))


def test_breakdown_refuses_a_run_without_gpu_work_rather_than_say_there_is_none(recorded):
    with pytest.raises(fragments.FragmentError, match="no GPU work"):
        fragments.breakdown(recorded(STEPS))


def test_breakdown_figure_for_steps_with_gpu_work():
    loaded = make_trace(
        event("ProfilerStep#1", 0, 100, kind="annotation"), event("ProfilerStep#2", 100, 100, kind="annotation"),
        event("cudaLaunchKernel", 10, 5, kind="runtime", correlation=1),
        event("cudaLaunchKernel", 150, 5, kind="runtime", correlation=2),
        gpu_event("k", 20, 50, correlation=1), gpu_event("k", 160, 20, correlation=2),
    )
    found = RecordingData.of(STEPS, None, traces=(loaded,))  # as if loaded from a recording made on a GPU
    files = fragments.breakdown(found)
    assert files["breakdown.svg"].count("ProfilerStep#") == 2
    assert '--8<-- "docs/generated/steps/breakdown.svg"' in files["breakdown.md"]


def test_every_fragment_writes_the_file_pages_include_by_its_name(recorded, tmp_path):
    # Some fragments need what only one recording has (a memory timeline, timings, a GPU's launches, kernels
    # joined to multiplies with their shapes): the committed recordings and real GPU traces stand beside the two
    # made here.
    committed = [RecordingData(r, ROOT / "docs" / "generated" / r.id) for r in RECORDINGS]
    with_shapes = dataclasses.replace(TWO_RANKS, id="qwen", file="docs/traces/h100_qwen1.5_0.5b_inference.json.gz")
    # BERT-small's projections: the GEMM the page "Is this kernel fast?" works out by hand.
    bert = dataclasses.replace(TWO_RANKS, id="bert", file="docs/traces/h100_bert_small_inference.json.gz")
    found = [recorded(recording) for recording in (STEPS, CALLS)] + committed + [
        RealTraceData(dataclasses.replace(TWO_RANKS, figure=Figure(trees=("aten::mm",))), ROOT, tmp_path),
        RealTraceData(with_shapes, ROOT, tmp_path), RealTraceData(bert, ROOT, tmp_path)]
    pages = {name: make for own in fragments.page_fragments().values() for name, make in own.items()}
    for name, make in {**fragments.FRAGMENTS, **pages}.items():
        written = []
        for data in found:
            try:
                written.append(make(data))
            except fragments.FragmentError:
                continue
        assert written and all(name in files for files in written), name


def test_a_pages_own_fragments_go_to_its_recordings_alone():
    assert "fusion.md" in fragments.makers_for("compile-fusion-compiled")
    assert "fusion.md" not in fragments.makers_for("basics-matmul-64") | fragments.FRAGMENTS
    assert fragments.makers_for("tiny-matmul") == fragments.FRAGMENTS  # declared by no parts module


def test_no_pages_fragment_hides_one_every_page_can_include():
    for own in fragments.page_fragments().values():
        assert not set(own) & set(fragments.FRAGMENTS), sorted(set(own) & set(fragments.FRAGMENTS))


TWO_RANKS = RealTrace(id="two-ranks", file="docs/traces/a100_nccl_2rank_rank0.json.gz", title="two ranks",
                      source="HTA", source_url="https://example.org", licence="MIT", figure=Figure(step=5))


def test_a_real_traces_figure_draws_one_step_and_names_its_source(tmp_path):
    found = RealTraceData(TWO_RANKS, ROOT, tmp_path)
    files = fragments.figure(found)
    assert "<title>Timeline: two ranks, ProfilerStep#5 (NVIDIA A100-PG509-200; HTA; MIT licence)</title>" \
        in files["timeline.svg"]
    assert any(line.startswith("Drawn: ProfilerStep#5 and the GPU work it launched, ")
               for line in files["figure.md"].splitlines())
    assert "source: [HTA](https://example.org) · licence: MIT" in files["figure.md"]
    assert "in the trace, one dot each" in fragments.spread(found)["spread.md"]
    with pytest.raises(fragments.FragmentError, match="no ProfilerStep#9 in this trace"):
        fragments.figure(RealTraceData(dataclasses.replace(TWO_RANKS, figure=Figure(step=9)), ROOT, tmp_path))


def test_spread_marks_the_mean_beside_the_median():
    found = RecordingData.of(STEPS, None, traces=(make_trace(*(gpu_event("k", 10 * i, 1) for i in range(3)),
                                                         gpu_event("k", 40, 9)),))
    files = fragments.spread(found)
    assert "the median, the mean (dashed)" in files["spread.md"]
    assert ">mean 3.0 µs<" in files["spread.svg"] and ">median 1.0 µs<" in files["spread.svg"]


def test_tflops_needs_kernels_and_compares_each_multiply_with_the_peak(recorded):
    with pytest.raises(fragments.FragmentError, match="no kernel joined"):
        fragments.achieved_tflops(recorded(TINY))
    dims = {"Input Dims": [[1000, 1000], [1000, 1000]], "Input type": ["float", "float"]}
    meta = {"device_name": "NVIDIA A100-SXM4-80GB", "torch": "2.13.0", "cuda": "12.8", "python": "3.11.7",
            "recorded_at": "2026-11-30", "params": {}, "recording": "steps"}
    loaded = make_trace(event("aten::mm", 0, 5, external_id=1, **dims), gpu_event("gemm", 10, 200, external_id=1),
                        deviceProperties=[{"name": "NVIDIA A100-SXM4-80GB"}])
    found = RecordingData.of(STEPS, None, meta=meta, traces=(loaded,))
    text = fragments.achieved_tflops(found)["tflops.md"]
    assert "| <code>aten::mm</code> | &#91;&#91;1000, 1000&#93;, &#91;1000, 1000&#93;&#93; | <code>float</code> " \
           "| 1 | 2.0 | 200 µs | 10.0 TFLOP/s | 19.5 TFLOP/s | 51% |" in text
    assert "Recorded on NVIDIA A100-SXM4-80GB" in text


def test_communication_calls_name_the_collective_that_launched_each_kernel(tmp_path):
    sixteen = RealTrace(id="sixteen", file="docs/traces/a100_80gb_nccl_16rank_rank0.json.gz", title="sixteen ranks",
                        source="HTA", source_url="https://example.org", licence="MIT")
    table = overlap.communication_calls(RealTraceData(sixteen, ROOT, tmp_path))["communication-calls.md"]
    rows = [line for line in table.splitlines() if line.startswith("| <code>") or line.startswith("| no launch")]
    assert rows[0].startswith("| <code>nccl:all&#95;reduce</code> | <code>ncclKernel&#95;SendRecv")
    assert any(row.startswith("| no launch in the trace") for row in rows)
    committed = RecordingData(by_id("multigpu-ddp"), ROOT / "docs" / "generated" / "multigpu-ddp")
    with pytest.raises(fragments.FragmentError, match="no communication kernel"):
        overlap.communication_calls(committed)  # gloo on the CPU: no kernels


def seq(number):
    return {"Sequence number": number}


def test_step_parts_split_the_steps_by_region_with_the_backward_joined_and_device_time_on_a_gpu(tmp_path):
    events = (
        event("ProfilerStep#1", 0, 200, kind="annotation"),
        event("MLP", 10, 40, kind="annotation"),
        event("aten::mm", 12, 30, **seq(7)),
        event("cudaLaunchKernel", 14, 2, kind="runtime", correlation=1),
        event("norm", 60, 20, kind="annotation"),
        event("aten::pow", 62, 10, **seq(8)),
        event("cudaLaunchKernel", 64, 2, kind="runtime", correlation=2),
        event("autograd::engine::evaluate_function: PowBackward0", 100, 30, **seq(8)),
        event("cudaLaunchKernel", 105, 2, kind="runtime", correlation=3),
        event("autograd::engine::evaluate_function: MmBackward0", 140, 50, **seq(7)),
        event("cudaLaunchKernel", 145, 2, kind="runtime", correlation=4),
        event("cudaLaunchKernel", 150, 2, kind="runtime", correlation=5),
        gpu_event("gemm", 20, 40, correlation=1), gpu_event("pow", 70, 10, correlation=2),
        gpu_event("pow_backward", 110, 10, correlation=3), gpu_event("gemm_a", 150, 20, correlation=4),
        gpu_event("gemm_b", 175, 20, correlation=5),
    )
    (tmp_path / "parts.json").write_text(json.dumps({"traceEvents": events}))
    real = dataclasses.replace(TWO_RANKS, id="parts", file="parts.json")
    files = transformer_block.step_parts(RealTraceData(real, tmp_path, tmp_path / "generated"))
    rows = {line.split(" | ")[0].strip("| "): line.split(" | ") for line in files["step-parts.md"].splitlines()
            if line.startswith("| <code>")}
    # MLP: 40 µs forward and 50 µs backward of 200; device 40 + 40 of 100; one kernel in its one call.
    assert rows["<code>MLP</code>"][1:] == ["1", "40.0 µs", "50.0 µs", "45.0%", "40.0 µs", "40.0 µs", "80.0%",
                                            "1 |"]
    assert rows["<code>norm</code>"][4:7] == ["25.0%", "10.0 µs", "10.0 µs"]  # (20 + 30) of 200
    assert "Over 1 step of 200 µs in all." in files["step-parts.md"]


def test_step_parts_need_a_region_and_leave_device_columns_out_on_a_cpu(recorded):
    with pytest.raises(fragments.FragmentError, match="no record_function region"):
        transformer_block.step_parts(RecordingData.of(STEPS, None, traces=(make_trace(
            event("ProfilerStep#1", 0, 100, kind="annotation"), event("aten::mm", 10, 5)),)))
    text = transformer_block.step_parts(RecordingData(by_id("model-block-eager"), ROOT / "docs" / "generated"
                                              / "model-block-eager"))["step-parts.md"]
    heading = next(line for line in text.splitlines() if line.startswith("| Region"))
    assert heading.endswith("| Share of the steps |")  # a CPU run: no device columns
    assert {"<code>norm</code>", "<code>attention</code>", "<code>MLP</code>", "<code>optimizer</code>"} <= {
        line.split(" | ")[0].strip("| ") for line in text.splitlines() if line.startswith("| <code>")}


def shares(line):
    """The share cell of a row of step-parts.md, as a number; in parentheses (a row inside another) as None."""
    cell = line.split(" | ")[4].strip("| ")
    return None if cell.startswith("(") else float(cell.rstrip("%"))


def test_step_parts_put_a_region_under_the_one_it_runs_in_and_the_outermost_shares_add_up():
    text = transformer_block.step_parts(RecordingData(by_id("model-block-compiled"), ROOT / "docs" / "generated"
                                              / "model-block-compiled"))["step-parts.md"]
    lines = [line for line in text.splitlines() if line.startswith("| ") and not line.startswith("| Region")]
    backward_graph = next(line for line in lines if "in the backward of <code>Torch-Compiled Region" in line)
    assert backward_graph.startswith("| ↳ ") and backward_graph.split(" | ")[2] == "–"  # its time is backward time
    assert lines[-1].startswith("| Outside every region")
    assert sum(share for line in lines if (share := shares(line)) is not None) == pytest.approx(100, abs=0.2)


def test_sequence_numbers_follow_the_first_mlp_call_to_the_backward_functions():
    text = transformer_block.sequence_numbers(RecordingData(by_id("model-block-eager"), ROOT / "docs" / "generated"
                                                    / "model-block-eager"))["sequence-numbers.md"]
    rows = [line.split(" | ") for line in text.splitlines() if line.startswith("| <code>")]
    made = {row[0].strip("| "): row[3].strip("| ") for row in rows if row[2] == "yes"}
    assert made["<code>aten::mm</code>"] == "<code>MmBackward0</code>"
    assert "first call of <code>MLP</code>" in text
    with pytest.raises(fragments.FragmentError, match="sequence number"):
        transformer_block.sequence_numbers(RecordingData.of(STEPS, None, traces=(make_trace(
            event("ProfilerStep#1", 0, 100, kind="annotation"), event("MLP", 10, 5, kind="annotation")),)))


def test_modules_give_each_class_its_share_of_the_joined_device_time_and_kernels_per_call(tmp_path):
    qwen = RealTraceData(next(real for real in REAL_TRACES if real.id == "reading-h100-qwen"), ROOT, tmp_path)
    text = fragments.modules(qwen)["modules.md"]
    rows = {line.split(" | ")[0].strip("| "): line.split(" | ") for line in text.splitlines()
            if line.startswith("| <code>")}
    assert rows["<code>Qwen2Model</code>"][3] == "100.0%"  # every op that launched GPU work runs inside the model
    assert rows["<code>Qwen2RMSNorm</code>"][1] == "49"
    assert "source: [TraceLens" in text
    with pytest.raises(fragments.FragmentError, match="no nn.Module events"):
        fragments.modules(RealTraceData(TWO_RANKS, ROOT, tmp_path))


def test_variants_set_each_recording_of_a_snippet_beside_the_others_and_show_nothing_of_a_stand_in_for_another():
    text = attention.variants(RecordingData(by_id("model-attention-sdpa-math"), ROOT / "docs" / "generated"
                                            / "model-attention-sdpa-math"))["variants.md"]
    rows = {line.split(" | ")[0].strip("| ").partition("]")[0].strip("["): line.split(" | ")
            for line in text.splitlines() if line.startswith("| [")}
    assert list(rows) == [f"<code>{variant}</code>" for variant in
                          ("masked&#95;fill", "masked&#95;fill&#95;", "math", "flash", "efficient", "cudnn")]
    assert rows["<code>math</code>"][2] == "81"  # the aten:: ops of a call, as the page's claim counts them
    assert "ran <code>flash</code> instead" in rows["<code>efficient</code>"][1]
    assert rows["<code>efficient</code>"][2] == "–"  # the CPU has no such backend: nothing of flash's run is shown
    assert all(row[4].startswith("waits for a GPU run") for row in rows.values())  # all CPU stand-ins
    assert text.startswith('!!! warning "CPU stand-in"')
    with pytest.raises(fragments.FragmentError, match="figure's region"):  # STEPS names no region
        attention.variants(RecordingData.of(STEPS, None, traces=(make_trace(
            event("ProfilerStep#1", 0, 100, kind="annotation")),)))


def test_python_calls_count_each_regions_ops_and_python_calls_and_need_with_stack(recorded):
    traced = make_trace(event("forward", 0, 50, kind="annotation"), event("m.py(3): forward", 1, 40, kind="python"),
                        event("<built-in function linear>", 2, 20, kind="python"), event("aten::linear", 3, 10),
                        event("zero_grad", 60, 5, kind="annotation"), event("o.py(1): zero_grad", 61, 2, kind="python"))
    text = footprint.python_calls(RecordingData.of(STEPS, None, traces=(traced,), meta=recorded(STEPS).meta))
    rows = [line for line in text["python-calls.md"].splitlines() if line.startswith("| <code>")]
    assert rows == ["| <code>forward</code> | 1 | 2 | 2.00 |", "| <code>zero&#95;grad</code> | 0 | 1 | – |"]
    with pytest.raises(fragments.FragmentError, match="without with_stack"):
        footprint.python_calls(recorded(STEPS))


def test_the_timer_fragment_prints_the_ratio_its_claim_checks_from_the_same_events():
    # Two aten::matmul ops of 10 and 20 µs, median 15 µs, against the Timer's 10 µs: 1.50. A GPU annotation of that
    # name (1 ms) is no op: neither the claim (TimerRatio) nor the fragment counts it.
    traced = make_trace(event("aten::matmul", 0, 10), event("aten::matmul", 20, 20),
                        {**gpu_event("aten::matmul", 0, 1000), "cat": "gpu_user_annotation"})
    meta = {"device_name": "a test CPU", "torch": "2.13.0", "python": "3.12", "recorded_at": "2026-12-01",
            "params": {}, "recording": "around-benchmark"}
    run = Results(trace=traced, meta=meta, found={"op": "aten::matmul", "printed": "Median: 10.00 us", "timer": {
        "median_us": 10.0, "blocks": 3, "runs_per_block": 1}})
    text = fragments.timer_comparison(run)["timer.md"]
    assert claims.measured(TimerRatio("aten::matmul"), run) == pytest.approx(1.5)
    assert "| `torch.profiler`: <code>aten::matmul</code> events | 15.0 µs | 2 calls |" in text
    assert "The profiler's median over the Timer's: 1.50." in text
    with pytest.raises(fragments.FragmentError, match="a Timer's measurement"):
        fragments.timer_comparison(Results(trace=traced, meta=meta, found={"op": "aten::matmul"}))


def test_the_findings_say_where_each_rule_looked_as_a_time_from_the_trace_s_start_not_as_a_cost():
    mistakes = by_id("reading-anti-patterns")
    found = RecordingData(mistakes, ROOT / "docs" / "generated" / mistakes.id)
    text = anti_patterns.rule_findings(found)["findings.md"]
    assert "| Rule | What it measured | Seen at, from the trace's start | Try |" in text
    assert not re.search(r"\| \+\d", text)  # no "+6.62 ms" that reads like an added cost


def real_trace(trace_id, tmp_path):
    return RealTraceData(next(real for real in REAL_TRACES if real.id == trace_id), ROOT, tmp_path)


def test_the_worked_gemm_sums_bert_smalls_projection_from_its_shapes_and_refuses_a_trace_without_it(tmp_path):
    bert = real_trace("speed-h100-bert", tmp_path)
    text = kernel_speed.worked_gemm(bert)["worked-gemm.md"]
    m, k, n = 141, 512, 512  # the bias is N, the first matrix M × K, the second K × N
    assert f"2 · {m} · {n} · {k} = {2 * m * n * k:,}" in text
    assert f"**{2 * m * n * k + m * n:,}** a call" in text  # the bias adds one FLOP an output
    assert f"**{2 * (n + m * k + k * n + m * n):,}** a call" in text  # bf16: two bytes an element
    assert "| <code>aten::addmm</code> |" in text  # explain --ops' row follows the sum
    with pytest.raises(fragments.FragmentError, match="aten::addmm"):
        kernel_speed.worked_gemm(real_trace("speed-h100-qwen", tmp_path))


def test_the_roofline_figure_is_refused_for_a_gpu_without_peaks(tmp_path):
    files = kernel_speed.roofline_figure(real_trace("speed-h100-qwen", tmp_path))
    assert files["roofline.svg"].startswith("<svg") and "speed-h100-qwen/roofline.svg" in files["roofline.md"]
    with pytest.raises(fragments.FragmentError, match="no peaks"):
        kernel_speed.roofline_figure(real_trace("speed-mi300x-vllm", tmp_path))
