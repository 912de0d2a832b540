"""``profguide.analysis.diff``: two traces' facts side by side, on the guide's pairs of runs and real traces."""

import shutil

import pytest

from profguide.analysis.diff import file_sides, folder_sides, job_diff, paths_diff, side_of, trace_diff
from profguide.errors import UsageError
from profguide.text import format_duration
from tests.analysis.gpu_traces import old_schema_loop
from tests.helpers import ROOT, TRACES, event, gpu_event, make_trace, real_ranks

GENERATED = ROOT / "docs" / "generated"


def recording(name):
    return GENERATED / name / "trace.json.gz"


def test_workers_take_data_loading_off_the_step_and_change_the_verdict():
    found = trace_diff(*file_sides(recording("reading-input-workers-0"), recording("reading-input-workers-2")))
    assert (found["before"]["verdict"], found["after"]["verdict"]) == ("input-bound", "host-compute-bound")
    assert found["verdict_changed"] and found["per"] == "step"
    loading = found["host_us"]["data loading"]
    assert loading["after"] < loading["before"] / 2
    assert found["step_us"]["after"] < found["step_us"]["before"]
    # the sentence names the largest change and quotes the numbers the diff holds
    assert found["sentence"].startswith("The time spent loading data fell: ")
    for value in (loading["before"], loading["after"], found["step_us"]["before"], found["step_us"]["after"]):
        assert format_duration(value) in found["sentence"]


def test_compiling_fuses_ops_away():
    found = trace_diff(*file_sides(recording("compile-fusion-eager"), recording("compile-fusion-compiled")))
    removed = {row["name"] for row in found["ops"] if row["status"] == "removed"}
    assert removed, "some eager ops are gone once compiled"
    assert found["kernels_matched_by"] == "none"  # recorded on the CPU: no kernels
    changes = [abs(row["change_us"]) for row in found["ops"]]
    assert changes == sorted(changes, reverse=True)


def test_a_real_gpu_trace_against_itself_through_a_link_changes_nothing(tmp_path):
    real = TRACES / "a100_80gb_nccl_16rank_rank0.json.gz"
    (tmp_path / "link.json.gz").symlink_to(real)
    found = trace_diff(*file_sides(real, tmp_path / "link.json.gz"))
    assert found["same_input"] and not found["verdict_changed"]
    assert found["kernels"] and {row["status"] for row in found["kernels"]} == {"same"}
    assert found["step_us"]["change"] == 0 and found["launches"]["ratio"] == 1
    assert found["sentence"] == "The same trace on both sides: nothing changed."


def test_a_copy_of_a_trace_is_read_apart_and_still_the_same(tmp_path):
    real = TRACES / "a100_cuda_event_sync.json.gz"
    shutil.copy(real, tmp_path / "copy.json.gz")
    found = trace_diff(*file_sides(real, tmp_path / "copy.json.gz"))
    assert not found["same_input"]
    assert all(row["change_us"] == 0 for row in found["kernels"] + found["ops"])
    assert all(row["change"] == 0 for row in found["host_us"].values())


def test_nvidia_against_amd_matches_kernels_by_role():
    found = trace_diff(*file_sides(TRACES / "a100_80gb_nccl_16rank_rank0.json.gz", TRACES / "mi250_rocm.json.gz"))
    assert found["kernels_matched_by"] == "role"
    assert min(found["shared_kernel_pct"]) < 50
    assert {row["name"] for row in found["kernels"]} <= {"gemm", "convolution", "attention", "triton", "elementwise",
                                                         "reduction", "normalization", "copy", "communication",
                                                         "other"}


def stepped(steps, kernels_per_step=2):
    """A trace of ``steps`` ProfilerSteps, each launching ``kernels_per_step`` 30 µs kernels back to back, with
    10 µs of idle GPU before and after them."""
    events, correlation, length = [], 0, 20 + 30 * kernels_per_step
    for step in range(steps):
        start = 1000 + length * step
        events.append(event(f"ProfilerStep#{step}", start, length, kind="annotation"))
        for k in range(kernels_per_step):
            correlation += 1
            events.append(event("cudaLaunchKernel", start + 1 + k, 1, kind="runtime", correlation=correlation))
            events.append(gpu_event("gemm_kernel", start + 10 + 30 * k, 30, correlation=correlation))
    return make_trace(*events)


def test_runs_of_different_lengths_compare_per_step():
    found = trace_diff(side_of(stepped(5), "five"), side_of(stepped(3), "three"))
    assert found["per"] == "step"
    (row,) = found["kernels"]
    assert (row["status"], row["before_count"], row["after_count"], row["change_us"]) == ("same", 2, 2, 0)
    assert found["launches"]["before"] == found["launches"]["after"] == 2


def test_a_kernel_fewer_per_step_is_the_sentence():
    found = trace_diff(side_of(stepped(4, 2), "two"), side_of(stepped(4, 1), "one"))
    (row,) = found["kernels"]
    assert (row["status"], row["before_count"], row["after_count"]) == ("changed", 2, 1)
    assert found["sentence"].startswith(
        "`gemm_kernel` took less time: 60.0 µs → 30.0 µs per step (2 kernels → 1 kernel)")


def test_without_steps_counts_compare_over_the_window(tmp_path):
    unstepped = make_trace(event("aten::mm", 5, 10), event("cudaLaunchKernel", 10, 1, kind="runtime", correlation=1),
                           gpu_event("gemm_kernel", 20, 30, correlation=1))
    found = trace_diff(side_of(unstepped, "a"), side_of(stepped(3), "b"))
    assert found["per"] == "window" and found["before"]["step_is"].startswith("explain's window")
    (row,) = found["kernels"]
    assert (row["before_count"], row["after_count"]) == (1, 6)  # totals, not per step


def test_old_schema_runs_without_steps_compare_per_iteration_the_right_way_round():
    """workers=0 profiled for 5 iterations, workers=4 for 20: their windows, 4 slow iterations against 19 fast
    ones, would say the faster run got slower; per steady iteration it is four times faster."""
    found = trace_diff(side_of(make_trace(*old_schema_loop(0, iterations=5)), "workers0"),
                       side_of(make_trace(*old_schema_loop(4, iterations=20)), "workers4"))
    assert (found["before"]["verdict"], found["after"]["verdict"]) == ("input-bound", "compute-bound")
    assert found["before"]["window_us"] < found["after"]["window_us"]
    assert found["per"] == "step" and found["before"]["step_is"].startswith("the median iteration")
    assert found["step_us"]["after"] < found["step_us"]["before"] / 3
    conv = next(row for row in found["kernels"] if row["name"] == "aten::conv2d_kernel")
    assert conv["before_count"] == conv["after_count"] == 5  # per iteration, not over the windows
    assert "step time" in found["sentence"] and "(−" in found["sentence"]


def test_one_worker_reads_the_sides_one_after_the_other_to_the_same_answer(tmp_path):
    before, after = recording("reading-input-workers-0"), recording("reading-input-workers-2")
    assert trace_diff(*file_sides(before, after, workers=1)) == trace_diff(*file_sides(before, after))


def test_folders_match_ranks_by_number(tmp_path):
    before, after = real_ranks(tmp_path / "a"), real_ranks(tmp_path / "b")
    found = job_diff(*folder_sides(before, after, workers=1))
    assert [row["rank"] for row in found["ranks"]] == [0, 1]
    assert not found["verdict_changed"]
    assert all(row["step_us"]["change"] == 0 and row["before_verdict"] == row["after_verdict"]
               for row in found["ranks"])


def test_a_folder_against_a_file_is_a_usage_error(tmp_path):
    with pytest.raises(UsageError, match="is a folder and"):
        paths_diff(real_ranks(tmp_path / "a"), TRACES / "mi250_rocm.json.gz")


def test_the_fixed_loop_lists_the_rules_it_no_longer_fires_and_counts_a_reshaped_op_as_one():
    before, after = file_sides(recording("reading-anti-patterns"), recording("reading-anti-patterns-fixed"))
    found = trace_diff(before, after)
    # The loop (snippets/reading_output/anti_patterns.py) makes six mistakes and the fixed one none. On the CPU, where
    # both ran, five of them show: the convolution's bias before a batch norm, bf16 matrix multiplies of 100 (not
    # a multiple of 8), DataParallel, the single-tensor optimizer and zeroed gradients. The sixth, a tensor made
    # on the CPU and copied to the device, copies nothing on a CPU. So those five are gone, and none is new or kept.
    assert sorted(found["rules"]["gone"]) == ["conv-bias-before-batch-norm", "data-parallel",
                                              "half-matmul-not-multiple-of-8", "single-tensor-optimizer",
                                              "zero-grad-zeroes"]
    assert found["rules"]["new"] == [] and found["rules"]["kept"] == []
    assert ", ".join(found["rules"]["gone"]) in found["sentence"]
    # the convolution's shapes changed (no bias): by name and shapes it is one row gone and one new, but the
    # sentence speaks of ops by name, and no op by name is new or gone
    assert "is new" not in found["sentence"] and "is gone" not in found["sentence"]


def test_kernel_changes_say_what_the_names_say_differs():
    from profguide.analysis.diff import kernel_changes

    before = "sm90_xmma_gemm_bf16bf16_bf16f32_f32_tn_n_tilesize64x64x64_warpgroupsize1x1x1_execute_segment_k_off"
    after = "sm90_xmma_gemm_bf16bf16_bf16f32_f32_nt_n_tilesize128x128x64_warpgroupsize1x1x1_execute_segment_k_off"
    assert kernel_changes(before, after) == ["layout tn → nt", "tile 64x64x64 → 128x128x64"]
    assert kernel_changes(before, before) == []


def test_an_op_on_both_sides_compares_its_share_of_the_roof_and_its_kernel():
    bert = TRACES / "h100_bert_small_inference.json.gz"
    found = trace_diff(*file_sides(bert, TRACES / "mi300x_bert_small_inference.json.gz"))
    rows = {(row["name"], row["shapes"]): row for row in found["roofline"]}
    addmm = rows["aten::addmm", "[[512], [141, 512], [512, 512], [], []]"]
    assert addmm["fraction"]["before"] is not None and addmm["fraction"]["after"] is not None
    assert addmm["kernels"][0].startswith("void cutlass") and addmm["kernels"][1].startswith("Cijk_")
    assert "library CUTLASS → hipBLASLt/Tensile" in addmm["kernel_changes"]
    same = trace_diff(*file_sides(bert, bert))
    assert all(row["fraction"]["change"] == 0 and not row["kernel_changes"] for row in same["roofline"])
