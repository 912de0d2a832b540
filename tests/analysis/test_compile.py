"""profguide.analysis.compile: what torch.compile leaves in a trace, and each step's ops and kernels."""

from profguide.analysis import compile as compiled
from tests.helpers import event as cpu
from tests.helpers import gpu_event as gpu
from tests.helpers import make_trace as make

GRAPH = "## Call CompiledFxGraph abc ##"


def broken_step(start, number):
    """One step of a function with a graph break: frame 0's region holds its graph, eager code (20 µs) and the
    region of the frame Dynamo resumed in, 1/0, with its own graph."""
    return [cpu(f"ProfilerStep#{number}", start, 100, kind="annotation"),
            cpu("Torch-Compiled Region: 0/0", start + 5, 80),
            cpu(GRAPH, start + 10, 20),
            cpu("aten::add", start + 35, 5),
            cpu("Torch-Compiled Region: 1/0", start + 50, 30),
            cpu(GRAPH, start + 55, 20)]


def test_compile_markers_on_a_gpu_trace():
    t = make(cpu("Torch-Compiled Region: 0/0", 0, 100),
             cpu("cuLaunchKernel", 1, 2, kind="driver", correlation=1),
             cpu("cudaGraphLaunch", 10, 2, kind="runtime"),
             gpu("triton_poi_fused_add_0", 5, 3, correlation=1),
             gpu("ampere_sgemm_128x64_tn", 10, 9))
    found = compiled.compile_markers(t)
    assert (found["compiled_regions"], found["compiled_region_us"], found["triton_kernels"],
            found["cuda_graph_launches"], found["driver_launches"]) == (1, 100, 1, 1, 1)
    assert found["triton_pct"] == 25 and found["window"] == "the host's activity"
    assert found["eager_gaps"] is None  # without ProfilerSteps, consecutive calls are not one step


def test_a_graph_break_is_an_eager_gap_inside_one_step():
    found = compiled.compile_markers(make(*broken_step(0, 1), *broken_step(100, 2)))
    assert found["compiled_regions"] == 4 and found["graph_calls"] == 4
    assert [(gap["step"], gap["dur_us"]) for gap in found["eager_gaps"]] == [(1, 20), (2, 20)]  # 30 → 50
    assert found["compiled_region_pct"] == 80  # the outer regions, 80 of each 100 µs step
    assert compiled.compile_markers(make(*broken_step(0, 1), *broken_step(100, 2)), (100, 200))["eager_gaps"] == [
        {"step": 2, "start_us": 130, "dur_us": 20}]


def test_compilations_and_recompilations_are_counted_by_compile_id():
    t = make(cpu("ProfilerStep#1", 0, 1000, kind="annotation"),
             cpu("dynamo", 10, 400), cpu("dynamo_data: compile_id=0/0", 11, 1, kind="annotation"),
             cpu("Torch-Compiled Region: 0/0", 420, 50),
             cpu("dynamo", 500, 300), cpu("dynamo_data: compile_id=0/1", 501, 1, kind="annotation"),
             cpu("Torch-Compiled Region: 0/1", 820, 50))
    found = compiled.compile_markers(t)
    assert (found["compilations"], found["recompilations"], found["compile_us"]) == (2, 1, 700)
    assert found["compile_pct"] == 70


def test_step_counts_and_names_per_step_count_ops_and_launched_kernels():
    t = make(cpu("ProfilerStep#1", 0, 50, kind="annotation"),
             cpu("aten::addmm", 1, 10), cpu("Torch-Compiled Region: 0/0", 12, 20),
             cpu("cuLaunchKernel", 14, 2, kind="driver", correlation=7),
             gpu("triton_per_fused_native_layer_norm_0", 60, 5, correlation=7),  # runs after the step ends
             cpu("ProfilerStep#2", 50, 50, kind="annotation"), cpu("aten::addmm", 51, 10))
    assert [(row["ops"], row["aten_ops"], row["kernels"]) for row in compiled.step_counts(t)] == [(2, 1, 1), (1, 1, 0)]
    assert compiled.names_per_step(t, "cpu_op") == {"aten::addmm": 1, "Torch-Compiled Region: 0/0": 0.5}
    assert compiled.names_per_step(t, "kernel") == {"triton_per_fused_native_layer_norm_0": 0.5}


def test_the_real_triton_trace_is_all_triton(real_trace):
    found = compiled.compile_markers(real_trace("a100_triton_culaunch.json.gz"))
    assert found["triton_kernels"] >= 1 and found["triton_pct"] == 100 and found["cuda_graph_launches"] == 0
