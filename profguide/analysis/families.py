"""Kernels named by family: what a kernel's name says it does (a GEMM, attention, a Triton pointwise kernel, a
collective …), with the library, precision and tensor-core use where the name says them, and the time each
family took.

Names are fingerprints: cuBLAS, CUTLASS, cuDNN, Tensile (hipBLASLt, rocBLAS), FlashAttention, Inductor and
the communication libraries each name their kernels their own way, and the same names appear on CUDA and
ROCm. A name that says nothing decodes to ``other``, and a field the name does not give stays None: these
are the words a sentence may use, no more.
"""

import re
from functools import lru_cache
from typing import Literal, NamedTuple

import numpy as np

from profguide.analysis.intervals import Mask
from profguide.analysis.summary import FamilyRow
from profguide.patterns import COMMUNICATION, MarkedPattern
from profguide.trace.loader import Codes
from profguide.trace.model import KIND, Trace

GEMM, CONVOLUTION, ATTENTION, TRITON = "gemm", "convolution", "attention", "triton"
ELEMENTWISE, REDUCTION, NORMALIZATION, COPY = "elementwise", "reduction", "normalization", "copy"
COMMUNICATION_FAMILY, OTHER = "communication", "other"
# The families whose kernels multiply matrices, for which precision and tensor-core use mean something.
MATRIX_FAMILIES = frozenset({GEMM, CONVOLUTION, ATTENTION})


class Family(NamedTuple):
    """What a kernel's name says about it; None where the name does not say."""

    family: str  # gemm, convolution, attention, triton, elementwise, reduction, normalization, copy, … other
    library: str | None = None  # cuBLAS, cuBLASLt, CUTLASS, cuDNN, hipBLASLt/Tensile, NCCL, DeepEP …
    precision: str | None = None  # matrix families: the inputs' type, fp8, bf16, tf32, fp32, complex fp32 …
    tensor_cores: bool | None = None  # on NVIDIA's tensor cores or AMD's matrix cores (MFMA)
    backend: str | None = None  # attention: flash, memory-efficient, cuDNN, Triton …
    kind: str | None = None  # Triton: pointwise, reduction …; convolution: fprop, dgrad, wgrad; a collective;
    # a GEMM: gemv, split-K reduction; ATen's elementwise and copy kernels: vectorized, unrolled, strided
    layout: str | None = None  # a GEMM: nn, nt, tn or tt, whether A and B are transposed (column-major, as BLAS)
    tile: str | None = None  # a GEMM's or convolution's tile per thread block, M×N or M×N×K as the name gives it
    split_k: bool | None = None  # True where the name says the K dimension is split (or this is its reduction)
    fused: str | None = None  # an Inductor kernel: the ops it merged, as its name lists them (add_cos_sin)


# Which Family field each of FamilyRow's splits reads, and the families it applies to.
SPLITS = {
    "libraries_us": ("library", frozenset({GEMM, CONVOLUTION, COMMUNICATION_FAMILY})),
    "precision_us": ("precision", MATRIX_FAMILIES),
    "tensor_cores_us": ("tensor_cores", MATRIX_FAMILIES),
    "backends_us": ("backend", frozenset({ATTENTION})),
    "kinds_us": ("kind", frozenset({TRITON, CONVOLUTION, COMMUNICATION_FAMILY})),
}

# How much of a name the patterns read: what a kernel is comes first, and template arguments and parameter lists
# make some names thousands of characters long.
NAME_READ = 512
# Every pattern below reads the lower-cased name; a MarkedPattern tries its expression only on names that hold
# one of its marks, and is no more than its marks where they say it all.
# Inductor's kernels: triton_poi_ (pointwise), triton_red_, triton_per_ (persistent reduction), triton_tem_
# (a template: a matrix multiply, a convolution, flex attention); older Inductor named them triton__0d1d2d….
TRITON_KINDS = {"poi": "pointwise", "red": "reduction", "per": "persistent reduction", "tem": "template"}
TRITON_PREFIX = re.compile(r"triton_(poi|red|per|tem)?_")
TEMPLATE_MATMUL = re.compile(r"(?:^|_)(?:add|b|baddb)?mm(?:_|$)")
# Attention kernels by backend, in the order they are tried: cuDNN's generated SDPA kernels say "flash_fprop",
# and FlashAttention's and the memory-efficient kernels carry "cutlass" in their template arguments.
ANY_ATTENTION = MarkedPattern(("attention", "attn", "fmha", "sdpa", "mha", "flash", "flex_", "mem_eff", "memeff",
                               "bwd_kernel_d"))
ATTENTION_BACKENDS = (
    ("cuDNN", re.compile(r"cudnn.*(?:sdpa|fmha|mha|attention|attn)")),
    ("flash", re.compile(r"flash_fwd|flash_bwd|pytorch_flash::|(?:^|[^a-z_])flash::|flash_?attn")),
    ("memory-efficient", re.compile(r"fmha_cutlass|efficient_attention|mem_?eff|attentionkernel<|"
                                    r"attentionbackwardkernel<")),
    ("Composable Kernel", re.compile(r"ck_tile::.*fmha|fmha_(?:fwd|bwd)_.*ck|fmhafwdkernel|fmhabwd")),
    ("FlashInfer", re.compile(r"flashinfer::.*(?:prefill|decode|attention|mla)")),
    ("paged (vLLM)", re.compile(r"paged_attention")),
    ("trtllm-gen", re.compile(r"^fmhasm\d+a?kernel_")),  # TensorRT-LLM's generated FMHA, which FlashInfer runs
    ("Triton", re.compile(r"(?:^|[^a-z])attn_(?:fwd|bwd)|^bwd_kernel_d(?:k_dv|q)|flex_(?:attention|decoding)")),
)
GENERIC_ATTENTION = re.compile(r"attention|fmha|sdpa|mha_(?:fwd|bwd)")
NORMALIZATION_NAMES = MarkedPattern(("norm", "bn_", "gammabeta", "rowwisemoments"),
                                    r"layer_?norm|rms_?norm|batch_?norm|group_?norm|instance_?norm|bn_(?:fw|bw)|"
                                    r"gammabeta|rowwisemoments")
# Copies: ATen's copy kernels (a dtype conversion is one), cat, cuDNN's layout transforms, the memcpy and memset
# events themselves.
COPY_NAMES = MarkedPattern(("copy", "memcpy", "memset", "nchwtonhwc", "nhwctonchw"),
                           r"copy_kernel|catarraybatchedcopy|^memcpy|^memset|nchwtonhwc|nhwctonchw")
CONVOLUTION_NAMES = MarkedPattern(("cudnn", "cask_", "conv", "miopen", "igemm_", "implicit", "fprop", "dgrad",
                                   "wgrad", "winograd"),
                                  r"cudnn|cask_|convolution|conv[123]d|(?<![a-z])conv_|_conv(?![a-z])|miopen|"
                                  r"igemm_(?:fwd|bwd|wrw)|implicit_?gemm|fprop|dgrad|wgrad|winograd")
CONVOLUTION_KINDS = (("fprop", re.compile(r"fprop|fwd")), ("dgrad", re.compile(r"dgrad|bwd_data")),
                     ("wgrad", re.compile(r"wgrad|wrw|bwd_weight")))
# Kernels that BLAS and convolution libraries launch beside their matrix multiplies and that multiply no matrices:
# cuBLAS's BLAS-1 scal_kernel and cuDNN's scalePackedTensor_kernel scale a tensor by a number, and cuBLASLt's
# epilogue::impl::globalKernel applies a GEMM's epilogue (a bias, an activation) as a kernel of its own when the
# GEMM's kernel could not fuse it. They are their library's elementwise kernels. The sums that finish a product
# computed in pieces stay with it: split-K's reductions with their GEMM, cuDNN's reduce_wgrad_nchw_helper (which adds
# up a weight gradient's partial sums) with its convolution.
LIBRARY_ELEMENTWISE = (("cuBLASLt", MarkedPattern(("epilogue::impl::globalkernel",))),
                       ("cuBLAS", MarkedPattern(("scal_kernel<",), r"(?:^|[^a-z_])scal_kernel<")),
                       ("cuDNN", MarkedPattern(("cudnn::ops::scalepackedtensor",))))
# fbgemm_gpu's kernels (embedding bags, quantisation, permutations) are not matrix multiplies unless they are
# named as one, and then they are CUTLASS's. Nor is a kernel whose only "cutlass" is one of CUTLASS's number types
# among its template arguments (cutlass::bfloat16_t, cutlass::half_t).
# trtllm-gen's batched GEMMs (TensorRT-LLM's, which FlashInfer runs for mixture-of-experts on Blackwell) name the
# output's type, the inputs' types, the accumulator's, then the tile: bmm_Bfloat16_MxE2m1MxE4m3_Fp32_t128x16x256…
TRTLLM_GEN_GEMM = r"^bmm_[a-z0-9]+_[a-z0-9]+_[a-z0-9]+_t\d+x\d+x\d+"
# Triton's matmul_ogs (triton_kernels, which vLLM and SGLang run for mixture-of-experts, gpt-oss's mxfp4 weights
# say) names each specialisation _matmul[_o{g}{s} when it gathers or scatters rows][_ptma]_{the layouts of Y, X
# and W}_{their types, Y x X x W}_{BLOCK_M x BLOCK_N x BLOCK_K x SPLIT_K}, then any fused epilogue (swiglu):
# make_matmul_repr in triton-lang/triton's python/triton_kernels/triton_kernels/matmul_ogs_details/_common.py.
TRITON_MATMUL = r"^_matmul(?:_o[gs]+)?(?:_ptma)?_[nt]{3}_[a-z0-9]+x[a-z0-9]+x[a-z0-9]+_(\d+x\d+x\d+)x(\d+)"
TRITON_MATMUL_NAME = re.compile(TRITON_MATMUL)
GEMM_NAMES = MarkedPattern(("gemm", "gemv", "cutlass", "xmma", "nvjet", "cublas", "cijk_", "rocblas", "hipblaslt",
                            "ck::", "bmm_", "_matmul"),
                           r"(?<!fb)gemm|gemv|cutlass(?!::[a-z0-9_]+_t\b)|xmma|nvjet|cublas|^cijk_|rocblas|"
                           r"hipblaslt|(?:^|[^a-z_])ck::.*gemm|" + TRTLLM_GEN_GEMM + "|" + TRITON_MATMUL)
GEMM_LIBRARIES = (
    ("trtllm-gen", re.compile(TRTLLM_GEN_GEMM)),
    ("Triton", TRITON_MATMUL_NAME),
    ("hipBLASLt/Tensile", re.compile(r"^cijk_")),  # Tensile's kernels, which rocBLAS and hipBLASLt both run
    ("rocBLAS", re.compile(r"rocblas")),
    ("hipBLASLt", re.compile(r"hipblaslt")),
    ("Composable Kernel", re.compile(r"(?:^|[^a-z_])ck::")),
    ("cuBLASLt", re.compile(r"cublaslt|^sm\d+_xmma_gemm|^nvjet")),
    ("CUTLASS", re.compile(r"cutlass")),  # cuBLAS ships CUTLASS-built kernels too: this says how it was built
    ("cuBLAS", re.compile(r"cublas|^(?:maxwell|kepler|volta|turing|ampere|ada|hopper|blackwell)_|gemv|gemmk1|"
                          r"gemmsn|sgemm_largek|splitkreduce")),
)
CONVOLUTION_LIBRARIES = (("cuDNN", re.compile(r"cudnn|cask_")), ("MIOpen", re.compile(r"miopen|igemm_")))
# The inputs' precision in CUDA libraries' names, lowest first: a kernel names its inputs' type before the
# accumulator's (bf16bf16_bf16f32), s1688 without another type is Ampere's TF32 tensor-core instruction, and a
# name with bf16 in it never reaches fp16's "f16". FP4 is E2M1 (trtllm-gen's MxE2m1 weights beside MxE4m3 activations
# read as fp4, the lower of the two). BLAS names a GEMM on single-precision complex numbers cgemm: cuDNN's FFT
# convolutions run one (ampere_gcgemm_…) between the forward transforms (fft2d_r2c, real floats to float2) and the
# inverse one.
PRECISIONS = (
    ("fp4", MarkedPattern(("e2m1", "fp4"))),
    ("fp8", MarkedPattern(("e4m3", "e5m2", "fp8"))),
    ("int8", MarkedPattern(("imma", "i8816", "i16832", "int8"))),
    ("bf16", MarkedPattern(("bf16", "bfloat16"))),
    ("fp16", MarkedPattern(("f16", "fp16", "half", "h884", "h1688", "h16816", "h161616", "hgemm", "hmma"))),
    ("tf32", MarkedPattern(("tf32", "tfloat32", "xf32", "s1688"))),
    ("complex fp32", MarkedPattern(("cgemm",))),
    ("fp64", MarkedPattern(("dgemm", "d884", "dmma", "f64f64", "double"),
                           r"dgemm|d884|dmma|f64f64|(?<![a-z])double(?![a-z0-9_])")),
    ("fp32", MarkedPattern(("sgemm", "scudnn", "f32f32", "float"),
                           r"sgemm|scudnn|f32f32|(?<![a-z])float(?![a-z0-9_])")),
)
# Tensile's type code, the field after the layouts: its first letters name the inputs (B in …_Bljk_B_BS_BH_…, where
# BS is the output's and the sums' types and BH says a beta and high-precision sums; older names ran them together,
# BBS_BH, and SB for FP32 with a beta).
TENSILE_TYPE = re.compile(r"^cijk_a[a-z]+_b[a-z]+_([a-z0-9]+)")
TENSILE_PRECISIONS = (("f8", "fp8"), ("b8", "fp8"), ("i8", "int8"), ("4xi8", "int8"), ("x", "tf32"),
                      ("b", "bf16"), ("h", "fp16"), ("s", "fp32"), ("d", "fp64"))
# trtllm-gen's names give the tensor-core instruction's shape after their tile: …_t128x16x256…_m128x16x32_….
# CUTLASS's mainloops name the instruction they issue: Hopper's GMMA (…TmaGmmaWarpSpecialized…), Blackwell's
# UMMA (…TmaUmmaWarpSpecialized…).
ON_TENSOR_CORES = MarkedPattern(("tensorop", "xmma", "mma", "nvjet", "_mfma", "xdl", "_mi", "tensor", "884",
                                 "1688", "16816", "161616", "16832", "bmm_"),
                                r"tensorop|xmma|wmma|hmma|imma|dmma|gmma|tmaumma|nvjet|_mfma|xdl|_mi\d+x\d+|"
                                r"tensor\d+x\d+x\d+|[hsdi](?:884|1688|16816|161616|16832)|"
                                r"^bmm_.*_m\d+x\d+x\d+_")
# FP8 and FP4 matrix multiplies run on tensor (or matrix) cores and nowhere else: NVIDIA's FP8 since Hopper and
# FP4 since Blackwell are tensor-core types only, and CDNA3's FP8 are MFMA types; a kernel that multiplies
# narrower weights by 16-bit activations (matmul_ogs's bf16 × mxfp4) widens the weights into the same
# instructions.
TENSOR_CORE_ONLY = frozenset({"fp8", "fp4"})
OFF_TENSOR_CORES = MarkedPattern(("sgemm", "simt", "gemv", "gemmsn", "gemmk1", "scudnn"))
# A GEMM's layout: cuBLAS and CUTLASS end it with two letters, A's then B's, n for as stored, t for transposed
# (ampere_sgemm_128x64_nn, …_s1688gemm_128x128_16x4_tn_align4, sm90_xmma_gemm_…_tn_n_tilesize…); Tensile writes
# the index order of each operand instead: Ailk is A as stored, Alik transposed, Bljk B as stored, Bjlk transposed.
BLAS_LAYOUT = re.compile(r"(?<![a-z0-9])([nt][nt])(?=_align\d|_[nt]_tilesize|_v\d|$)")
TENSILE_LAYOUT = re.compile(r"^cijk_a(ilk|lik)_b(ljk|jlk)")
TENSILE_TRANSPOSED = {"ilk": "n", "lik": "t", "ljk": "n", "jlk": "t"}
# The tile of a thread block: CUTLASS writes M×N then K×stages after the operation (…gemm_relu_bf16_64x64_64x6_…);
# cuBLAS's own kernels M×N, some with a slicing (ampere_sgemm_32x32_sliced1x4_tn); xmma "tilesize" M×N×K; Tensile
# its macro tile ("MT" M×N×depth); cuDNN's scudnn kernels M×N; trtllm-gen "t" M×N×K.
CUTLASS_TILE = re.compile(r"(?:gemm|fprop|dgrad|wgrad)_(?:[a-z0-9]+_)*?(\d+)x(\d+)_(\d+)x\d+_")
CUBLAS_TILE = re.compile(r"^(?:maxwell|kepler|volta|turing|ampere|ada|hopper|blackwell)_[a-z0-9_]*?gemm_"
                         r"(?:[a-z0-9]+_)*?(\d+x\d+(?:_sliced\d+x\d+)?)(?:_|$)")
NAMED_TILE = re.compile(r"tilesize(\d+x\d+x\d+)|^cijk_.*?_mt(\d+x\d+x\d+)_|"
                        r"scudnn_(?:winograd_)?(\d+x\d+(?:_sliced\d+x\d+)?)_|^bmm_.*?_t(\d+x\d+x\d+)|"
                        + TRITON_MATMUL)
SPLIT_K = re.compile(r"split_?k")
SPLIT_K_REDUCTION = re.compile(r"splitkreduce|reducesplitk")
# ATen's elementwise loops (CUDALoops.cuh): contiguous tensors get vectorized loads where they can, an unrolled
# loop where they cannot; others go through the strided loop, which computes each element's offsets.
ATEN_LOOPS = (("vectorized", re.compile(r"vectorized_elementwise_kernel")),
              ("unrolled", re.compile(r"unrolled_elementwise_kernel")),
              ("strided", re.compile(r"(?:^|[^a-z_])elementwise_kernel(?:_manual_unroll)?<")))
INDUCTOR_FUSED = re.compile(r"fused_(.+?)_\d+$")
COMMUNICATION_LIBRARIES = (
    ("RCCL", re.compile(r"rccl")),  # RCCL's kernels keep NCCL's names: only a name saying rccl says RCCL
    ("NCCL", re.compile(r"nccl")),
    ("gloo", re.compile(r"gloo")),
    ("DeepEP", re.compile(r"deep_ep|(?<![a-z])(?:intra|inter)node(?:_ll)?::")),
    ("NVSHMEM", re.compile(r"nvshmem")),
    ("rocSHMEM", re.compile(r"rocshmem")),
    ("MSCCL", re.compile(r"msccl")),
    ("UCC", re.compile(r"(?<![a-z])ucc(?![a-z])")),
    ("symmetric memory", re.compile(r"symm_mem|symmetric_memory|multimem_")),
    ("custom all-reduce", re.compile(r"all_?reduce|cross_device_reduce|mnnvl")),
)
COLLECTIVES = (("all-reduce", "allreduce"), ("all-gather", "allgather"), ("reduce-scatter", "reducescatter"),
               ("all-to-all", "alltoall"), ("send/recv", "sendrecv"), ("broadcast", "broadcast"),
               ("dispatch", "dispatch"), ("combine", "combine"), ("all-reduce", "crossdevicereduce"))
ATEN_REDUCTIONS = MarkedPattern(("reduce_kernel", "softmax"))
ELEMENTWISE_NAMES = MarkedPattern(("elementwise", "multi_tensor_apply", "dropout"))
OTHER_REDUCTIONS = MarkedPattern(("reduce", "devicescan", "reducebykey"))


def first_match(table: tuple[tuple[str, re.Pattern[str]], ...], lowered: str) -> str | None:
    """The label of the first pattern in ``table`` that ``lowered`` contains, or None."""
    return next((label for label, pattern in table if pattern.search(lowered)), None)


def first_marked(table: tuple[tuple[str, MarkedPattern], ...], lowered: str) -> str | None:
    """The label of the first marked pattern in ``table`` that ``lowered`` matches, or None."""
    return next((label for label, pattern in table if pattern.search_lowered(lowered)), None)


def tensor_cores(lowered: str, inputs: str | None) -> bool | None:
    """Whether a matrix kernel's name says it runs on tensor (or matrix) cores, says it does not, or neither;
    ``inputs``, the precision it gives, says so for FP8 and FP4 (``TENSOR_CORE_ONLY``)."""
    if inputs in TENSOR_CORE_ONLY or ON_TENSOR_CORES.search_lowered(lowered):
        return True
    return False if OFF_TENSOR_CORES.search_lowered(lowered) else None


def precision(lowered: str) -> str | None:
    """The inputs' precision that a matrix kernel's name gives, Tensile's type code included."""
    tensile = TENSILE_TYPE.match(lowered)
    if tensile:
        return next((name for code, name in TENSILE_PRECISIONS if tensile.group(1).startswith(code)), None)
    return first_marked(PRECISIONS, lowered)


def layout(lowered: str) -> str | None:
    """A GEMM's layout (nn, nt, tn, tt), where its name gives one."""
    tensile = TENSILE_LAYOUT.match(lowered)
    if tensile:
        return TENSILE_TRANSPOSED[tensile.group(1)] + TENSILE_TRANSPOSED[tensile.group(2)]
    found = BLAS_LAYOUT.search(lowered)
    return found.group(1) if found else None


def tile(lowered: str) -> str | None:
    """A matrix kernel's thread-block tile as its library writes it (M×N, M×N×K), where its name gives one."""
    cutlass = CUTLASS_TILE.search(lowered) if "cutlass" in lowered else None
    if cutlass:
        return "x".join(cutlass.groups())
    cublas = CUBLAS_TILE.match(lowered)
    if cublas:
        return cublas.group(1)
    named = NAMED_TILE.search(lowered)
    return next(group for group in named.groups() if group) if named else None


def splits_k(lowered: str) -> bool | None:
    """True where a matrix kernel's name says it splits K: in words, or as matmul_ogs's SPLIT_K above 1."""
    triton = TRITON_MATMUL_NAME.match(lowered)
    return True if SPLIT_K.search(lowered) or (triton and int(triton.group(2)) > 1) else None


def matrix_family(family: str, lowered: str, library: str | None, kind: str | None = None) -> Family:
    """A GEMM or a convolution, with the precision, core use, layout (a GEMM's), tile and split-K its name
    gives."""
    inputs = precision(lowered)
    return Family(family, library, inputs, tensor_cores(lowered, inputs), kind=kind,
                  layout=layout(lowered) if family == GEMM else None, tile=tile(lowered), split_k=splits_k(lowered))


def gemm_kind(lowered: str) -> str | None:
    """A matrix-vector product, or the reduction that adds up a split-K GEMM's partial results."""
    if "gemv" in lowered:
        return "gemv"
    return "split-K reduction" if SPLIT_K_REDUCTION.search(lowered) else None


def communication_family(lowered: str) -> Family:
    """A collective, with its library and, where the name says it, what it does (all-reduce, dispatch …)."""
    squeezed = lowered.replace("_", "")
    kind = next((label for label, mark in COLLECTIVES if mark in squeezed), None)
    return Family(COMMUNICATION_FAMILY, first_match(COMMUNICATION_LIBRARIES, lowered), kind=kind)


def triton_family(lowered: str, prefix: re.Match[str]) -> Family:
    """An Inductor kernel: its kind from the prefix; a template is the matrix multiply, convolution or
    attention it was made from, when its name says which."""
    kind = TRITON_KINDS.get(prefix.group(1) or "")
    merged = INDUCTOR_FUSED.match(lowered, prefix.end())
    ops = merged.group(1) if merged else None
    if kind == "template":
        fused = lowered[prefix.end():]
        if ANY_ATTENTION.search_lowered(fused):
            return Family(ATTENTION, backend="Triton", kind=kind, fused=ops)
        if CONVOLUTION_NAMES.search_lowered(fused):
            return Family(CONVOLUTION, "Triton", kind=kind, fused=ops)
        if TEMPLATE_MATMUL.search(fused):
            return Family(GEMM, "Triton", kind=kind, fused=ops)
    return Family(TRITON, "Triton", kind=kind, fused=ops)


def attention_family(lowered: str, backend: str | None) -> Family:
    """Attention: flash's kernels exist only for fp16 and bf16, cuDNN's for those and fp8, all on tensor cores.
    cuDNN's generated kernels write f16 for either 16-bit type (a bf16 run's is …_wmma_f16_… too), so that says no
    more than 16 bits."""
    inputs = precision(lowered)
    if backend == "cuDNN" and inputs == "fp16":
        inputs = None
    cores = tensor_cores(lowered, inputs)
    if backend in ("flash", "cuDNN") or (backend == "memory-efficient" and inputs in ("fp16", "bf16")):
        cores = True
    return Family(ATTENTION, precision=inputs, tensor_cores=cores, backend=backend)


@lru_cache(maxsize=1 << 16)
def kernel_family(name: str) -> Family:
    """What ``name`` (a kernel's, as CUDA or ROCm names it) says the kernel is.

    The families are tried in an order that settles overlaps: a collective before all else, Inductor's
    kernels by their prefix, attention before convolutions and GEMMs (its kernels carry ``cutlass`` and
    ``fprop``), normalization and layout copies before cuDNN's convolutions, the libraries' elementwise kernels
    before their GEMMs and convolutions (cuBLAS's ``scal_kernel`` takes ``cublasTransposeParams``), GEMMs before
    reductions (cuBLAS's ``splitKreduce_kernel``), copies before elementwise kernels (ATen's copy runs in its
    ``elementwise_kernel``).
    """
    lowered = name[:NAME_READ].lower()
    if COMMUNICATION.search_lowered(lowered):
        return communication_family(lowered)
    prefix = TRITON_PREFIX.match(lowered)
    if prefix:
        return triton_family(lowered, prefix)
    if ANY_ATTENTION.search_lowered(lowered):
        backend = first_match(ATTENTION_BACKENDS, lowered)
        if backend or GENERIC_ATTENTION.search(lowered):
            return attention_family(lowered, backend)
    if NORMALIZATION_NAMES.search_lowered(lowered):
        return Family(NORMALIZATION, "cuDNN" if "cudnn" in lowered else None)
    if COPY_NAMES.search_lowered(lowered):
        return Family(COPY, kind=first_match(ATEN_LOOPS, lowered))
    helper = first_marked(LIBRARY_ELEMENTWISE, lowered)
    if helper:
        return Family(ELEMENTWISE, helper)
    if CONVOLUTION_NAMES.search_lowered(lowered):
        return matrix_family(CONVOLUTION, lowered, first_match(CONVOLUTION_LIBRARIES, lowered),
                             first_match(CONVOLUTION_KINDS, lowered))
    if GEMM_NAMES.search_lowered(lowered):
        return matrix_family(GEMM, lowered, first_match(GEMM_LIBRARIES, lowered), gemm_kind(lowered))
    if ATEN_REDUCTIONS.search_lowered(lowered):
        return Family(REDUCTION)
    if ELEMENTWISE_NAMES.search_lowered(lowered):
        return Family(ELEMENTWISE, kind=first_match(ATEN_LOOPS, lowered))
    return Family(REDUCTION) if OTHER_REDUCTIONS.search_lowered(lowered) else Family(OTHER)


def labels(table: tuple[tuple[str, object], ...]) -> set[str]:
    return {label for label, _ in table}


# The values each field can take, as split_label writes them: what a sentence about a family's kernels may name.
# The tile and the fused ops are parts of the name itself, open-ended.
FIELD_VALUES = {
    "library": labels(GEMM_LIBRARIES) | labels(CONVOLUTION_LIBRARIES) | labels(COMMUNICATION_LIBRARIES)
    | {"cuDNN", "Triton"},
    "precision": labels(PRECISIONS) | {name for _, name in TENSILE_PRECISIONS},
    "tensor_cores": {"yes", "no"},
    "backend": labels(ATTENTION_BACKENDS),
    "kind": set(TRITON_KINDS.values()) | labels(CONVOLUTION_KINDS) | {label for label, _ in COLLECTIVES}
    | labels(ATEN_LOOPS) | {"gemv", "split-K reduction"},
    "layout": {"nn", "nt", "tn", "tt"},
    "split_k": {"yes"},
}


def family_values(field: str) -> set[str] | None:
    """The labels a Family field's values take (``unknown`` where a name does not say), or None for a field
    whose values are parts of the kernel's name (its tile, its fused ops)."""
    return FIELD_VALUES[field] | {"unknown"} if field in FIELD_VALUES else None


def split_label(value: str | bool | None) -> str:
    """A Family field's value as a key of a FamilyRow split."""
    if value is None:
        return "unknown"
    if isinstance(value, bool):
        return "yes" if value else "no"
    return value


def split_times(values: list[str | bool | None], decoded_at: np.ndarray, family_at: np.ndarray,
                durations: np.ndarray, families: int) -> list[dict[str, float]]:
    """For each family, the time of its kernels by the label of their value (one per distinct decoded Family,
    which ``decoded_at`` indexes): one bincount over (family, label) pairs. Labels with no time are left out."""
    labels = sorted({split_label(value) for value in values})
    label_at = np.array([labels.index(split_label(value)) for value in values], dtype=np.intp)[decoded_at]
    time = np.bincount(family_at * len(labels) + label_at, weights=durations,
                       minlength=families * len(labels)).reshape(families, len(labels))
    return [{label: float(us) for label, us in zip(labels, row.tolist(), strict=True) if us > 0} for row in time]


def family_breakdown(trace: Trace, mask: Mask) -> list[FamilyRow]:
    """The kernels of ``mask`` (GPU events the caller chose, kernels in a window say) by family, the largest
    first: [FamilyRow]. Each distinct name is decoded once."""
    codes, durations = trace.name[mask], trace.dur[mask]
    present = np.flatnonzero(np.bincount(codes, minlength=len(trace.names)))
    # Names by the thousand decode to a few distinct Family values: each name is decoded and numbered by its
    # value in C loops (map), and everything after works on the distinct values.
    numbered: Codes[Family] = Codes()
    value_of_name = np.zeros(len(trace.names), dtype=np.intp)
    value_of_name[present] = np.fromiter(map(numbered.__getitem__, map(kernel_family, map(trace.names.__getitem__,
                                                                                              present.tolist()))),
                                         np.intp, len(present))
    decoded = list(numbered)
    family_names = sorted({found.family for found in decoded})
    decoded_at = value_of_name[codes]  # each kernel's index into decoded
    family_at = np.array([family_names.index(found.family) for found in decoded], dtype=np.intp)[decoded_at]
    time = np.bincount(family_at, weights=durations, minlength=len(family_names))
    count = np.bincount(family_at, minlength=len(family_names))
    splits = {key: split_times([getattr(found, field) for found in decoded], decoded_at, family_at, durations,
                               len(family_names))
              for key, (field, _) in SPLITS.items()}
    total = float(durations.sum())
    rows: list[FamilyRow] = []
    for index in sorted(range(len(family_names)), key=lambda i: (-time[i], family_names[i])):
        family = family_names[index]
        split = {key: splits[key][index] if family in SPLITS[key][1] else {} for key in SPLITS}
        rows.append({"family": family, "time_us": float(time[index]),
                     "share_pct": 100 * float(time[index]) / total if total > 0 else 0.0, "count": int(count[index]),
                     "libraries_us": split["libraries_us"], "precision_us": split["precision_us"],
                     "tensor_cores_us": split["tensor_cores_us"], "backends_us": split["backends_us"],
                     "kinds_us": split["kinds_us"]})
    return rows


# How a sentence names each family's share ("21% in attention").
FAMILY_WORDS = {GEMM: "GEMMs", CONVOLUTION: "convolutions", ATTENTION: "attention", TRITON: "Triton kernels",
                ELEMENTWISE: "elementwise kernels", REDUCTION: "reductions", NORMALIZATION: "normalization",
                COPY: "copies", COMMUNICATION_FAMILY: "communication", OTHER: "other kernels"}
# Which split a family's parenthesis reads ("attention (flash)").
NAMED_SPLIT: dict[str, Literal["backends_us", "kinds_us", "libraries_us"]] = {
    ATTENTION: "backends_us", TRITON: "kinds_us", COMMUNICATION_FAMILY: "libraries_us"}


def percent(part: float, whole: float) -> str:
    """``part`` of ``whole`` as a whole percentage that says 100% only of all and 0% only of none."""
    share = 100 * part / whole if whole > 0 else 0.0
    if 0 < share < 1:
        return "<1%"
    if 99 < share < 100:
        return "99%"
    return f"{share:.0f}%"


def listed(parts: list[str]) -> str:
    """"a", "a and b", "a, b and c"."""
    return parts[0] if len(parts) == 1 else ", ".join(parts[:-1]) + " and " + parts[-1]


def cores_words(row: FamilyRow) -> str | None:
    """What a matrix family's names say of its tensor-core use: "all on tensor cores", "83% of it on …"."""
    cores, whole = row["tensor_cores_us"], row["time_us"]
    if set(cores) == {"yes"}:
        return "all on tensor cores"
    if set(cores) == {"no"}:
        return "none on tensor cores"
    if "yes" in cores:
        return f"{percent(cores['yes'], whole)} of it on tensor cores"
    return f"{percent(cores['no'], whole)} of it not on tensor cores" if "no" in cores else None


def shown_parts(split: dict[str, float], whole: float) -> list[tuple[str, str]]:
    """(label, share) of a split's known labels, the largest first, leaving out those under 1% (always the
    largest one)."""
    known = sorted(((us, name) for name, us in split.items() if name != "unknown"), reverse=True)
    return [(name, percent(us, whole)) for rank, (us, name) in enumerate(known) if rank == 0 or 100 * us >= whole]


def single_precision(row: FamilyRow) -> str | None:
    """The one precision that all of a family's time ran in, if its names say so."""
    names = set(row["precision_us"])
    return next(iter(names)) if len(names) == 1 and names != {"unknown"} else None


def precision_words(row: FamilyRow) -> str:
    """"all in bf16", "in tf32 (70%) and fp32 (30%)", or "precision not in the names"."""
    split, whole = row["precision_us"], row["time_us"]
    parts = shown_parts(split, whole)
    if not parts:
        return "precision not in the names"
    if single_precision(row):
        return f"all in {parts[0][0]}"
    words = "in " + listed([f"{name} ({share})" for name, share in parts])
    unknown = split.get("unknown", 0.0)
    return words + (f", precision not in the names for {percent(unknown, whole)}" if 100 * unknown >= whole else "")


def named_words(split: dict[str, float], whole: float) -> str | None:
    """"(flash)" or "(flash 80%, memory-efficient 20%)": what a family's names say, by share."""
    parts = shown_parts(split, whole)
    if not parts:
        return None
    if len(split) == 1:
        return f"({parts[0][0]})"
    words = [f"{name} {share}" for name, share in parts]
    if 100 * split.get("unknown", 0.0) >= whole:
        words.append(f"{percent(split['unknown'], whole)} not in the names")
    return "(" + ", ".join(words) + ")"


def family_words(row: FamilyRow) -> str:
    """One family's part of the sentence, without its share."""
    words = f"in {FAMILY_WORDS[row['family']]}"
    if row["family"] in (GEMM, CONVOLUTION):
        cores = cores_words(row)
        single = single_precision(row)
        if cores == "all on tensor cores" and single:
            return f"{words}, {cores} in {single}"
        return ", ".join([words, *([cores] if cores else []), precision_words(row)])
    named = named_words(row[NAMED_SPLIT[row["family"]]], row["time_us"]) if row["family"] in NAMED_SPLIT else None
    return f"{words} {named}" if named else words


def family_sentence(rows: list[FamilyRow], most: int = 4) -> str | None:
    """The evidence in one sentence: the ``most`` largest families (of at least 1% of the time) and what
    their names say: "62% of kernel time in GEMMs, all on tensor cores in bf16; 21% in attention (flash);
    9% in elementwise kernels." None when no kernel took any time."""
    shown = [row for row in rows if row["share_pct"] >= 1][:most]
    if not shown:
        return None
    first, *others = [(percent(row["share_pct"], 100), family_words(row)) for row in shown]
    return "; ".join([f"{first[0]} of kernel time {first[1]}", *(f"{share} {words}" for share, words in others)]) + "."


def decoded_kernels(trace: Trace) -> list[tuple[Family, int]]:
    """Each kernel name of the trace decoded (``kernel_family``), with how many kernels have it."""
    present, counts = np.unique(trace.name[trace.kind == KIND["kernel"]], return_counts=True)
    return [(kernel_family(trace.names[code]), int(count))
            for code, count in zip(present.tolist(), counts.tolist(), strict=True)]
