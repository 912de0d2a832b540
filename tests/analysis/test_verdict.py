"""profguide.analysis.verdict: the verdict on what ``summarise`` measured, and its words."""

from typing import get_args

import pytest

from profguide.analysis import verdict
from profguide.analysis.startup import STARTUP_PCT
from profguide.analysis.summarise import measure, summarise
from profguide.analysis.vocabulary import Verdict
from profguide.site.verdict_table import verdict_table
from tests.analysis.gpu_traces import DATALOADER, training_loop
from tests.helpers import ROOT, TRACES
from tests.helpers import event as cpu
from tests.helpers import gpu_event as gpu
from tests.helpers import make_trace as make
from tests.test_import_graph import import_graph


@pytest.mark.parametrize(
    ("events", "expected"),
    [
        ([cpu("aten::mm", 0, 10)], "host-compute-bound"),
        ([cpu("aten::mm", 0, 0)], "cpu-only"),
        # The profiler's own span alone: metadata only, which the trust check leaves without a verdict.
        ([{"ph": "X", "cat": "Trace", "name": "x", "ts": 0, "dur": 5, "pid": 1, "tid": 1}], "no-verdict"),
        ([gpu("k", 0, 95), gpu("k", 96, 4)], "compute-bound"),
        ([gpu("ncclKernel_AllReduce", 0, 100, stream=20), gpu("gemm", 90, 20)], "communication-bound"),
    ],
)
def test_verdicts(events, expected):
    assert summarise(make(*events))["verdict"] == expected


@pytest.mark.parametrize(
    ("loop", "expected", "label"),
    [
        # A slow dataset: the GPU waits while the host is in the DataLoader.
        ({"data_us": 500}, "input-bound", DATALOADER),
        # The same loop with .item() every step: still the data that the GPU waits for.
        ({"data_us": 500, "item": True}, "input-bound", DATALOADER),
        # .item() every step, then Python: the sync is what keeps the host from queueing ahead.
        ({"item": True, "python_us": 200}, "sync-bound", "aten::item"),
        # Python between steps, nothing recorded, no sync.
        ({"python_us": 300}, "python-bound", "outside any op"),
        # An optimizer step of many tiny ops after a short forward pass.
        ({"optimizer_ops": 20, "kernel_us": 5}, "optimizer-bound", "Optimizer.step#SGD.step"),
        # Many ops whose host work outlasts their kernels: busy launching.
        ({"ops": 30, "host_us": 40, "kernel_us": 5}, "launch-bound", "aten::mm"),
    ],
)
def test_the_verdict_names_what_the_host_was_doing(loop, expected, label):
    summary = summarise(training_loop(**loop))
    assert summary["verdict"] == expected
    assert f"({label})" in summary["verdict_text"]


def test_a_gap_covered_by_the_profilers_own_work_is_the_profilers():
    t = make(cpu("cudaLaunchKernel", 0, 2, kind="runtime", correlation=1),
             cpu("cudaLaunchKernel", 3, 2, kind="runtime", correlation=2),
             gpu("a", 5, 10, correlation=1), cpu("Activity Buffer Request", 15, 80, kind="overhead", pid=0, tid=7),
             gpu("b", 100, 10, correlation=2))
    summary = summarise(t)
    assert summary["idle"]["by_cause"]["profiler"]["idle_us"] == 85
    assert summary["verdict"] == "profiler-bound" and "Activity Buffer Request" in summary["verdict_text"]


def test_device_events_of_another_vendor_are_not_called_cpu_only(tmp_path):
    import json

    from profguide import trace

    events = [{"ph": "X", "cat": "mtia_ccp_events", "name": "kernel_x", "ts": 1, "dur": 5, "pid": 9, "tid": 1},
              {"ph": "X", "cat": "cpu_op", "name": "aten::add", "ts": 0, "dur": 8, "pid": 1, "tid": 1}]
    summary = summarise(trace.parse(json.dumps({"traceEvents": events}).encode()))
    assert summary["verdict"] == "not-analysed" and "mtia_ccp_events" in summary["verdict_text"]
    assert summary["unanalysed_events"] == {"mtia_ccp_events": 1}


def test_when_htas_rule_leaves_out_most_of_the_work_the_window_holds_it():
    # Two steps; the last one launched nearly every kernel: HTA's window would be the first kernel alone.
    t = make(cpu("ProfilerStep#1", 0, 10, kind="annotation"), cpu("ProfilerStep#2", 10, 500, kind="annotation"),
             cpu("cudaLaunchKernel", 1, 1, kind="runtime", correlation=1),
             *[cpu("cudaLaunchKernel", 20 + 10 * i, 1, kind="runtime", correlation=2 + i) for i in range(40)],
             gpu("first", 3, 4, correlation=1),
             *[gpu("k", 25 + 10 * i, 8, correlation=2 + i) for i in range(40)])
    summary = summarise(t)
    assert summary["window"]["dur_us"] > 300 and summary["left_out_of_window"]["ops"] == 40
    assert "HTA's rule would leave out 40 ops" in summary["window_definition"]
    assert summary["verdict"] != "compute-bound"


def test_events_no_profiler_measures_do_not_turn_the_verdict():
    absurd = [gpu("forever", 10, dur) for dur in (2**64 - 1, 1e308)]
    plain, spoiled = training_loop(python_us=300), training_loop(python_us=300, extra=absurd)
    assert summarise(spoiled)["verdict"] == summarise(plain)["verdict"] == "python-bound"
    assert sum(spoiled.skipped.values()) == 2


def test_a_cuda_graph_replay_joins_every_kernel_to_its_graph_launch():
    replay = [gpu(f"graph_kernel_{i}", 30 + 10 * i, 8, correlation=9) for i in range(12)]
    t = make(cpu("cudaGraphLaunch", 5, 12, kind="runtime", correlation=9), *replay)
    summary = summarise(t)
    assert summary["launch_delay_us"]["runtime"]["count"] == 1  # the first kernel, on an empty stream
    assert summary["queueing_us"]["count"] == 11  # the rest waited behind it, none unexplained
    assert summary["idle"]["by_cause"]["other"]["idle_us"] == 0
    assert summary["compile"]["cuda_graph_launches"] == 1


def test_a_trace_of_gpu_events_alone_is_measured_and_its_gaps_unexplained():
    t = make(gpu("k", 0, 10), gpu("k", 30, 10, stream=8), gpu("k", 50, 10))
    summary = summarise(t)
    assert summary["window"] == {"start_us": 0, "end_us": 60, "dur_us": 60}
    assert summary["gpu_idle_pct"] == pytest.approx(50) and summary["verdict"] == "idle-unexplained"


@pytest.mark.parametrize(
    ("inside", "expected", "label"),
    [
        (cpu("enumerate(DataLoader)#_MultiProcessingDataLoaderIter.__next__", 0, 70, kind="annotation"),
         "input-bound", "enumerate(DataLoader)#_MultiProcessingDataLoaderIter.__next__"),
        (cpu("autograd::engine::evaluate_function: AddmmBackward0", 0, 70), "host-compute-bound",
         "autograd::engine::evaluate_function: AddmmBackward0"),
        (cpu("Optimizer.step#AdamW.step", 0, 70, kind="annotation"), "optimizer-bound", "Optimizer.step#AdamW.step"),
        (cpu("aten::mm", 0, 20), "python-bound", "outside any op"),
    ],
)
def test_without_gpu_work_the_verdict_names_where_the_host_time_went(inside, expected, label):
    summary = summarise(make(cpu("ProfilerStep#1", 0, 100, kind="annotation"), inside))
    assert summary["verdict"] == expected and summary["window"] is None
    assert f"({label})" in summary["verdict_text"] and "The GPU waits" not in summary["verdict_text"]
    assert summary["host"]["windows"][0]["label"] == "ProfilerStep#1"


def test_a_trace_with_gpu_work_has_no_host_breakdown():
    assert summarise(make(gpu("k", 0, 95)))["host"] is None


def test_a_host_that_records_nothing_while_other_threads_communicate_is_communication_bound():
    idle = {name: {"us": 0.0, "top": []} for name in ("data loading", "ops", "backward", "optimizer", "region")}
    host = {"dur_us": 100.0, "by_activity": {**idle, "python": {"us": 100.0, "top": [["outside any op", 100.0]]}},
            "other_threads": [{"thread": "1/2", "busy_us": 80.0, "top": "gloo:all_reduce"}]}
    assert verdict.host_verdict(host) == ("communication-bound", "gloo:all_reduce")
    host["other_threads"][0]["busy_us"] = 30.0  # busy for less than half the time: nothing to blame on it
    assert verdict.host_verdict(host)[0] == "python-bound"
    host["other_threads"][0].update(busy_us=80.0, top="aten::mm")  # busy computing, not communicating
    assert verdict.host_verdict(host)[0] == "python-bound"


def lost_time_by_verdict(summary):
    """Each cause of the window's lost time, in µs, by the verdict that names it, worked out from the summary's
    measurements: the late launches by host activity, the other idle causes, and the exposed communication."""
    idle, by_verdict = summary["idle"], {}
    for activity, row in idle["by_activity"].items():
        name = verdict.ACTIVITY_VERDICTS[activity]
        by_verdict[name] = by_verdict.get(name, 0.0) + row["idle_us"]
    for cause, name in verdict.IDLE_VERDICTS.items():
        by_verdict[name] = idle["by_cause"][cause]["idle_us"]
    by_verdict["communication-bound"] = summary["communication"]["exposed_us"]
    return by_verdict


def quoted_measurement(summary):
    """The figure each rule's basis must quote, as the basis formats it."""
    name = summary["verdict"]
    if name == "no-verdict":
        return "the trust check's confidence, none"
    if name == "graph-capture":
        return f"{summary['graphs']['captured_calls']:,} launch calls into CUDA graphs"
    if name == "start-up":
        return f"device set-up {summary['device_setup']['pct']:.0f}% of the window"
    if name == "compute-bound":
        return f"GPU busy {summary['gpu_busy_pct']:.0f}% of the window"
    if summary["window"] is None:
        return "no GPU work"
    share = 100 * lost_time_by_verdict(summary)[name] / summary["window"]["dur_us"]
    return f"{share:.0f}% of the window, the largest cause of lost time"


@pytest.mark.parametrize("name", sorted(path.name for path in TRACES.glob("*.json.gz")))
def test_each_real_traces_verdict_says_what_decided_it(name, real_trace):
    summary = summarise(real_trace(name))
    assert quoted_measurement(summary) in summary["verdict_basis"]
    if "the largest cause of lost time" in summary["verdict_basis"]:  # weighed: no cause outweighs its own
        lost = lost_time_by_verdict(summary)
        assert lost[summary["verdict"]] == max(lost.values())


def test_exposed_communication_is_weighed_against_the_other_causes(real_trace):
    """The 128-rank trace: 65% of its kernel time in NCCL, 29% of the window exposed, 19% of it Python outside
    any op (21% with its record_function regions): the communication decides, under the fixed 30% of old."""
    summary = summarise(real_trace("nccl_128rank_sampled_rank0.json.gz"))
    length = summary["window"]["dur_us"]
    exposed = 100 * summary["communication"]["exposed_us"] / length
    python = 100 * summary["idle"]["by_activity"]["python"]["idle_us"] / length
    assert python < exposed < verdict.EXPOSED_COMMUNICATION_PCT
    assert summary["verdict"] == "communication-bound"
    assert summary["verdict_basis"].startswith(f"communication that overlaps no computation: {exposed:.0f}% of the "
                                               "window, the largest cause of lost time (then ")


@pytest.mark.parametrize(("collectives", "expected"), [
    # 100 µs of one 270 µs wait for the host: the Python left (440 µs) outweighs the communication
    ([(371, 100)], "python-bound"),
    # most of both waits: the communication (470 µs) outweighs the Python left (70 µs)
    ([(371, 270), (701, 200)], "communication-bound"),
])
def test_exposed_communication_against_the_hosts_late_launches(collectives, expected):
    # the loop's window runs from 311 to 1031 µs, with the GPU waiting for Python at 371 and 701 for 270 µs
    t = training_loop(python_us=300, extra=[gpu("ncclKernel_AllReduce", start, dur, stream=20)
                                            for start, dur in collectives])
    summary = summarise(t)
    assert summary["communication"]["exposed_us"] == sum(dur for _, dur in collectives)
    assert summary["verdict"] == expected


def test_the_rules_are_tried_in_order_start_up_before_communication():
    """A window that is mostly set-up is start-up even with exposed communication in it."""
    trace = make(cpu("cudaFree", 0, 900, kind="runtime"), gpu("ncclKernel_AllReduce", 900, 100, stream=20))
    summary = summarise(trace, (0, 1000))
    assert (summary["verdict"], summary["verdict_basis"]) == (
        "start-up", "device set-up 90% of the window (at least 50%)")


def test_a_compute_bound_verdict_says_which_kernels_keep_the_gpu_busy():
    trace = make(gpu("ampere_bf16_s16816gemm_bf16_128x256_ldg8_f2f_stages_64x3_tn", 0, 90),
                 gpu("void at::native::vectorized_elementwise_kernel<4, at::native::FillFunctor<float> >", 90, 10))
    summary = summarise(trace)
    assert summary["verdict"] == "compute-bound"
    assert summary["verdict_text"].endswith("not from the host. 90% of kernel time in GEMMs, all on tensor cores "
                                            "in bf16; 10% in elementwise kernels.")


def test_the_verdict_is_a_function_of_the_measurements_alone():
    trace = training_loop(python_us=300)
    measured = measure(trace)
    name, label, basis = verdict.verdict(measured)
    summary = summarise(trace)
    assert (summary["verdict"], summary["verdict_basis"]) == (name, basis) == ("python-bound", basis)
    assert summary["verdict_text"] == verdict.verdict_text(name, label, host_split=False)
    imports = import_graph(ROOT / "profguide")["profguide.analysis.verdict"]
    assert not {module for module in imports if module.startswith(("profguide.trace", "profguide.analysis.rule"))}


def test_every_verdict_has_its_words_in_the_order_of_the_vocabulary():
    assert tuple(verdict.WORDS) == get_args(Verdict)
    for name, words in verdict.WORDS.items():
        assert words.when.endswith(".") and (words.text or words.host_text), name
    assert set(verdict.ACTIVITY_VERDICTS.values()) | set(verdict.HOST_ACTIVITY_VERDICTS.values()) <= set(verdict.WORDS)


def test_the_verdict_table_has_a_row_per_verdict_with_the_thresholds_that_decide_it():
    rows = verdict_table().splitlines()
    assert rows[:2] == ["| Verdict | When |", "|---|---|"]
    assert [row.split(" | ")[0] for row in rows[2:]] == [f"| `{name}`" for name in get_args(Verdict)]
    assert all(row.count("|") == 3 for row in rows)  # no pipe in the words splits a row
    table = "\n".join(rows)
    assert f"over {verdict.EXPOSED_COMMUNICATION_PCT}% of it on a GPU busy at least" in table
    assert "more of the window than any other cause of lost time" in table
    assert f"busy at least {verdict.COMPUTE_BOUND_BUSY_PCT}% of the window" in table
    assert f"at least {verdict.SYNC_STARTS_PCT}% of that wait began" in table
    assert f"takes at least {STARTUP_PCT}% of the window" in table


def test_the_reference_page_includes_the_generated_table_and_writes_none_of_its_own():
    page = (ROOT / "docs" / "reference" / "explain.md").read_text()
    assert '--8<-- "docs/generated/site/verdict-table.md"' in page
    assert "| Verdict | When |" not in page


INDUCTOR_CALL = "/tmp/torchinductor_alice/xq/cxqabc7pmumz.py(412): call"


def compiled_step(frame=INDUCTOR_CALL):
    """One step whose Python frame ``frame`` launches five kernels with cuLaunchKernel, 40 µs apart, each
    running 5 µs: the GPU waits for the host, which is inside the frame."""
    launches = [event for i in range(5) for event in (
        cpu("cuLaunchKernel", 20 + 40 * i, 4, kind="driver", correlation=i + 1),
        gpu(f"triton_poi_fused_{i}", 26 + 40 * i, 5, correlation=i + 1))]
    return make(cpu("ProfilerStep#1", 0, 250, kind="annotation"), cpu("train.py(30): step", 1, 240, kind="python"),
                cpu(frame, 10, 220, kind="python"), *launches)


def test_inductors_generated_wrapper_is_the_compiled_graphs_launch_overhead_not_user_python():
    summary = summarise(compiled_step())
    activities = summary["idle"]["by_activity"]
    assert activities["compiled"]["idle_us"] == max(row["idle_us"] for row in activities.values()) > 0
    assert activities["compiled"]["top"][0][0] == INDUCTOR_CALL and activities["python"]["idle_us"] == 0
    assert summary["verdict"] == "launch-bound"
    text = summary["verdict_text"]
    assert f"({INDUCTOR_CALL})" in text and "compiled graph's generated code" in text
    assert "torch.compile, batching" not in text  # it is compiled already


def test_a_named_python_frame_is_named_not_sought_with_stack():
    # The same step where the frame is the user's own: python-bound, pointing at it without asking to find it.
    summary = summarise(compiled_step("model.py(88): forward"))
    assert summary["verdict"] == "python-bound" and "model.py(88): forward" in summary["verdict_text"]
    assert "with_stack" not in summary["verdict_text"]
    # Python that no frame names still asks for with_stack.
    assert "with_stack=True" in summarise(training_loop(python_us=300))["verdict_text"]


def test_the_b200_traces_python_frame_is_named_not_sought(real_trace):
    summary = summarise(real_trace("b200_vllm_moe_tp8_rank0.json.gz"))
    assert summary["verdict"] == "python-bound" and "with_stack" not in summary["verdict_text"]
    assert "flashinfer/fused_moe/core.py" in summary["verdict_text"]


def test_a_sync_the_wait_did_not_begin_in_is_not_said_to_have_begun_it():
    # The GPU runs dry at 15 µs; the host enters a 480 µs stream sync at 20, and launches the next kernel at 505.
    t = make(cpu("cudaLaunchKernel", 0, 4, kind="runtime", correlation=1), gpu("a", 5, 10, correlation=1),
             cpu("cudaStreamSynchronize", 20, 480, kind="runtime"),
             cpu("cudaLaunchKernel", 505, 4, kind="runtime", correlation=2), gpu("b", 510, 10, correlation=2))
    summary = summarise(t)
    assert summary["idle"]["by_cause"]["sync"]["idle_us"] == 0  # the gap began before the sync
    assert summary["verdict"] == "sync-bound"
    assert summary["verdict_basis"].startswith("the GPU waiting for the host while the host was blocked in a "
                                               "synchronisation: ")
    assert "began in a synchronisation" not in summary["verdict_basis"]


def test_a_wait_that_began_in_a_sync_says_how_much_of_it_did():
    summary = summarise(training_loop(item=True, python_us=200))
    assert summary["verdict"] == "sync-bound"
    assert "of its wait for the host; at least 50% makes it sync-bound" in summary["verdict_basis"]


def test_the_b200_traces_inductor_wrapper_is_its_compiled_graphs_not_python(real_trace):
    activities = summarise(real_trace("b200_vllm_moe_tp8_rank0.json.gz"))["idle"]["by_activity"]
    (label, us), = activities["compiled"]["top"]
    assert label.startswith("/tmp/torchinductor_root/") and label.endswith(".py(132): call") and us > 0
    assert all(not name.startswith("/tmp/torchinductor_") for name, _ in activities["python"]["top"])
