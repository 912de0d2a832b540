"""profguide.site.claims: the measures that set the matrix multiplies of one shape against those of another in one
trace (the kernel a library picked for each shape, and the time a call takes), on a small trace whose answer is
worked out by hand."""

import json
from types import SimpleNamespace

import pytest

from profguide.site import claims
from profguide.site.measures.kernels import GemmCallRatio, GemmCallsNamed
from tests.helpers import event as cpu
from tests.helpers import gpu_event as gpu
from tests.helpers import make_trace

WIDE = "[[64, 16], [16, 48]]"  # 2·64·16·48 FLOPs
NARROW = "[[64, 48], [48, 16]]"  # the same FLOPs in the other shape
TENSILE = "Cijk_Alik_Bljk_B_BS_BH_Bias_HA_S_SAV_UserArgs_{tile}_MI16x16x1"
FILL = "void at::native::vectorized_elementwise_kernel<4, at::native::FillFunctor<float>>"


def mm(ts, external_id, shapes):
    return cpu("aten::mm", ts, 5, external_id=external_id,
               **{"Input Dims": json.loads(shapes), "Input type": ["c10::BFloat16", "c10::BFloat16"]})


def two_shapes():
    """Two calls of each shape: the wide one's GEMMs 10 and 14 µs (the second call with a fill beside it, 2 µs),
    the narrow one's 9 and 11 µs, each shape with a tile of its own but for the narrow one's second call."""
    wide, narrow = TENSILE.format(tile="MT128x224x64"), TENSILE.format(tile="MT256x128x64")
    return SimpleNamespace(trace=make_trace(
        mm(0, 1, WIDE), gpu(wide, 10, 10, external_id=1),
        mm(30, 2, WIDE), gpu(FILL, 40, 2, external_id=2), gpu(wide, 42, 12, external_id=2),
        mm(60, 3, NARROW), gpu(narrow, 70, 9, external_id=3),
        mm(90, 4, NARROW), gpu(wide, 100, 11, external_id=4)))


def test_the_share_of_one_shapes_calls_whose_gemm_kernels_hold_a_tile():
    found = two_shapes()
    # The fill is no GEMM: the wide shape's calls both run the tile.
    assert claims.measured(GemmCallsNamed("aten::mm", WIDE, "mt128x224x64"), found) == 1
    assert claims.measured(GemmCallsNamed("aten::mm", NARROW, "MT256x128x64"), found) == pytest.approx(1 / 2)
    assert claims.measured(GemmCallsNamed("aten::mm", "[[1, 1], [1, 1]]", "MT256x128x64"), found) is None


def test_a_call_that_launched_no_gemm_kernel_runs_no_tile():
    # Of the two calls on the wide shape, the first launched a fill alone: no GEMM kernel, so no tile (an empty
    # "all of its GEMM kernels hold it" is no evidence of one). Half the calls run the tile, not all of them.
    wide = TENSILE.format(tile="MT128x224x64")
    found = SimpleNamespace(trace=make_trace(mm(0, 1, WIDE), gpu(FILL, 10, 2, external_id=1),
                                             mm(30, 2, WIDE), gpu(wide, 40, 10, external_id=2)))
    assert claims.measured(GemmCallsNamed("aten::mm", WIDE, "MT128x224x64"), found) == pytest.approx(1 / 2)
    alone = SimpleNamespace(trace=make_trace(mm(0, 1, WIDE), gpu(FILL, 10, 2, external_id=1)))
    assert claims.measured(GemmCallsNamed("aten::mm", WIDE, "MT128x224x64"), alone) == 0


def test_the_median_kernel_time_of_a_call_of_one_shape_over_another():
    found = two_shapes()
    # Narrow: 9 and 11 µs, median 10; wide: 10 and 12 + 2 µs, median 12.
    assert claims.measured(GemmCallRatio("aten::mm", NARROW, WIDE), found) == pytest.approx(10 / 12)
    assert claims.measured(GemmCallRatio("aten::mm", NARROW, "[[1, 1], [1, 1]]"), found) is None


def test_a_claims_shapes_must_be_those_of_a_multiply_the_run_records():
    found = two_shapes()
    assert claims.allowed("gemm shapes", GemmCallRatio("aten::mm", WIDE, NARROW), found) == {WIDE, NARROW}
