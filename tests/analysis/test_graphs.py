"""profguide.analysis.graphs: replayed GPU ops attributed to their graph, node and capturing op; capture traces;
idle time under a replay; the advice to capture a graph withheld where graphs are in use."""

import numpy as np
import pytest

from profguide.analysis import graphs
from profguide.analysis.idle import idle_breakdown
from profguide.analysis.select import gpu_work
from profguide.analysis.summarise import summarise
from profguide.analysis.verdict import verdict_text
from profguide.render.explain import graph_lines
from profguide.trace.model import KIND, NO_ID
from tests.analysis.gpu_traces import Loop
from tests.helpers import event as cpu
from tests.helpers import gpu_event as gpu
from tests.helpers import make_trace as make

REPLAY = "mi300x_vllm_piecewise_graph_execution.json.gz"
CAPTURE = "mi300x_vllm_piecewise_graph_capture.json.gz"


def node(graph, number):
    return {"graph id": graph, "graph node id": number}


def test_the_loader_reads_graph_id_and_graph_node_id_on_kernels_memcpys_and_memsets():
    t = make(gpu("k", 0, 5, correlation=1, **node(7, 101)),
             gpu("Memcpy DtoD", 10, 5, kind="memcpy", correlation=1, **node(7, 102)),
             gpu("Memset", 20, 5, kind="memset", correlation=1, **node(7, "103")),  # a numeric string reads too
             gpu("eager", 30, 5, correlation=2))
    by_name = {t.names[t.name[i]]: (int(t.graph_id[i]), int(t.graph_node[i])) for i in range(len(t))}
    assert by_name == {"k": (7, 101), "Memcpy DtoD": (7, 102), "Memset": (7, 103), "eager": (NO_ID, NO_ID)}


def one_launch(kernels=50, kernel_us=9.0, gap_us=1.0, launch_us=500.0, start=10.0):
    """One cudaGraphLaunch call, still running while the GPU replays its ``kernels`` back to back."""
    events = [cpu("cudaGraphLaunch", 0, launch_us, kind="runtime", correlation=5)]
    events += [gpu(f"node{k}", start + k * (kernel_us + gap_us), kernel_us, correlation=5) for k in range(kernels)]
    return events


def test_graph_nodes_by_launch_where_the_trace_has_no_graph_ids():
    t = make(*one_launch(kernels=3), cpu("cudaLaunchKernel", 600, 3, kind="runtime", correlation=6),
             gpu("eager", 610, 5, correlation=6))
    ops, graph, node_of = graphs.graph_nodes(t)
    assert [t.names[t.name[i]] for i in ops] == ["node0", "node1", "node2"]  # the eager kernel is not replayed
    launch = graphs.graph_launches(t)
    assert set(graph.tolist()) == {int(np.flatnonzero(launch)[0])}
    assert node_of.tolist() == [0, 1, 2]


def test_graph_nodes_by_graph_id_need_no_launch_call():
    t = make(gpu("b", 20, 5, **node(3, 11)), gpu("a", 10, 5, **node(3, 10)), gpu("eager", 40, 5))
    ops, graph, node_of = graphs.graph_nodes(t)
    assert [t.names[t.name[i]] for i in ops] == ["a", "b"]
    assert graph.tolist() == [3, 3] and node_of.tolist() == [10, 11]
    use = graphs.graph_use(t, (0, 100))
    assert use is not None and use["graphs"] == 1 and use["replayed_ops"] == 2 and use["launches"] == 0


def test_idle_under_one_graph_launch_is_the_graphs_own_not_a_wait_for_the_host():
    """HolisticTraceAnalysis#290: a replayed graph read as idle on a saturated GPU. Here the launch call runs
    while its 50 kernels run back to back, 1 µs apart; the host launched them all at once."""
    t = make(*one_launch())
    summary = summarise(t)
    causes = summary["idle"]["by_cause"]
    assert causes["host"]["idle_us"] == 0 and causes["sync"]["idle_us"] == 0
    assert causes["queued"]["gaps"] == 49
    assert summary["verdict"] == "compute-bound"
    assert summary["graphs"]["replayed_ops"] == 50 and summary["graphs"]["launches"] == 1


def test_a_gap_before_the_first_node_of_a_late_graph_launch_is_still_the_hosts():
    late = [cpu("cudaGraphLaunch", 600, 50, kind="runtime", correlation=9),
            gpu("late0", 640, 9, correlation=9), gpu("late1", 650, 9, correlation=9)]
    t = make(*one_launch(kernels=3), *late)
    window = (float(t.ts[t.kind == KIND["kernel"]].min()), float(t.end[t.kind == KIND["kernel"]].max()))
    by_cause = idle_breakdown(t, window)["by_cause"]
    assert by_cause["host"]["gaps"] == 1  # before late0: the host had not launched its graph yet
    assert by_cause["queued"]["gaps"] == 3  # between the nodes of each graph


def launch_bound_loop(capture=False):
    """120 small ops, each 2 µs of GPU work after 10 µs on the host: the GPU waits for the host."""
    loop = Loop()
    for _ in range(120):
        loop.op(host_us=10.0, kernel_us=2.0)
    extra = []
    if capture:  # a capture before the loop, of one op whose launch is recorded and runs nothing
        extra = [cpu("cudaStreamBeginCapture", -50, 2, kind="runtime", correlation=900),
                 cpu("aten::relu", -45, 20),
                 cpu("cudaLaunchKernel", -40, 3, kind="runtime", correlation=901),
                 cpu("cudaStreamEndCapture", -20, 2, kind="runtime", correlation=902)]
    return loop.trace(*extra)


def test_a_capture_trace_is_said_to_be_one_and_never_told_to_capture_a_graph():
    plain, captured = summarise(launch_bound_loop()), summarise(launch_bound_loop(capture=True))
    assert plain["verdict"] == captured["verdict"] == "launch-bound"
    assert "tiny-launches" in [row["rule"] for row in plain["findings"]]
    assert "CUDA graphs cut the launches" in plain["verdict_text"]
    assert plain["graphs"] is None and graph_lines(plain["graphs"]) == []
    assert captured["graphs"]["captures"] == 1 and captured["graphs"]["captured_calls"] == 1
    assert "tiny-launches" not in [row["rule"] for row in captured["findings"]]
    assert "CUDA graphs cut" not in captured["verdict_text"] and "capture" not in captured["verdict_text"].split(
        "already captures")[1]
    assert graph_lines(captured["graphs"])[0].startswith("A capture trace: 1 stream capture recorded 1 launch call")


def test_captured_by_joins_each_replayed_node_to_the_op_that_recorded_it():
    capture = make(cpu("cudaStreamBeginCapture", 0, 2, kind="runtime", correlation=1),
                   cpu("aten::mm", 5, 20), cpu("cudaLaunchKernel", 10, 3, kind="runtime", correlation=2),
                   cpu("aten::relu", 30, 20), cpu("cudaLaunchKernel", 35, 3, kind="runtime", correlation=3),
                   cpu("cudaStreamEndCapture", 60, 2, kind="runtime", correlation=4))
    rows = graphs.captured_by(make(*one_launch(kernels=2)), capture)
    assert [(row["kernel"], row["node"], row["captured_by"]) for row in rows] == [
        ("node0", 0, "aten::mm"), ("node1", 1, "aten::relu")]
    # A capture of another graph (one node fewer) joins nothing rather than the wrong op.
    rows = graphs.captured_by(make(*one_launch(kernels=3)), capture)
    assert [row["captured_by"] for row in rows] == [None, None, None]
    assert graphs.capture_join(rows, "c.json") == {"file": "c.json", "replayed_ops": 3, "unmatched_ops": 3,
                                                   "by_op": []}


def test_capture_join_adds_each_capturing_ops_replayed_time_most_first():
    rows = [{"kernel": "k", "start_us": 0.0, "dur_us": dur, "graph": 0, "node": node, "captured_by": op}
            for node, (op, dur) in enumerate([("aten::mm", 5.0), ("aten::relu", 2.0), ("aten::mm", 7.0),
                                              (None, 9.0), ("aten::add", 1.0)])]
    join = graphs.capture_join(rows, "c.json", limit=2)
    assert join["replayed_ops"] == 5 and join["unmatched_ops"] == 1
    assert join["by_op"] == [{"op": "aten::mm", "ops": 2, "us": 12.0}, {"op": "aten::relu", "ops": 1, "us": 2.0}]


def test_the_real_replay_is_attributed_to_its_launches(real_trace):
    t = real_trace(REPLAY)
    launches = np.flatnonzero(graphs.graph_launches(t))
    assert len(launches) == sum(name == "hipGraphLaunch" for name in (t.names[c] for c in t.name[launches]))
    replayed = graphs.replayed(t)
    # By correlation: the trace writes no graph id (ROCm).
    assert (t.graph_id == NO_ID).all()
    assert (replayed == (np.isin(t.correlation, t.correlation[launches]) & gpu_work(t))).all()
    summary = summarise(t)
    use = summary["graphs"]
    assert use["launches"] == len(launches) and use["replayed_ops"] == int(replayed.sum())
    assert use["captures"] == 0 and use["graphs"] is None
    assert graph_lines(use)[0].startswith(f"CUDA graph replay: {use['replayed_ops']:,} GPU ops")


def test_the_real_capture_is_recognised_and_matches_its_replay(real_trace):
    capture, replay = real_trace(CAPTURE), real_trace(REPLAY)
    begins = sum(t == "hipStreamBeginCapture" for t in (capture.names[c] for c in capture.name))
    summary = summarise(capture)
    assert summary["graphs"]["captures"] == begins > 0
    # Every node the capture recorded is an op the replay ran, and no more.
    assert summary["graphs"]["captured_calls"] == int(graphs.replayed(replay).sum())
    advice = [summary["verdict_text"]] + [row["change"] for row in summary["findings"]]
    assert not any("capture the step in a CUDA graph" in text for text in advice)
    assert "tiny-launches" not in [row["rule"] for row in summary["findings"]]
    # Judged as a capture: it records more launches than kernels run, and no advice reads its idle time.
    kernels_run = sum(row["count"] for row in summary["kernel_families"])
    assert summary["graphs"]["captured_calls"] > kernels_run and summary["graphs"]["replayed_ops"] == 0
    assert summary["verdict"] == "graph-capture" and summary["gpu_busy_pct"] < 50
    assert {row["rule"] for row in summary["findings"]}.isdisjoint(
        {"gpu-utilisation-under-50pct", "long-gpu-gaps", "low-gpu-utilisation-stretch"})


def test_every_real_replayed_node_is_joined_to_the_op_that_captured_it(real_trace):
    rows = graphs.captured_by(real_trace(REPLAY), real_trace(CAPTURE))
    # Joined, the capturing ops' replayed time is the replay's own graph time, counted from the other trace.
    join = graphs.capture_join(rows, CAPTURE, limit=len(rows))
    use = summarise(real_trace(REPLAY))["graphs"]
    assert join["unmatched_ops"] == 0 and join["replayed_ops"] == use["replayed_ops"]
    assert sum(row["us"] for row in join["by_op"]) == pytest.approx(use["replayed_us"])
    assert rows and all(row["captured_by"] is not None for row in rows)
    assert len({row["graph"] for row in rows}) == len(graphs.captures(real_trace(CAPTURE)))
    # Inductor names a Triton kernel's launcher op after the kernel: there the two names must agree.
    triton = [row for row in rows if row["captured_by"].startswith("triton_")]
    assert triton and all(row["kernel"] == row["captured_by"] for row in triton)


@pytest.mark.parametrize("name", ["cudaGraphLaunch", "hipGraphLaunch", "cuGraphLaunch"])
def test_every_graph_launch_call_replays(name):
    t = make(cpu(name, 0, 5, kind="runtime" if name != "cuGraphLaunch" else "driver", correlation=1),
             gpu("k", 10, 5, correlation=1))
    assert graphs.replayed(t).sum() == 1


@pytest.mark.parametrize("name", ["launch-bound", "optimizer-bound"])
def test_the_verdicts_that_advise_a_graph_do_not_where_graphs_are_in_use(name):
    assert "CUDA graph" in verdict_text(name, "x", host_split=False)
    assert "capture the step" not in verdict_text(name, "x", host_split=False, uses_graphs=True)
    assert "CUDA graphs cut" not in verdict_text(name, "x", host_split=False, uses_graphs=True)


def test_unreadable_graph_ids_read_as_absent_and_replay_nothing():
    t = make(gpu("a", 0, 5, **{"graph id": [1, 2], "graph node id": {"x": 1}}),
             gpu("b", 10, 5, **{"graph id": 2**70, "graph node id": "zz"}))
    assert (t.graph_id == NO_ID).all() and (t.graph_node == NO_ID).all()
    assert summarise(t)["graphs"] is None
