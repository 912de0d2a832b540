"""profguide.render: geometry, escaping, determinism and the Markdown it writes."""


from profguide.site import render

ROWS = [
    {"name": "aten::add", "count": 1, "self_cpu_us": 5, "cpu_total_us": 5, "self_device_us": 2,
     "device_total_us": 2},
    {"name": "aten::mm", "count": 1, "self_cpu_us": 9, "cpu_total_us": 10, "self_device_us": 80,
     "device_total_us": 80},
]


def test_averages_table_sorts_by_device_time_when_there_is_some():
    table = render.averages_table(ROWS)
    assert "Device total" in table
    assert table.index("aten::mm") < table.index("aten::add")


def test_averages_table_without_device_time_has_no_device_columns():
    cpu_rows = [{**row, "self_device_us": 0, "device_total_us": 0} for row in ROWS]
    table = render.averages_table(cpu_rows)
    assert "Device" not in table
    assert table.index("aten::mm") < table.index("aten::add")  # by CPU total


def test_steps_table_compares_with_the_fastest():
    table = render.steps_table([{"step": 0, "dur_us": 300, "start_us": 0}, {"step": 1, "dur_us": 100,
                                                                           "start_us": 300}])
    assert "| 0 | 300 µs | 3.00 |" in table and "| 1 | 100 µs | 1.00 |" in table


META = {"device_name": "Some CPU", "torch": "2.13.0", "cuda": None, "python": "3.11.7",
        "recorded_at": "2026-11-29T16:00:00+00:00", "cpu_standin": True}
FACTS = {"window_us": 1000, "cpu_lanes": 1, "gpu_lanes": 0, "cpu_ops": 4, "kernel_count": 0,
         "kernel_time_us": 0, "top_kernels": [], "longest_sync": None}


def test_standin_figure_says_so_and_names_the_cpu():
    fragment = render.figure_fragment("rec", "t", META, FACTS, "<svg/>", [(1, "aten::mm")])
    assert fragment.startswith('!!! warning "CPU stand-in"')
    assert "t, over 1.00 ms: 1 CPU thread lane, no GPU stream lanes. 4 CPU ops and no GPU kernels." in fragment
    assert "Recorded on Some CPU · torch 2.13.0 · Python 3.11.7 · 2026-11-29" in fragment
    assert "(/generated/rec/trace.json.gz)" in fragment
    assert '<div class="pg-figure">\n<svg/>\n</div>' in fragment
    assert '<button class="md-button pg-perfetto" data-trace="generated/rec/trace.json.gz"' in fragment
    assert "Numbered: <b>1</b> <code>aten::mm</code>." in fragment


def test_gpu_figure_has_no_standin_notice_and_names_cuda():
    meta = {**META, "cpu_standin": False, "device_name": "NVIDIA H200", "cuda": "12.8"}
    facts = {**FACTS, "gpu_lanes": 1, "kernel_count": 2, "kernel_time_us": 30,
             "top_kernels": [{"name": "gemm", "total_us": 20}],
             "longest_sync": {"name": "cudaDeviceSynchronize", "dur_us": 40}}
    fragment = render.figure_fragment("rec", "t", meta, facts, "<svg/>")
    assert "stand-in" not in fragment
    assert "NVIDIA H200 · torch 2.13.0 · CUDA 12.8" in fragment
    assert "2 kernels ran for 30.0 µs in all" in fragment and "<code>cudaDeviceSynchronize</code>" in fragment
