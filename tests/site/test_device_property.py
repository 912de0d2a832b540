"""DeviceProperty: a number of the first GPU's ``deviceProperties``; on the MI300X trace, the whole GPU's compute
units and memory."""

from types import SimpleNamespace

from profguide.site import claims
from profguide.site.catalogue import REAL_TRACES
from profguide.site.data import RealTraceData
from profguide.site.measures.kernels import DeviceProperty
from tests.helpers import ROOT, event, make_trace

ONE_OP = event("aten::mm", 0, 10)


def test_a_device_property_is_the_first_gpus_number_and_none_where_the_trace_gives_none():
    gpus = SimpleNamespace(trace=make_trace(ONE_OP, deviceProperties=[{"id": 0, "name": "GPU", "numSms": 132},
                                                              {"id": 1, "numSms": 66}]))
    assert claims.measured(DeviceProperty("numSms"), gpus) == 132
    assert claims.measured(DeviceProperty("name"), gpus) is None  # a word, not a number
    assert claims.allowed("device property", DeviceProperty("numSms"), gpus) == {"id", "numSms"}
    assert claims.measured(DeviceProperty("numSms"), SimpleNamespace(trace=make_trace(ONE_OP))) is None


def test_the_mi300x_trace_has_the_whole_gpus_compute_units():
    mi300x = RealTraceData(next(real for real in REAL_TRACES if real.id == "kernels-mi300x-qwen"), ROOT,
                           ROOT / "docs" / "generated")
    assert claims.measured(DeviceProperty("numSms"), mi300x) == 304
