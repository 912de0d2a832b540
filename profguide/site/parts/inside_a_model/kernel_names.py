"""The real traces of Inside a model, *Reading a kernel's name*, which the reference page, the rules and *A transformer
block, and a real model* read too: the MI250 under ROCm, a Qwen forward pass on an H100 and on an MI300X, a BERT forward
pass on an H100 and on an MI300X (each MI300X run the after of its H100 one, for ``profguide diff``), and two A100
traces for their GEMMs' and Triton kernels' names."""

from __future__ import annotations

from typing import TYPE_CHECKING

from profguide.site.measures.kernels import DeviceProperty, GpuBusyShare, KernelsDecoded, KernelsInside, KernelsJoined
from profguide.site.measures.ops import KernelsPerCall, ModuleShare
from profguide.site.measures.summary import DiffRowRatio, VerdictIs
from profguide.site.parts import HTA, TRACELENS, tracelens_trace
from profguide.site.recordings import Claim, RealTrace

if TYPE_CHECKING:
    from profguide.site.parts import Bounds

PAGE = "inside-a-model/kernel-names.md"
BLOCK = "inside-a-model/transformer-block.md"
ATTENTION = "Qwen2Attention"
FLASH = ("aten::_flash_attention_forward",)
FLASH_OP = "aten::_scaled_dot_product_flash_attention"
ROTARY_EMBEDDING = "Qwen2RotaryEmbedding"
# How Qwen applies its rotary embedding to the query and the key: q * cos + rotate_half(q) * sin, where
# rotate_half is a neg and a cat.
ROTARY = ("aten::mul", "aten::neg", "aten::cat", "aten::add")
NORM_KERNELS: Bounds = {"at_least": 8, "at_most": 8}  # Qwen2RMSNorm: two casts, pow, mean, add, rsqrt, two multiplies
ALL: Bounds = {"at_least": 1, "at_most": 1}  # a share of all; a count of one
GIB = 2**30
# An MI300X's compute units (AMD's GPU specifications, rocm.docs.amd.com/en/latest/reference/gpu-specs.html): a
# virtual function with them all is the whole GPU.
MI300X_CUS: Bounds = {"at_least": 304, "at_most": 304}

REAL_TRACES = (
    RealTrace(
        id="reading-mi250-rocm",
        file="docs/traces/mi250_rocm.json.gz",
        title="Two training steps of a toy model on an AMD MI250 under ROCm 6.2",
        **HTA,
    ),
    tracelens_trace(
        "reading-h100-qwen", "h100-qwen",
        claims=(
            Claim(BLOCK, "only about seven in ten of the kernels on its GPU lane are joined to an op",
                  KernelsJoined(), at_least=0.65, at_most=0.75),
            Claim(BLOCK, "the attention modules take about half", ModuleShare(ATTENTION), at_least=0.42,
                  at_most=0.58),
            Claim(BLOCK, "the MLPs about a quarter", ModuleShare("Qwen2MLP"), at_least=0.2, at_most=0.3),
            Claim(BLOCK, "the norms nearly a quarter", ModuleShare("Qwen2RMSNorm"), at_least=0.2, at_most=0.25),
            Claim(BLOCK, "Each call of `Qwen2RMSNorm` launches eight kernels", KernelsPerCall(module="Qwen2RMSNorm"),
                  **NORM_KERNELS),
            Claim(BLOCK, "the flash attention kernel takes under a fifth of the attention modules' time",
                  ModuleShare(ATTENTION, FLASH), at_least=0.1, at_most=0.2),
            Claim(BLOCK, "The rotary embedding takes nearly half", ModuleShare(ATTENTION, ROTARY), at_least=0.4,
                  at_most=0.5),
            Claim(BLOCK, "The four projections and the copies that `contiguous` makes of transposed heads take the "
                  "rest", ModuleShare(ATTENTION, FLASH + ROTARY + ("aten::addmm", "aten::mm", "aten::copy_")),
                  at_least=0.999, at_most=1),
            Claim(BLOCK, "Every attention kernel of the trace is SDPA's flash kernel",
                  KernelsDecoded("attention", "backend", "flash"), **ALL),
            Claim(BLOCK, "Every one of the others runs before the first kernel that is", KernelsJoined(before=True),
                  **ALL),
            Claim(PAGE, "it runs on the CUDA cores", KernelsDecoded("gemm", "tensor_cores", "no", count=True),
                  **ALL),
            Claim(PAGE, "the H100's Qwen pass launches one GEMM in FP32",
                  KernelsDecoded("gemm", "precision", "fp32", count=True), **ALL),
            Claim(PAGE, "its layout is `nn`", KernelsDecoded("gemm", "layout", "nn", count=True), **ALL),
            Claim(PAGE, "its other GEMMs are cuBLASLt kernels", KernelsDecoded("gemm", "library", "cuBLASLt"),
                  at_least=0.99, at_most=0.999),
            Claim(PAGE, "all the others in bf16", KernelsDecoded("gemm", "precision", "bf16"),
                  at_least=0.99, at_most=0.999),
            Claim(PAGE, "each call of `Qwen2RotaryEmbedding` in the H100's pass launches one GEMM",
                  KernelsInside(module=ROTARY_EMBEDDING, family="gemm"), **ALL),
        ),
    ),
    RealTrace(
        id="kernels-mi300x-qwen",
        file="docs/traces/mi300x_qwen1.5_0.5b_inference.json.gz",
        title="Qwen1.5-0.5B-Chat inference on an MI300X, 16 sequences of 559 tokens, bf16",
        **TRACELENS,
        compared_with="reading-h100-qwen",
        claims=(
            Claim(BLOCK, "the MI300X spent about a third longer in GEMMs", DiffRowRatio("kernels", "gemm"),
                  at_least=1.25, at_most=1.42),
            Claim(BLOCK, "and between a third and a half longer in attention", DiffRowRatio("kernels", "attention"),
                  at_least=1.34, at_most=1.5),
            Claim(BLOCK, "about a quarter less in elementwise kernels", DiffRowRatio("kernels", "elementwise"),
                  at_least=0.7, at_most=0.8),
            Claim(BLOCK, "and about a third less in copies", DiffRowRatio("kernels", "copy"), at_least=0.6,
                  at_most=0.72),
            Claim(BLOCK, "the flash attention kernel takes under a third of the attention modules' time",
                  ModuleShare(ATTENTION, FLASH), at_least=0.2, at_most=0.333),
            Claim(BLOCK, "each `Qwen2RMSNorm` launches the same eight kernels", KernelsPerCall(module="Qwen2RMSNorm"),
                  **NORM_KERNELS),
            Claim(BLOCK, "its `deviceProperties` give it 304 compute units", DeviceProperty("numSms"), **MI300X_CUS),
            Claim(BLOCK, "and just under 192 GiB of memory", DeviceProperty("totalGlobalMem"), at_least=190 * GIB,
                  at_most=192 * GIB),
            Claim(PAGE, "It launches one GEMM in FP32 too", KernelsDecoded("gemm", "precision", "fp32",
                                                                                 count=True), **ALL),
            Claim(PAGE, "each call of `Qwen2RotaryEmbedding` there launches one GEMM",
                  KernelsInside(module=ROTARY_EMBEDDING, family="gemm"), **ALL),
            Claim(PAGE, "every GEMM of the MI300X's pass runs on its matrix cores",
                  KernelsDecoded("gemm", "tensor_cores", "yes"), **ALL),
        ),
    ),
    tracelens_trace(
        "reading-h100-bert", "h100-bert",
        claims=(
            Claim(PAGE, "every GEMM it ran is in bf16", KernelsDecoded("gemm", "precision", "bf16"),
                  **ALL),
            Claim(PAGE, "on tensor cores", KernelsDecoded("gemm", "tensor_cores", "yes"), **ALL),
            Claim(PAGE, "in the layout `tn`", KernelsDecoded("gemm", "layout", "tn"), **ALL),
            Claim(PAGE, "Most of its GEMM launches are CUTLASS kernels",
                  KernelsDecoded("gemm", "library", "CUTLASS"), at_least=0.5, at_most=0.95),
            Claim(PAGE, "the rest cuBLASLt's Hopper kernels",
                  KernelsDecoded("gemm", "library", "cuBLASLt"), at_least=0.05, at_most=0.5),
            Claim(PAGE, "its attention is SDPA's flash kernel", KernelsDecoded("attention", "backend", "flash"),
                  **ALL),
            Claim(BLOCK, "its GPU is busy under a tenth of the window", GpuBusyShare(), at_least=0, at_most=0.1),
            Claim(BLOCK, "launch-bound", VerdictIs("launch-bound"), **ALL),
        ),
    ),
    RealTrace(
        id="reading-mi300x-bert",
        file="docs/traces/mi300x_bert_small_inference.json.gz",
        title="BERT-small fill-mask inference on an MI300X, one sequence of 141 tokens, bf16",
        **TRACELENS,
        compared_with="reading-h100-bert",
        claims=(
            Claim(PAGE, "every GEMM of the MI300X's is a Tensile kernel",
                  KernelsDecoded("gemm", "library", "hipBLASLt/Tensile"), **ALL),
            Claim(PAGE, "in bf16 as well", KernelsDecoded("gemm", "precision", "bf16"), **ALL),
            Claim(PAGE, "`tn` as well", KernelsDecoded("gemm", "layout", "tn"), **ALL),
            Claim(PAGE, "its attention is a Triton kernel", KernelsDecoded("attention", "backend", "Triton"),
                  **ALL),
            # On ROCm the flash and memory-efficient backends both run AOTriton's attn_fwd: only the op says which.
            Claim(PAGE, "each call of `aten::_scaled_dot_product_flash_attention` launches one `attn_fwd`",
                  KernelsInside(op=FLASH_OP, family="attention"), **ALL),
        ),
    ),
    RealTrace(
        id="kernels-a100-16rank",
        file="docs/traces/a100_80gb_nccl_16rank_rank0.json.gz",
        title="Rank 0 of a 16-rank training job on A100-SXM4-80GB GPUs, NCCL",
        **HTA,
        claims=(
            Claim(PAGE, "most of its GEMM launches are TF32 kernels",
                  KernelsDecoded("gemm", "precision", "tf32"), at_least=0.5, at_most=0.95),
            Claim(PAGE, "some of them FP32 on CUDA cores", KernelsDecoded("gemm", "tensor_cores", "no"),
                  at_least=0.05, at_most=0.5),
            Claim(PAGE, "about two fifths `nn`", KernelsDecoded("gemm", "layout", "nn"),
                  at_least=0.35, at_most=0.45),
            Claim(PAGE, "about a quarter `tn`", KernelsDecoded("gemm", "layout", "tn"),
                  at_least=0.2, at_most=0.3),
            Claim(PAGE, "about a quarter `nt`", KernelsDecoded("gemm", "layout", "nt"),
                  at_least=0.2, at_most=0.3),
            Claim(PAGE, "a few percent are split-K reductions",
                  KernelsDecoded("gemm", "kind", "split-K reduction"), at_least=0.01, at_most=0.1),
            Claim(PAGE, "its Triton kernels carry the older names, which say no kind",
                  KernelsDecoded("triton", "kind", "unknown"), **ALL),
        ),
    ),
    RealTrace(
        id="kernels-a100-triton",
        file="docs/traces/a100_triton_culaunch.json.gz",
        title="A compiled function on an A100: one Triton kernel",
        **HTA,
        claims=(
            Claim(PAGE, "holds a single Triton kernel", KernelsDecoded("triton"), at_least=1, at_most=1),
            Claim(PAGE, "a pointwise one", KernelsDecoded("triton", "kind", "pointwise"), **ALL),
            Claim(PAGE, "whose name lists an `add`, a `cos` and a `sin` fused",
                  KernelsDecoded("triton", "fused", "add_cos_sin"), **ALL),
        ),
    ),
)
