"""Real traces that the reference page, the rules and *Reading a kernel's name* read: the MI250 under ROCm, a Qwen
forward pass on an H100 and on an MI300X, a BERT forward pass on an H100 and on an MI300X (the MI300X run the
after of the H100 one, for ``profguide diff``), and two A100 traces for their GEMMs' and Triton kernels' names."""

from profguide.site.parts.reading_waits import HTA
from profguide.site.recordings import Claim, KernelsDecoded, RealTrace

# docs/traces/README.md: copies of TraceLens's test traces, MIT licence (AMD's notice) in docs/traces/LICENSE.
# TraceLens publishes them for testing and education, not as official performance numbers.
TRACELENS = {"source": "TraceLens test traces, commit 171dd747",
             "source_url": "https://github.com/AMD-AGI/TraceLens/tree/171dd747",
             "licence": "MIT"}

KERNEL_NAMES = "inside-a-model/kernel-names.md"
ALL = {"at_least": 1, "at_most": 1}  # a share of all; a count of one

REAL_TRACES = (
    RealTrace(
        id="reading-mi250-rocm",
        file="docs/traces/mi250_rocm.json.gz",
        title="Two training steps of a toy model on an AMD MI250 under ROCm 6.2",
        **HTA,
    ),
    RealTrace(
        id="reading-h100-qwen",
        file="docs/traces/h100_qwen1.5_0.5b_inference.json.gz",
        title="Qwen1.5-0.5B-Chat inference on an H100, batch 16 × 2048 tokens, bf16",
        **TRACELENS,
        claims=(
            Claim(KERNEL_NAMES, "the H100's Qwen pass launches one GEMM in FP32",
                  KernelsDecoded("gemm", "precision", "fp32", count=True), **ALL),
            Claim(KERNEL_NAMES, "its other GEMMs are cuBLASLt kernels", KernelsDecoded("gemm", "library", "cuBLASLt"),
                  at_least=0.99, at_most=0.999),
            Claim(KERNEL_NAMES, "all the others in bf16", KernelsDecoded("gemm", "precision", "bf16"),
                  at_least=0.99, at_most=0.999),
        ),
    ),
    RealTrace(
        id="kernels-mi300x-qwen",
        file="docs/traces/mi300x_qwen1.5_0.5b_inference.json.gz",
        title="Qwen1.5-0.5B-Chat inference on an MI300X, batch 16 × 2048 tokens, bf16",
        **TRACELENS,
        claims=(
            Claim(KERNEL_NAMES, "and so does the MI300X's", KernelsDecoded("gemm", "precision", "fp32", count=True),
                  **ALL),
        ),
    ),
    RealTrace(
        id="reading-h100-bert",
        file="docs/traces/h100_bert_small_inference.json.gz",
        title="BERT-small fill-mask inference on an H100, one sequence of 512 tokens, bf16",
        **TRACELENS,
        claims=(
            Claim(KERNEL_NAMES, "every GEMM it ran is in bf16", KernelsDecoded("gemm", "precision", "bf16"),
                  **ALL),
            Claim(KERNEL_NAMES, "on tensor cores", KernelsDecoded("gemm", "tensor_cores", "yes"), **ALL),
            Claim(KERNEL_NAMES, "in the layout `tn`", KernelsDecoded("gemm", "layout", "tn"), **ALL),
            Claim(KERNEL_NAMES, "Most of its GEMM launches are CUTLASS kernels",
                  KernelsDecoded("gemm", "library", "CUTLASS"), at_least=0.5, at_most=0.95),
            Claim(KERNEL_NAMES, "the rest cuBLASLt's Hopper kernels",
                  KernelsDecoded("gemm", "library", "cuBLASLt"), at_least=0.05, at_most=0.5),
            Claim(KERNEL_NAMES, "its attention is SDPA's flash kernel", KernelsDecoded("attention", "backend", "flash"),
                  **ALL),
        ),
    ),
    RealTrace(
        id="reading-mi300x-bert",
        file="docs/traces/mi300x_bert_small_inference.json.gz",
        title="BERT-small fill-mask inference on an MI300X, one sequence of 512 tokens, bf16",
        **TRACELENS,
        compared_with="reading-h100-bert",
        claims=(
            Claim(KERNEL_NAMES, "every GEMM of the MI300X's is a Tensile kernel",
                  KernelsDecoded("gemm", "library", "hipBLASLt/Tensile"), **ALL),
            Claim(KERNEL_NAMES, "in bf16 as well", KernelsDecoded("gemm", "precision", "bf16"), **ALL),
            Claim(KERNEL_NAMES, "`tn` as well", KernelsDecoded("gemm", "layout", "tn"), **ALL),
            Claim(KERNEL_NAMES, "its attention is a Triton kernel", KernelsDecoded("attention", "backend", "Triton"),
                  **ALL),
        ),
    ),
    RealTrace(
        id="kernels-a100-16rank",
        file="docs/traces/a100_80gb_nccl_16rank_rank0.json.gz",
        title="Rank 0 of a 16-rank training job on A100-SXM4-80GB GPUs, NCCL",
        **HTA,
        claims=(
            Claim(KERNEL_NAMES, "most of its GEMM launches are TF32 kernels",
                  KernelsDecoded("gemm", "precision", "tf32"), at_least=0.5, at_most=0.95),
            Claim(KERNEL_NAMES, "some of them FP32 on CUDA cores", KernelsDecoded("gemm", "tensor_cores", "no"),
                  at_least=0.05, at_most=0.5),
            Claim(KERNEL_NAMES, "about two fifths `nn`", KernelsDecoded("gemm", "layout", "nn"),
                  at_least=0.35, at_most=0.45),
            Claim(KERNEL_NAMES, "about a quarter `tn`", KernelsDecoded("gemm", "layout", "tn"),
                  at_least=0.2, at_most=0.3),
            Claim(KERNEL_NAMES, "about a quarter `nt`", KernelsDecoded("gemm", "layout", "nt"),
                  at_least=0.2, at_most=0.3),
            Claim(KERNEL_NAMES, "a few percent are split-K reductions",
                  KernelsDecoded("gemm", "kind", "split-K reduction"), at_least=0.01, at_most=0.1),
            Claim(KERNEL_NAMES, "its Triton kernels carry the older names, which say no kind",
                  KernelsDecoded("triton", "kind", "unknown"), **ALL),
        ),
    ),
    RealTrace(
        id="kernels-a100-triton",
        file="docs/traces/a100_triton_culaunch.json.gz",
        title="A compiled function on an A100: one Triton kernel",
        **HTA,
        claims=(
            Claim(KERNEL_NAMES, "holds a single Triton kernel", KernelsDecoded("triton"), at_least=1, at_most=1),
            Claim(KERNEL_NAMES, "a pointwise one", KernelsDecoded("triton", "kind", "pointwise"), **ALL),
            Claim(KERNEL_NAMES, "whose name lists an `add`, a `cos` and a `sin` fused",
                  KernelsDecoded("triton", "fused", "add_cos_sin"), **ALL),
        ),
    ),
)
