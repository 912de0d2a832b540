"""profguide.analysis.peaks: which GPU a trace's deviceProperties describe, its datasheet peaks, and the peak an
op of a given type can reach on it."""

import re

import pytest

from profguide import trace
from profguide.analysis.peaks import PEAKS, compute_roof, compute_type, device_peaks, uses_tf32
from tests.helpers import TRACES

GIB = 1 << 30


def device(name, sms=None, gib=None, major=None, minor=None):
    """A deviceProperties entry with the fields the matching reads."""
    entry = {"name": name}
    if sms is not None:
        entry["numSms"] = sms
    if gib is not None:
        entry["totalGlobalMem"] = int(gib * GIB)
    if major is not None:
        entry["computeMajor"], entry["computeMinor"] = major, minor
    return entry


def model(entry):
    found = device_peaks(entry)
    return found.model if found else None


# Names seen in real traces (docs/traces and the brief's), with their SMs and memory as those traces give them.
@pytest.mark.parametrize(("entry", "expected"), [
    (device("NVIDIA H100 80GB HBM3", 132, 79.2, 9, 0), "H100 SXM"),
    (device("NVIDIA B200", 148, 178.4, 10, 0), "B200"),
    (device("NVIDIA A100-SXM4-80GB", 108, 79.2, 8, 0), "A100 SXM 80GB"),
    (device("NVIDIA A100-PG509-200", 108, 39.4, 8, 0), "A100 SXM 40GB"),
    (device("Tesla V100-SXM2-16GB", 80, 15.8, 7, 0), "V100 SXM2"),
    (device("Tesla V100-SXM2-32GB", 80, 31.7, 7, 0), "V100 SXM2"),
    (device("AMD Instinct MI300X VF", 304, 191.5, 9, 4), "MI300X"),
    (device("AMD Instinct MI300X", 304, 192.0, 9, 4), "MI300X"),
    (device("AMD Radeon Graphics", 104, 64.0, 9, 0), "MI250 (one GCD)"),  # mi250_rocm.json.gz
    (device("", 304, 192.0, 9, 4), None),  # vLLM's MI300X traces name no device: not guessed from its CUs
])
def test_real_names(entry, expected):
    assert model(entry) == expected


# Names of other parts, as the drivers write them, told apart by name, SMs or memory.
@pytest.mark.parametrize(("entry", "expected"), [
    (device("NVIDIA H100 PCIe", 114, 79.2), "H100 PCIe"),
    (device("NVIDIA H100", 114, 79.2), "H100 PCIe"),  # the SMs say PCIe where the name does not
    (device("NVIDIA H100 NVL", 132, 93.1), "H100 NVL"),
    (device("NVIDIA H100", None, 79.2), None),  # neither name nor SMs say the form
    (device("NVIDIA H200", 132, 139.8), "H200 SXM"),
    (device("NVIDIA H200 NVL", 132, 139.8), "H200 NVL"),
    (device("NVIDIA GH200 480GB", 132, 94.5), None),  # Grace Hopper's GPU runs at other power
    (device("NVIDIA GB200", 152, 184.0), None),
    (device("NVIDIA A100-SXM4-40GB", 108, 39.4), "A100 SXM 40GB"),
    (device("NVIDIA A100-PCIE-40GB", 108, 39.4), "A100 PCIe 40GB"),
    (device("NVIDIA A100 80GB PCIe", 108, 79.2), "A100 PCIe 80GB"),
    (device("NVIDIA A100-SXM4-80GB"), "A100 SXM 80GB"),  # the name gives the memory
    (device("NVIDIA A100", 108, 39.4), None),  # the memory does not say SXM or PCIe
    (device("Tesla V100-PCIE-32GB", 80, 31.7), "V100 PCIe"),
    (device("Tesla V100S-PCIE-32GB", 80, 31.7), None),  # V100S runs at higher clocks
    (device("Tesla V100-SXM3-32GB", 80, 31.7), None),
    (device("AMD Instinct MI250X", 110, 64.0, 9, 0), "MI250X (one GCD)"),
    (device("AMD Radeon Graphics", 110, 64.0, 9, 0), "MI250X (one GCD)"),
    (device("AMD Radeon Graphics", 104, 64.0, 9, 4), None),  # not gfx90a
    (device("AMD Radeon Graphics", 104, None, 9, 0), None),
    (device("AMD Instinct MI325X", 304, 256.0, 9, 4), "MI325X"),
    (device("NVIDIA GeForce RTX 4090", 128, 24.0), None),
])
def test_other_names(entry, expected):
    assert model(entry) == expected


@pytest.mark.parametrize("entry", [None, {}, {"name": 3}, {"name": "NVIDIA H100 80GB HBM3", "numSms": "132"},
                                   {"name": "NVIDIA A100-SXM4", "totalGlobalMem": True}])
def test_bad_entries_match_nothing(entry):
    assert device_peaks(entry) is None


# Every trace in docs/traces, with the model its first device matches (None: no deviceProperties, or none on
# purpose). A trace added there fails this test until it is listed.
TRACE_MODELS = {
    "a100_80gb_nccl_16rank_rank0.json.gz": "A100 SXM 80GB",
    "a100_alexnet_cuda_sync.json.gz": "A100 SXM 40GB",
    "a100_cuda_event_sync.json.gz": "A100 SXM 40GB",
    "a100_nccl_2rank_rank0.json.gz": "A100 SXM 40GB",
    "a100_triton_culaunch.json.gz": "A100 SXM 40GB",
    "b200_vllm_moe_tp8_rank0.json.gz": "B200",
    "cpu_only_gloo.json.gz": None,
    "h100_bert_small_inference.json.gz": "H100 SXM",
    "h100_qwen1.5_0.5b_inference.json.gz": "H100 SXM",
    "mi250_rocm.json.gz": "MI250 (one GCD)",
    "mi300x_bert_small_inference.json.gz": "MI300X",
    "mi300x_qwen1.5_0.5b_inference.json.gz": "MI300X",
    "mi300x_sglang_qwen3_8b_prefill_decode.json.gz": "MI300X",
    "mi300x_vllm_piecewise_graph_capture.json.gz": None,  # the name is empty
    "mi300x_vllm_piecewise_graph_execution.json.gz": None,
    "nccl_128rank_sampled_rank0.json.gz": None,
    "nccl_128rank_sampled_rank1.json.gz": None,
    "old_schema_inference.json.gz": None,
    "v100_ns_timestamps.json.gz": "V100 SXM2",
}


@pytest.mark.parametrize("path", sorted(TRACES.glob("*.json.gz")), ids=lambda path: path.name)
def test_every_trace_matches_on_purpose(path):
    devices = trace.load(path).device_properties
    assert path.name in TRACE_MODELS
    assert model(devices[0] if devices else None) == TRACE_MODELS[path.name]
    assert {model(entry) for entry in devices} <= {TRACE_MODELS[path.name]}  # every rank's GPU alike


def test_sparse_figures_are_halved_and_dies_split():
    h100 = PEAKS["H100 SXM"]
    assert h100.tflops["bf16"] == 1979 / 2 and h100.tflops["fp8"] == 3958 / 2 and h100.tflops["fp32"] == 67.0
    assert PEAKS["B200"].tflops["fp4"] == 18_000 / 2 and PEAKS["B200"].tflops["tf32"] == 2_200 / 2
    gcd = PEAKS["MI250X (one GCD)"]
    assert gcd.tflops["fp16"] == 383.0 / 2 and gcd.tb_per_s == 3.2 / 2
    assert PEAKS["A100 SXM 80GB"].tflops["tf32"] == 156.0 and PEAKS["A100 PCIe 80GB"].tb_per_s == 1.935


def test_every_row_has_vector_fp32_a_bandwidth_and_a_vendor_source():
    keys = {"fp32", "fp32_matrix", "tf32", "bf16", "fp16", "fp8", "fp4", "int8"}
    for row in PEAKS.values():
        assert "fp32" in row.tflops and set(row.tflops) <= keys and row.tb_per_s > 0
        assert re.match(r"https://(www|images)\.(nvidia|amd)\.com/", row.source)
        # a matrix peak is never below the vector one
        assert all(value >= row.tflops["fp32"] for key, value in row.tflops.items() if key != "fp32")


@pytest.mark.parametrize(("dtype", "expected"), [
    ("c10::BFloat16", "bf16"), ("float", "fp32"), ("c10::Half", "fp16"), ("c10::Float8_e4m3fn", "fp8"),
    ("c10::Float8_e5m2", "fp8"), ("c10::Float8_e4m3fnuz", "fp8"), ("c10::Float8_e5m2fnuz", "fp8"),
    ("c10::Float4_e2m1fn_x2", "fp4"), ("signed char", "int8"), ("double", None), ("long int", None),
    ("int", None), ("unsigned char", None), ("bool", None), ("c10::Float8_e8m0fnu", None), ("", None),
])
def test_compute_type(dtype, expected):
    assert compute_type(dtype) == expected


@pytest.mark.parametrize(("gpu", "dtype", "matrix", "tf32", "expected"), [
    ("H100 SXM", "c10::BFloat16", True, False, 1979 / 2),
    ("H100 SXM", "c10::BFloat16", False, False, 67.0),  # a norm in bf16: the vector FP32 peak
    ("H100 SXM", "float", True, False, 67.0),  # float GEMM without TF32 runs on the vector units
    ("H100 SXM", "float", True, True, 989 / 2),
    ("H100 SXM", "c10::BFloat16", True, True, 1979 / 2),  # tf32 says nothing of a bf16 op
    ("H100 SXM", "c10::Float8_e4m3fn", True, False, 3958 / 2),
    ("H100 SXM", "c10::Float4_e2m1fn_x2", True, False, None),  # Hopper has no FP4
    ("B200", "c10::Float4_e2m1fn_x2", True, False, 18_000 / 2),
    ("A100 SXM 40GB", "signed char", True, False, 624.0),
    ("A100 SXM 40GB", "long int", False, False, 19.5),  # non-matrix work: FP32 vector whatever the type
    ("A100 SXM 40GB", "double", True, False, None),
    ("A100 SXM 40GB", "double", False, False, None),
    ("V100 SXM2", "c10::BFloat16", True, False, None),  # no BF16 tensor cores on Volta
    ("V100 SXM2", "float", True, True, 15.7),  # no TF32 on Volta: the vector peak
    ("MI250 (one GCD)", "float", True, False, 90.5 / 2),  # float GEMMs on AMD's matrix cores
    ("MI250 (one GCD)", "float", False, False, 45.3 / 2),
    ("MI300X", "float", True, True, 653.7),
    ("MI300X", "long int", True, False, None),
])
def test_the_roof_of_each_kind_of_work(gpu, dtype, matrix, tf32, expected):
    roof = compute_roof(PEAKS[gpu], dtype, matrix, tf32)
    assert (None if roof is None else roof.tflops) == expected


@pytest.mark.parametrize(("gpu", "dtype", "matrix", "tf32", "name"), [
    ("H100 SXM", "c10::BFloat16", True, False, "BF16 tensor"),
    ("H100 SXM", "c10::BFloat16", False, False, "FP32 vector"),
    ("H100 SXM", "float", True, True, "TF32 tensor"),
    ("H100 SXM", "float", True, False, "FP32 vector"),
    ("MI300X", "c10::BFloat16", True, False, "BF16 matrix"),  # AMD's word
    ("MI250 (one GCD)", "float", True, False, "FP32 matrix"),
    ("B200", "c10::Float8_e4m3fn", True, False, "FP8 tensor"),
])
def test_a_roof_is_named_by_its_type_and_its_units(gpu, dtype, matrix, tf32, name):
    roof = compute_roof(PEAKS[gpu], dtype, matrix, tf32)
    assert roof is not None and roof.name == name


@pytest.mark.parametrize(("name", "expected"), [
    ("sm80_xmma_gemm_f32f32_tf32f32_f32_tn_n_tilesize128x128x16_stage4_warpsize2x2x1_tensor16x8x8_kernel", True),
    ("cutlass_80_tensorop_s1688gemm_128x128_16x3_nn_align4", True),
    ("ampere_tf32_s1688gemm_tf32_128x128_16x3_nn", True),
    ("sm80_xmma_fprop_implicit_gemm_indexed_tf32f32_tf32f32_f32_nhwckrsc_nchw_tilesize128x128x16_stage4_warpsize2x2x1"
     "_g1_tensor16x8x8_alignc4_execute_kernel_cudnn", True),  # the A100 AlexNet trace's float convolution
    ("ampere_sgemm_32x32_sliced1x4_tn", False),  # the same trace's float GEMM, on the vector units
    ("volta_sgemm_64x64_nt", False),
    ("cutlass_80_tensorop_bf16_s16816gemm_relu_bf16_128x128_32x3_nn_align8", False),  # s16816 is 16-bit input
    ("ampere_bf16_s16816gemm_bf16_128x64_ldg8_f2f_stages_64x4_tn", False),
    ("Cijk_Alik_Bljk_SB_Bias_AS_SAV_UserArgs_MT64x16x32_MI16x16x1_SN_LDSB0", False),  # the MI250 trace's float GEMM
    ("vectorized_elementwise_kernel", False),
])
def test_uses_tf32(name, expected):
    assert uses_tf32(name) is expected

