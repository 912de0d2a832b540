"""The device's peaks: dense TFLOP/s by compute type and memory bandwidth, from the vendors' datasheets, found
from a trace's ``deviceProperties`` entry; and the peak an op of a given type can reach on it.

Every figure is dense (no structured sparsity). NVIDIA's pages print the tensor-core figures with sparsity and
say so in a footnote: those are halved here, and the rows say where. AMD's pages print both; the dense one is
taken. "fp32" is the vector (non-tensor) FP32 peak; "fp32_matrix" is AMD's FP32 on its matrix cores, which
rocBLAS and hipBLASLt use for float GEMMs and NVIDIA's GPUs do not have (their float GEMMs run on the vector
units unless TF32 is allowed). The datasheets give no non-tensor BF16 or FP16 figure, so work that multiplies
no matrices is held to the FP32 vector peak whatever its type.
"""

import re
from typing import NamedTuple

from profguide.analysis.families import kernel_family
from profguide.jsontypes import JSONObject


class Peaks(NamedTuple):
    """One GPU model's datasheet peaks, as one device of a trace sees them."""

    model: str
    tflops: dict[str, float]  # "fp32", "fp32_matrix", "tf32", "bf16", "fp16", "fp8", "fp4", "int8" (TOPS)
    tb_per_s: float
    source: str


def halved(sparse: float) -> float:
    """A figure NVIDIA prints with 2:4 sparsity, as the dense figure it is twice."""
    return sparse / 2


V100 = "https://images.nvidia.com/content/technologies/volta/pdf/volta-v100-datasheet-update-us-1165301-r5.pdf"
A100 = ("https://www.nvidia.com/content/dam/en-zz/Solutions/Data-Center/a100/pdf/"
        "nvidia-a100-datasheet-us-nvidia-1758950-r4-web.pdf")
H100 = "https://www.nvidia.com/en-us/data-center/h100/"
H200 = "https://www.nvidia.com/en-us/data-center/h200/"
GB200_NVL72 = "https://www.nvidia.com/en-us/data-center/gb200-nvl72/"
MI250X = "https://www.amd.com/en/products/accelerators/instinct/mi200/mi250x.html"
MI250 = "https://www.amd.com/en/products/accelerators/instinct/mi200/mi250.html"
MI300X = "https://www.amd.com/en/products/accelerators/instinct/mi300/mi300x.html"
MI325X = "https://www.amd.com/en/products/accelerators/instinct/mi300/mi325x.html"

# The A100 datasheet prints dense and sparse side by side; its four parts differ only in bandwidth.
A100_TFLOPS = {"fp32": 19.5, "tf32": 156.0, "bf16": 312.0, "fp16": 312.0, "int8": 624.0}
# H100 and H200 pages: tensor-core figures with sparsity, halved. The SXM parts share one set, the NVL parts another.
HOPPER_SXM = {"fp32": 67.0, "tf32": halved(989), "bf16": halved(1979), "fp16": halved(1979), "fp8": halved(3958),
              "int8": halved(3958)}
HOPPER_NVL = {"fp32": 60.0, "tf32": halved(835), "bf16": halved(1671), "fp16": halved(1671), "fp8": halved(3341),
              "int8": halved(3341)}
# MI300X and MI325X share their compute; AMD lists each type without sparsity.
CDNA3 = {"fp32": 163.4, "fp32_matrix": 163.4, "tf32": 653.7, "bf16": 1307.4, "fp16": 1307.4, "fp8": 2614.9,
         "int8": 2614.9}


def one_die(package: dict[str, float]) -> dict[str, float]:
    """An MI250's or MI250X's figures (for its package of two dies) for one of its dies: ROCm shows each die, a
    GCD, as a device of its own, with half the package's units and memory."""
    return {key: value / 2 for key, value in package.items()}


PEAKS = {peaks.model: peaks for peaks in (
    Peaks("V100 SXM2", {"fp32": 15.7, "fp16": 125.0}, 0.9, V100),
    Peaks("V100 PCIe", {"fp32": 14.0, "fp16": 112.0}, 0.9, V100),
    Peaks("A100 SXM 40GB", A100_TFLOPS, 1.555, A100),
    Peaks("A100 SXM 80GB", A100_TFLOPS, 2.039, A100),
    Peaks("A100 PCIe 40GB", A100_TFLOPS, 1.555, A100),
    Peaks("A100 PCIe 80GB", A100_TFLOPS, 1.935, A100),
    Peaks("H100 SXM", HOPPER_SXM, 3.35, H100),
    # H100 PCIe: tensor-core figures with sparsity, halved.
    Peaks("H100 PCIe", {"fp32": 51.0, "tf32": halved(756), "bf16": halved(1513), "fp16": halved(1513),
                        "fp8": halved(3026), "int8": halved(3026)}, 2.0, H100),
    Peaks("H100 NVL", HOPPER_NVL, 3.9, H100),
    Peaks("H200 SXM", HOPPER_SXM, 4.8, H200),
    Peaks("H200 NVL", HOPPER_NVL, 4.8, H200),
    # The GB200 NVL72 page's table gives each of HGX B200's GPUs its figures, tensor cores' with sparsity: halved.
    Peaks("B200", {"fp32": 75.0, "tf32": halved(2_200), "bf16": halved(4_500), "fp16": halved(4_500),
                   "fp8": halved(9_000), "fp4": halved(18_000), "int8": halved(9_000)}, 7.7, GB200_NVL72),
    Peaks("MI250X (one GCD)", one_die({"fp32": 47.9, "fp32_matrix": 95.7, "bf16": 383.0, "fp16": 383.0,
                                       "int8": 383.0}), 3.2 / 2, MI250X),
    Peaks("MI250 (one GCD)", one_die({"fp32": 45.3, "fp32_matrix": 90.5, "bf16": 362.1, "fp16": 362.1,
                                      "int8": 362.1}), 3.2 / 2, MI250),
    Peaks("MI300X", CDNA3, 5.3, MI300X),
    Peaks("MI325X", CDNA3, 6.0, MI325X),
)}

# SMs (CUs on AMD) of the parts whose names do not say their form: H100 SXM has 132, H100 PCIe 114; an MI250X's
# die has 110 CUs and an MI250's 104 (AMD's pages give 220 and 208 for the two dies).
H100_SXM_SMS, H100_PCIE_SMS = 132, 114
GCD_MODELS = {110: "MI250X (one GCD)", 104: "MI250 (one GCD)"}
GIB = 1 << 30


def number(properties: JSONObject, key: str) -> float | None:
    """A number of the properties, or None where it is missing or not a number."""
    value = properties.get(key)
    return float(value) if isinstance(value, int | float) and not isinstance(value, bool) else None


def nvidia_model(name: str, sms: float | None, gib: float | None) -> str | None:
    """Which of the NVIDIA parts a device is, or None where its name, SMs and memory do not settle it. A
    GH200 or GB200 (their GPUs run at other clocks and power) and a V100S or V100 SXM3 match nothing."""
    if "GH200" in name or "GB200" in name:
        return None
    if "B200" in name:
        return "B200"
    for model in ("H200", "H100"):
        if model in name:
            if "NVL" in name:
                return f"{model} NVL"
            if model == "H100" and ("PCIE" in name or sms == H100_PCIE_SMS):
                return "H100 PCIe"
            return f"{model} SXM" if sms == H100_SXM_SMS else None
    if "A100" in name:
        # PG509 is the board of the 40 GB SXM part, which some machines report instead of SXM4.
        form = "PCIe" if "PCIE" in name else "SXM" if "SXM" in name or "PG509" in name else None
        size = "80GB" if "80GB" in name or (gib is not None and gib > 60) else "40GB" if gib is not None else None
        return f"A100 {form} {size}" if form and size else None
    if re.search(r"V100-SXM2(?![A-Z0-9])", name):
        return "V100 SXM2"
    return "V100 PCIe" if re.search(r"V100-PCIE(?![A-Z0-9])", name) else None


def amd_model(name: str, properties: JSONObject, cus: float | None, gib: float | None) -> str | None:
    """Which of the AMD parts a device is. ROCm may name an MI250's die "AMD Radeon Graphics": a gfx90a device
    (compute 9.0) with 64 GB is told by its CUs (an MI210, one such die on a card of its own, looks the same)."""
    for model in ("MI325X", "MI300X"):
        if model in name:
            return model
    gfx90a = number(properties, "computeMajor") == 9 and number(properties, "computeMinor") == 0
    if gfx90a and cus is not None and gib is not None and 60 < gib < 70:
        return GCD_MODELS.get(int(cus))
    return None


def device_peaks(properties: JSONObject | None) -> Peaks | None:
    """The peaks of the device a trace's ``deviceProperties`` entry describes, or None where it is not in the
    table or the entry does not say which it is (a vLLM trace on MI300X leaves the name empty: no match)."""
    if not isinstance(properties, dict) or not isinstance(properties.get("name"), str):
        return None
    name = str(properties["name"]).upper()
    sms = number(properties, "numSms")
    memory = number(properties, "totalGlobalMem")
    gib = memory / GIB if memory is not None else None
    if name.startswith("AMD"):
        model = amd_model(name, properties, sms, gib)
    else:
        model = nvidia_model(name, sms, gib)
    return PEAKS[model] if model else None


# The trace's names of the types the table has a peak for ("Input type" as PyTorch writes it).
COMPUTE_TYPES = {
    "float": "fp32", "c10::BFloat16": "bf16", "c10::Half": "fp16",
    "c10::Float8_e4m3fn": "fp8", "c10::Float8_e5m2": "fp8", "c10::Float8_e4m3fnuz": "fp8",
    "c10::Float8_e5m2fnuz": "fp8", "c10::Float4_e2m1fn_x2": "fp4", "signed char": "int8",
}


def compute_type(dtype: str) -> str | None:
    """The table's key for a trace's input type: "c10::BFloat16" → "bf16"; None for a type it has no peak for
    (double, the wider integers, bool …)."""
    return COMPUTE_TYPES.get(dtype)


class Roof(NamedTuple):
    """A flat roof: the peak of one kind of work on a device, and its name (BF16 tensor, FP32 vector)."""

    name: str
    tflops: float


def compute_roof(peaks: Peaks, dtype: str, on_tensor_cores: bool, tf32: bool = False) -> Roof | None:
    """The peak an op can reach: for matrix work (``on_tensor_cores``: a GEMM, a convolution, attention) the
    tensor-core (matrix-core) peak of its type, float at TF32's when ``tf32`` says its kernels used it, else at
    the FP32 matrix peak where the GPU has one (AMD) or the vector peak; for other work the FP32 vector peak
    whatever its type, doubles excepted. None where the table has no figure (BF16 on a V100, doubles)."""
    cores = "matrix" if "fp32_matrix" in peaks.tflops else "tensor"  # AMD's word for them, and NVIDIA's
    if dtype == "double":
        return None
    if not on_tensor_cores:
        return Roof("FP32 vector", peaks.tflops["fp32"])
    kind = compute_type(dtype)
    if kind == "fp32":
        if tf32 and "tf32" in peaks.tflops:
            return Roof(f"TF32 {cores}", peaks.tflops["tf32"])
        if "fp32_matrix" in peaks.tflops:
            return Roof("FP32 matrix", peaks.tflops["fp32_matrix"])
        return Roof("FP32 vector", peaks.tflops["fp32"])
    return Roof(f"{kind.upper()} {cores}", peaks.tflops[kind]) if kind and kind in peaks.tflops else None


def uses_tf32(kernel_name: str) -> bool:
    """Whether a matrix kernel's name says its inputs are TF32 (cuBLAS's and CUTLASS's tf32 and s1688, hipBLASLt's
    xf32): float work at TF32's peak."""
    return kernel_family(kernel_name).precision == "tf32"
