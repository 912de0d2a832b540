"""profguide.analysis.footprint: each kernel's resource footprint and occupancy by name, on real traces and on
hand-made ones in the format of kineto#1330 (an ``occupancy`` object with ``limitingFactors``)."""

import json

import pytest

from profguide.analysis import footprint
from profguide.analysis.kernel_resources import kernel_launches, recorded_limits
from tests.helpers import TRACES
from tests.helpers import event as cpu
from tests.helpers import gpu_event as gpu
from tests.site.measures.test_kernels import H100


def kernel(name, ts, dur, correlation, threads=128, grid=264, registers=32, shared=0, **args):
    return gpu(name, ts, dur, correlation=correlation, device=0, block=[threads, 1, 1], grid=[grid, 1, 1],
               **{"registers per thread": registers, "shared memory": shared, **args})


def rows_of(tmp_path, *events):
    path = tmp_path / "trace.json"
    path.write_text(json.dumps({"traceEvents": list(events), "deviceProperties": [H100]}))
    return {row["name"]: row for row in footprint.footprint_rows(path)}


def test_rows_are_by_name_most_time_first_with_the_recorded_occupancy_weighted_by_time(tmp_path):
    rows = rows_of(tmp_path, kernel("short", 0, 1, 1, **{"est. achieved occupancy %": 90}),
                   kernel("long", 10, 1, 2, **{"est. achieved occupancy %": 10}),
                   kernel("long", 20, 3, 3, **{"est. achieved occupancy %": 50}),
                   kernel("long", 30, 1, 4, registers=64))  # another footprint, less time: counted, not shown
    assert list(rows) == ["long", "short"]
    long = rows["long"]
    assert (long["launches"], long["device_us"], long["registers"], long["other_footprints"]) == (3, 5, 32, 1)
    assert long["recorded"] == pytest.approx((0.10 * 1 + 0.50 * 3) / (1 + 3))
    # 128 threads are 4 warps. A warp takes 32 × 32 = 1024 registers, a quarter of 65536 holds 16384 // 1024 = 16
    # warps, the SM 64: 64 // 4 = 16 blocks; the SM's 64 warps also give 64 // 4 = 16. Both limit it, to every warp.
    assert (long["blocks_per_sm"], long["warps_per_sm"], long["theoretical"], long["limited_by"]) == \
        (16, 64, 1.0, ["registers", "warps"])
    assert long["notes"] == [] and long["trace_limited_by"] == []


@pytest.mark.parametrize(("occupancy", "expected"), [
    ({"activeBlocksPerMultiprocessor": 2, "limitingFactors": "WARPS|REGS", "blockLimitRegs": 2},
     ["warps", "registers"]),
    ({"limitingFactors": 0x02 | 0x04}, ["registers", "shared memory"]),  # cudaOccLimitingFactor's bits
    ({"limiting factors": ["shared memory"]}, ["shared memory"]),
    ({"blockLimitRegs": 2}, []),
])
def test_the_traces_own_limiting_factor_is_read_from_its_occupancy_object(tmp_path, occupancy, expected):
    rows = rows_of(tmp_path, kernel("k", 0, 1, 1, occupancy=occupancy, **{"est. achieved occupancy %": 25}))
    assert rows["k"]["trace_limited_by"] == expected
    assert rows["k"]["recorded"] == 0.25


def test_odd_occupancy_objects_give_no_factor_and_never_raise():
    for args in ({}, {"occupancy": 3}, {"occupancy": {"limitingFactors": None}},
                 {"occupancy": {"limitingFactors": [1]}}, {"occupancy": {"limitingFactors": True}}):
        assert recorded_limits(args) == ()


def test_a_zero_reading_says_why_it_is_not_a_measurement(tmp_path):
    rows = rows_of(
        tmp_path,
        # more shared memory than the default 49152 a block: Kineto's calculator finds no block fits
        kernel("tile", 0, 1, 1, registers=168, shared=200_000, **{"est. achieved occupancy %": 0}),
        # one block of 4 warps over 132 SMs: 4 / 132 of 64 warps is under the 1 % that whole percents show
        kernel("tiny", 10, 1, 2, grid=1, **{"est. achieved occupancy %": 0}),
        # neither: a full grid within the default shared memory, launched through the driver
        cpu("cuLaunchKernel", 19, 1, kind="driver", correlation=3),
        kernel("driven", 20, 1, 3, **{"est. achieved occupancy %": 0}))
    assert footprint.EXPECTED in rows["tile"]["notes"]
    assert any(note.startswith(footprint.NOT_MEASURED) and "default shared memory" in note
               for note in rows["tile"]["notes"])
    assert rows["tiny"]["notes"][0] == f"{footprint.SMALL_GRID}: 1 block for 132 SMs"
    assert footprint.NOT_MEASURED in rows["tiny"]["notes"][1] and "whole percents" in rows["tiny"]["notes"][1]
    assert rows["driven"]["notes"] == [f"{footprint.NOT_MEASURED}: launched through the driver API (cuLaunchKernel)"]


def test_the_flash_kernel_of_the_h100_bert_trace_holds_few_blocks_as_expected():
    rows = {row["name"]: row for row in footprint.footprint_rows(TRACES / "h100_bert_small_inference.json.gz")}
    flash = next(row for name, row in rows.items() if "flash_fwd_kernel" in name)
    assert flash["limited_by"] == ["registers"] and flash["theoretical"] < 0.25
    assert footprint.EXPECTED in flash["notes"]
    small = [row for row in rows.values() if not row["limited_by"] or row["theoretical"] == 1]
    assert small and all(footprint.EXPECTED not in row["notes"] for row in small)


@pytest.mark.parametrize("trace", ["a100_triton_culaunch.json.gz", "b200_vllm_moe_tp8_rank0.json.gz"])
def test_a_driver_launched_kernel_reading_0_is_marked_not_measured(trace):
    driven = {launch.name for launch in kernel_launches(TRACES / trace)
              if launch.call.startswith("cuLaunchKernel") and launch.recorded == 0}
    rows = [row for row in footprint.footprint_rows(TRACES / trace) if row["name"] in driven]
    assert rows and all(any(note.startswith(footprint.NOT_MEASURED) for note in row["notes"]) for row in rows)


def test_the_limit_keeps_the_rows_with_the_most_time_and_a_trace_without_footprints_gives_none():
    b200 = footprint.footprint_rows(TRACES / "b200_vllm_moe_tp8_rank0.json.gz")
    assert footprint.footprint_rows(TRACES / "b200_vllm_moe_tp8_rank0.json.gz", 3) == b200[:3]
    assert [row["device_us"] for row in b200] == sorted((row["device_us"] for row in b200), reverse=True)
    assert footprint.footprint_rows(TRACES / "mi300x_bert_small_inference.json.gz") == []
