"""profguide.site.claims: the shapes a claim names must be those of a matrix multiply the run records (the
known answers of GemmCallsNamed and GemmCallRatio: tests/site/measures/test_kernels.py)."""

from profguide.site import claims
from profguide.site.measures.kernels import GemmCallRatio
from tests.site.measures.test_kernels import NARROW, TWO_SHAPES, WIDE


def test_a_claims_shapes_must_be_those_of_a_multiply_the_run_records():
    assert claims.allowed("gemm shapes", GemmCallRatio("aten::mm", WIDE, NARROW), TWO_SHAPES) == {WIDE, NARROW}
