"""profguide.text: durations and kernel names for people."""

import gzip
import json
import re

import pytest

from profguide.text import format_duration, format_size, kernel_name
from tests.helpers import TRACES


@pytest.mark.parametrize(
    ("name", "short"),
    [
        ("volta_sgemm_64x64_nn", "volta_sgemm_64x64_nn"),
        ("void at::native::reduce_kernel<512, 1, at::native::ReduceOp<float, at::native::MeanOps<float, float>, "
         "unsigned int, float, 4> >(at::native::ReduceOp<float, at::native::MeanOps<float, float>, unsigned int, "
         "float, 4>)", "reduce_kernel"),
        ("void at::native::vectorized_elementwise_kernel<4, at::native::(anonymous namespace)::launch_clamp_scalar"
         "(at::TensorIteratorBase&, c10::Scalar, c10::Scalar, at::native::detail::ClampLimits)::{lambda()#1}::"
         "operator()() const::{lambda()#7}::operator()() const::{lambda(float)#1}, at::detail::Array<char*, 2> >"
         "(int, at::native::(anonymous namespace)::launch_clamp_scalar(at::TensorIteratorBase&, c10::Scalar, "
         "c10::Scalar, at::native::detail::ClampLimits)::{lambda()#1}::operator()() const::{lambda()#7}::"
         "operator()() const::{lambda(float)#1}, at::detail::Array<char*, 2>)", "vectorized_elementwise_kernel"),
        ("ncclKernel_AllReduce_RING_LL_Sum_float(ncclDevComm*, unsigned long, ncclWork*)",
         "ncclKernel_AllReduce_RING_LL_Sum_float"),
        ("at::cuda::(anonymous namespace)::spin_kernel(long)", "spin_kernel"),
        ("void cutlass_cudnn_train::Kernel<cutlass_cudnn_train::reduction::kernel::ReduceSplitK<float> >(Params)",
         "cutlass_cudnn_train::Kernel"),
        ("triton_poi_fused_add_cos_sin_0", "triton_poi_fused_add_cos_sin_0"),
    ],
)
def test_kernel_names_lose_their_cpp_decoration(name, short):
    assert kernel_name(name) == short


def test_every_real_kernel_name_gets_a_short_readable_name():
    names = set()
    for path in TRACES.glob("*.json.gz"):
        events = json.loads(gzip.decompress(path.read_bytes()))["traceEvents"]
        names |= {e["name"] for e in events if isinstance(e, dict) and e.get("cat") in ("kernel", "Kernel")}
    assert len(names) > 100
    for name in names:
        short = kernel_name(name)
        assert short and len(short) <= max(len(name), 1)
        assert not re.search(r"[<>(){}]", short), (name, short)


@pytest.mark.parametrize(("us", "text"), [(0.25, "250 ns"), (12.34, "12.3 µs"), (512, "512 µs"), (4560, "4.56 ms"),
                                          (1_200_000, "1.20 s")])
def test_format_duration(us, text):
    assert format_duration(us) == text


def test_sizes_round_to_one_decimal_and_drop_a_trailing_zero():
    assert format_size(527_360) == "515 KiB" and format_size(526_848) == "514.5 KiB"
    assert format_size(32 << 20) == "32 MiB" and format_size(512) == "512 bytes"
