"""profguide.render.fragments: the Markdown of the fragments, escaped, with provenance."""


import json

import pytest

from profguide.render import fragments as render
from tests.helpers import ROOT


def test_steps_table_compares_with_the_fastest():
    table = render.steps_table([{"step": 0, "dur_us": 300, "start_us": 0}, {"step": 1, "dur_us": 100,
                                                                           "start_us": 300}])
    assert "| 0 | 300 µs | 3.00 |" in table and "| 1 | 100 µs | 1.00 |" in table


META = {"device_name": "Some CPU", "torch": "2.13.0", "cuda": None, "python": "3.11.7",
        "recorded_at": "2026-11-29T16:00:00+00:00", "cpu_standin": True, "params": {"size": 8}, "ranks": 1,
        "recording": "rec"}
FACTS = {"window_us": 1000, "cpu_lanes": 1, "gpu_lanes": 0, "cpu_ops": 4, "kernel_count": 0,
         "kernel_time_us": 0, "top_kernels": [], "longest_sync": None}


def test_standin_figure_says_so_and_names_the_cpu():
    fragment = render.figure_fragment("t", META, FACTS, "docs/generated/rec/timeline.svg", [(1, "aten::mm")])
    assert fragment.startswith('!!! warning "CPU stand-in"')
    assert "t, over 1.00 ms: 1 CPU thread lane, no GPU stream lanes. 4 CPU ops and no GPU kernels." in fragment
    assert "Recorded on Some CPU · torch 2.13.0 · Python 3.11.7 · 2026-11-29 · size=8 ·" in fragment
    assert "(/generated/rec/trace.json.gz)" in fragment
    assert '<div class="pg-figure">\n--8<-- "docs/generated/rec/timeline.svg"\n</div>' in fragment
    assert '<button class="md-button pg-perfetto" data-trace="generated/rec/trace.json.gz"' in fragment
    assert "Numbered: <b>1</b> <code>aten::mm</code>." in fragment


def test_gpu_figure_has_no_standin_notice_and_names_cuda():
    meta = {**META, "cpu_standin": False, "device_name": "NVIDIA H200", "cuda": "12.8"}
    facts = {**FACTS, "gpu_lanes": 1, "kernel_count": 2, "kernel_time_us": 30,
             "top_kernels": [{"name": "gemm", "total_us": 20}],
             "longest_sync": {"name": "cudaDeviceSynchronize", "dur_us": 40}}
    fragment = render.figure_fragment("t", {**meta, "ranks": 2}, facts, "docs/generated/rec/timeline.svg")
    assert "stand-in" not in fragment and "(/generated/rec/trace-rank0.json.gz)" in fragment
    assert "2026-11-29 · 2 processes · size=8" in fragment
    assert "NVIDIA H200 · torch 2.13.0 · CUDA 12.8" in fragment
    assert "2 kernels ran for 30.0 µs in all" in fragment and "<code>cudaDeviceSynchronize</code>" in fragment


def test_calls_table_puts_each_call_against_the_fastest():
    table = render.calls_table([{"dur_us": 1000, "in_ops_us": 200}, {"dur_us": 50, "in_ops_us": 30}])
    assert "| 1 | 1.00 ms | 200 µs | 800 µs | 20.0 |" in table and "| 2 | 50.0 µs | 30.0 µs | 20.0 µs | 1.0 |" in table
    assert "GPU kernels" not in table
    on_gpu = render.calls_table([{"dur_us": 100, "in_ops_us": 50, "kernel_us": 10}, {"dur_us": 50, "in_ops_us": 25}])
    assert "| GPU kernels |" in on_gpu and "| 1 | 100 µs | 50.0 µs | 50.0 µs | 10.0 µs | 2.0 |" in on_gpu


def test_phases_table_counts_each_kind_and_names_unknown_ones():
    table = render.phases_table({"X": 8, "M": 8, "i": 2, "z": 1})
    lines = table.splitlines()
    assert lines[2].startswith("| <code>M</code> | metadata")
    assert lines[3].startswith("| <code>X</code> | complete event")
    assert "| <code>z</code> | another kind of event | 1 |" in table and table.endswith("|  | all events | 19 |\n")


def test_a_table_note_links_its_trace_and_says_when_it_stands_in():
    note = render.provenance_note(META)
    assert note.startswith("<small>Recorded on Some CPU") and "<strong>CPU stand-in</strong>" in note
    assert note.endswith(" · [download the trace](/generated/rec/trace.json.gz)</small>\n")
    assert "trace-rank0.json.gz" in render.provenance_note({**META, "ranks": 4, "cpu_standin": False})


RESULTS = {
    "date": "2026-11-30T02:29:05", "machine": "x86_64, 2 CPUs", "hta_version": "0.5.0", "profguide_version": "0.1.0",
    "msgspec_version": "0.23.0", "repeats": 3,
    "trace": {"source": "a.json.gz", "events": 1_000_000, "bytes": 200 << 20, "copies": 10},
    "tools": {name: {"ok": 3, "wall_s_median": wall, "cpu_s_median": wall, "maxrss_mib_median": mib,
                     "result": result}
              for name, wall, mib, result in (("decode", 2.0, 700, None), ("profguide", 1.8, 150, {"gpu_idle_pct": 70}),
                                              ("hta", 36.0, 1400, {"idle_pct": 70.1}))},
    "ratios": {"explain_over_decode_time": 0.9, "hta_over_profguide_time": 20.0, "profguide_over_hta_memory": 0.107,
               "draw_over_explain_time": 1.1},
    "scaling": [{"copies": 1, "events": 100_000, "explain_s": 0.5, "decode_s": 0.3},
                {"copies": 10, "events": 1_000_000, "explain_s": 1.8, "decode_s": 2.0}],
}


def test_the_benchmark_fragment_quotes_the_results_file():
    text = render.benchmark_fragment(RESULTS, "docs/generated/site/x.svg")
    assert "| `profguide explain --json` | 1.80 s | 1.80 s | 150 MiB | 70.00% |" in text
    assert "| HolisticTraceAnalysis 0.5.0: load + temporal breakdown | 36.00 s |" in text
    assert "`draw`" in text and "| `profguide draw`" not in text  # a tool that did not run has no row
    assert "took **0.90×** the time of decoding" in text and "**20.0× faster** than HTA in **0.11×**" in text
    assert '--8<-- "docs/generated/site/x.svg"' in text and "1 to 10 copies" in text
    assert render.scaling_series(RESULTS)[0] == ("profguide explain", [(100_000, 0.5), (1_000_000, 1.8)])


def test_the_benchmark_fragment_says_which_goals_the_run_meets():
    slow = {**RESULTS, "ratios": {**RESULTS["ratios"], "hta_over_profguide_time": 13.7}}
    assert "| `explain` at least 15× faster than HTA | 20.00× | ✓ yes |" in render.benchmark_fragment(RESULTS, "x.svg")
    assert "| `explain` at least 15× faster than HTA | 13.70× | ✗ no |" in render.benchmark_fragment(slow, "x.svg")


REAL_META = {"real": True, "recording": "real", "file": "docs/traces/job<1>.json.gz", "device_name": "NVIDIA A100",
             "source": "HTA test data", "source_url": "https://example.org/hta", "licence": "MIT", "rank": 0,
             "world_size": 16, "device": "cuda"}


def test_a_real_trace_names_its_file_device_source_and_licence_never_a_recording_of_ours():
    line = render.provenance_line(REAL_META)
    assert line == ("A trace from another project: <code>job&lt;1&gt;.json.gz</code>, made on NVIDIA A100, rank 0 of "
                    "16 · source: [HTA test data](https://example.org/hta) · licence: MIT")
    assert render.trace_url(REAL_META) == "traces/job<1>.json.gz"  # served from docs/traces, not docs/generated
    assert "rank" not in render.provenance_line({**REAL_META, "rank": None, "world_size": None})


def test_tflops_table_against_the_datasheet():
    rows = [{"op": "aten::mm", "input_dims": "[[8192, 8192], [8192, 8192]]", "dtype": "c10::BFloat16", "calls": 2,
             "flops": 2 * 2 * 8192**3, "kernel_us": 3000.0, "tflops": 733.0, "peak_tflops": 989.4,
             "pct_of_peak": 74.1},
            {"op": "aten::addmm", "input_dims": "[[8], [4, 4], [4, 8]]", "dtype": "float", "calls": 1, "flops": 256,
             "kernel_us": 0.0, "tflops": None, "peak_tflops": None, "pct_of_peak": None}]
    table = render.tflops_table(rows, "NVIDIA H200")
    assert "| Peak, NVIDIA H200 |" in table.splitlines()[0]
    assert "| <code>aten::mm</code> | &#91;&#91;8192, 8192&#93;, &#91;8192, 8192&#93;&#93; " \
           "| <code>c10::BFloat16</code> | 2 | 1,099.5 | 3.00 ms | 733.0 TFLOP/s | 989.4 TFLOP/s | 74% |" in table
    assert "| – | not in profguide's table | – |" in table


def test_call_tree_indents_by_depth_folds_repeated_leaves_and_shows_what_was_launched():
    entries = [{"depth": 0, "name": "case", "dur_us": 30.0, "launched": []},
               {"depth": 1, "name": "aten::mm", "dur_us": 20.0, "launched": []},
               {"depth": 2, "name": "aten::resolve_conj", "dur_us": 1.0, "launched": []},
               {"depth": 2, "name": "aten::resolve_conj", "dur_us": 2.0, "launched": []},
               {"depth": 2, "name": "cudaLaunchKernel", "dur_us": 5.0, "launched": [("void gemm_kernel<1>(int)", 9.0)]},
               {"depth": 2, "name": "cudaLaunchKernel", "dur_us": 4.0, "launched": [("elementwise_kernel", 2.0)]}]
    lines = render.call_tree(entries).splitlines()
    assert [line.split("  ")[0] for line in lines] == ["case", "", "", "", "", "", ""]
    assert lines[2].split() == ["aten::resolve_conj", "×2", "3.0", "µs"]  # two leaves, one line, time summed
    assert lines[4].strip().startswith("→ gemm_kernel") and lines[4].split()[-2:] == ["9.0", "µs"]
    assert len([line for line in lines if "cudaLaunchKernel" in line]) == 2  # launches are never folded


def test_occupancy_table_counts_launches_by_family_and_by_kernel():
    found = {"queries": 3, "next": {"gemm": 3},
             "launched": [("cutlass_80_gemm", "gemm", True), ("cutlass_80_gemm", "gemm", True),
                          ("xmma_gemm_cudnn", "gemm", False), ("elementwise_kernel", "elementwise", False)]}
    text = render.occupancy_table(found)
    assert "| matrix multiply (cuBLAS, CUTLASS, cuDNN) | 3 | 2 (67%) |" in text
    assert "| elementwise (PyTorch) | 1 | 0 (0%) |" in text and "| other |" not in text
    first, second = "cutlass&#95;80&#95;gemm</code> | 2 | 2 (100%)", "xmma&#95;gemm&#95;cudnn</code> | 1 | 0 (0%)"
    assert text.index(first) < text.index(second)
    assert text.rstrip().endswith("3 occupancy queries in all.")


def test_occupancy_table_counts_a_group_of_kernels_on_one_row_with_its_names():
    found = {"queries": 1, "next": {"gemm": 1},
             "launched": [("cudnn_fprop_a", "gemm", False), ("cudnn_wgrad_b", "gemm", False),
                          ("cudnn_fprop_a", "gemm", False), ("ampere_sgemm_32x128_nt", "gemm", True)]}
    text = render.occupancy_table(found, lambda name: "convolution kernels, cuDNN" if "cudnn" in name else None)
    assert "| convolution kernels, cuDNN (2 names) | 3 | 0 (0%) |" in text
    assert "ampere&#95;sgemm&#95;32x128&#95;nt</code> | 1 | 1 (100%) |" in text and "cudnn&#95;" not in text


def test_call_tree_lines_its_times_up_after_the_longest_name_and_cuts_what_is_longer_still():
    graph = "## Call CompiledFxGraph " + "h" * 52 + " ##"  # 80 characters, as Inductor names its graphs
    entries = [{"depth": 0, "name": "compiled", "dur_us": 30.0, "launched": []},
               {"depth": 1, "name": graph, "dur_us": 20.0, "launched": []}]
    lines = render.call_tree(entries).splitlines()
    assert len({line.rindex("µs") for line in lines}) == 1 and graph in lines[1]
    longer = render.call_tree(entries, widest=40).splitlines()
    assert longer[1].startswith("  ## Call CompiledFxGraph") and "…" in longer[1] and len(longer[1]) == 40 + 11


@pytest.mark.parametrize(("speedup", "words"), [(1.7, "1.70×, ✓ met"), (1.2, "1.20×, ✗ not met")])
def test_the_ranks_benchmark_says_whether_two_cores_meet_the_goal(speedup, words):
    row = {"ranks": 128, "bytes": 2**30, "explain_1core_wall_s": 4.0, "explain_2core_wall_s": 4.0 / speedup,
           "explain_speedup": speedup, "draw_speedup": 1.1, "explain_2core_maxrss_mib": 37.0,
           "explain_2core_workers_maxrss_mib": 38.0, "same_answer": True}
    small = {**row, "ranks": 8, "explain_speedup": 9.0}
    text = render.ranks_benchmark_fragment({"rows": [small, row], "date": "2026-12-01T00:00", "machine": "m",
                                            "repeats": 3, "load_average_before": [0.1, 0.1, 0.1]})
    assert f"`explain DIR` of 128 ranks at least {render.RANKS_SPEEDUP_GOAL:g}× faster on two cores than on one: " \
           f"{words}." in text
    assert "| 128 | 1,024 MiB | 4.00 s |" in text


def test_the_layout_benchmark_says_whether_memory_follows_the_events():
    layouts = {key: {"peak_rss_mib": mib, "wall_s": 1.0} for key, mib in (("lines", 100), ("one line", 120),
                                                                         ("padding", 400))}
    ratios = {"one line_over_lines_peak_rss_mib": 1.2, "padding_over_lines_peak_rss_mib": 4.0}
    results = {"after": {"layouts": layouts, "ratios": ratios}, "checkouts": {"after": "abc1234"},
               "trace": {"source": "t.json.gz", "bytes": {"lines": 2**20, "one line": 2**20, "padding": 1024}},
               "date": "2026-12-01T00:00", "machine": "m", "repeats": 3}
    text = render.layout_benchmark_fragment(results)
    assert "| the same events on one line: peak memory at most 1.3× that of one event per line | 1.20× | ✓ yes |" \
        in text
    assert "| a few of them in gzip padding: peak memory at most 1.3× that of one event per line | 4.00× | ✗ no |" \
        in text
    assert "*before*" not in text


def test_the_diff_benchmark_says_which_goal_the_run_met():
    results = json.loads((ROOT / "benchmarks" / "results" / "diff_and_rules.json").read_text())
    text = render.diff_benchmark_fragment(results)
    assert f"{results['diff_s']:.2f} s" in text and f"{results['diff_over_explain']:.2f}×" in text
    slow = {**results, "diff_over_explain": results["diff_goal"] + 0.1, "rules_over_explain": results["rules_goal"]}
    lines = render.diff_benchmark_fragment(slow).splitlines()
    assert next(line for line in lines if "`diff A B" in line).endswith("✗ |")
    assert next(line for line in lines if "the rules" in line).endswith("✓ |")  # at the goal is within it


def hta_comparison(name, hta_idle, by_rule, rounded=True, window_us=1000.0, gpu_ops=10):
    reference = {"idle_pct_exact": hta_idle, "ts_rounded_to_us": rounded}
    return render.HtaComparison(name, "GPU", window_us, gpu_ops, by_rule, by_rule, reference)


def test_the_hta_agreement_names_what_falls_outside_the_bound_and_what_hta_cannot_read():
    comparisons = [hta_comparison("close.json.gz", 50.5, 50.0), hta_comparison("far.json.gz", 13.0, 10.0),
                   hta_comparison("whole.json.gz", 40.0, 40.0, rounded=False),
                   render.HtaComparison("broken.json.gz", None, None, 0, None, None, {"error": "IndexError"})]
    text = render.hta_agreement_fragment(comparisons, {"hta_version": "0.5.0", "obtained": "once"})
    assert "HTA reads 3 of these 4 traces. On 2 of them the idle share by its rule is within 2 percentage points" \
        in text
    assert "; on <code>far.json.gz</code> HTA's is 3.00 points higher." in text
    assert "| <code>whole.json.gz</code> | GPU | whole µs | 40.00% | 40.00% | +0.00 | – |" in text
    assert "| <code>close.json.gz</code> | GPU | sub-µs | 50.50% | 50.00% | +0.50 | +0.50 µs |" in text
    assert "never lower, and higher by at most 3.00 µs of idle time per GPU op" in text
    assert "HTA stops with an error on <code>broken.json.gz</code>" in text
    assert "| <code>broken.json.gz</code> | no GPU work | – | fails |" in text


def test_every_generated_table_starts_a_block_of_its_own():
    # Markdown reads a table only after a blank line: one glued to a paragraph shows as a line of pipes.
    glued = []
    for path in sorted((ROOT / "docs" / "generated").rglob("*.md")):
        lines = path.read_text().splitlines()
        glued += [f"{path.relative_to(ROOT)}:{n + 1}" for n in range(1, len(lines) - 1)
                  if lines[n].startswith("|") and lines[n + 1].startswith("|---") and lines[n - 1].strip()]
    assert not glued


def test_the_transformers_benchmark_lists_the_largest_additions_then_the_rest_and_the_total():
    added = [{"name": name, "version": "1.0", "bytes": size * 2**20, "files": 1}
             for name, size in (("transformers", 100), ("tokenizers", 10), ("regex", 2), ("tqdm", 1))]
    results = {"transformers": {"added": added, "added_bytes": 113 * 2**20, "import_repeats": 5,
                                "import_seconds": {"transformers": 3.0, "hand-written": 0.002}},
               "date": "2026-12-01T00:00", "machine": "m"}
    text = render.transformers_benchmark_fragment(results, largest=2)
    assert "| `tokenizers` 1.0 | 10 MiB |" in text
    assert "| 2 more | 3 MiB |" in text and "regex" not in text
    assert "| **All 4** | **113 MiB** |" in text
    assert "Llama model took 3.00 s; importing the guide's decoder took 2 ms (medians of 5 fresh processes)" in text
