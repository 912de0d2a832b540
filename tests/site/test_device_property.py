"""DeviceProperty: the keys a claim may name, and on the MI300X trace the whole GPU's compute units (its known
answers on small traces: tests/site/measures/test_kernels.py)."""

from profguide.site import claims
from profguide.site.catalogue import REAL_TRACES
from profguide.site.data import RealTraceData
from profguide.site.measures.kernels import DeviceProperty
from tests.helpers import ROOT
from tests.site.measures.test_kernels import TWO_GPUS


def test_a_claim_may_name_the_numbers_the_first_gpus_properties_give():
    assert claims.allowed("device property", DeviceProperty("numSms"), TWO_GPUS) == {"id", "numSms"}


def test_the_mi300x_trace_has_the_whole_gpus_compute_units():
    mi300x = RealTraceData(next(real for real in REAL_TRACES if real.id == "kernels-mi300x-qwen"), ROOT,
                           ROOT / "docs" / "generated")
    assert claims.measured(DeviceProperty("numSms"), mi300x) == 304
