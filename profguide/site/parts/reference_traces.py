"""Real traces that the reference page and the rules read: the MI250 under ROCm, a Qwen forward pass on an H100,
and a BERT forward pass on an H100 and on an MI300X (the MI300X run the after of the H100 one, for
``profguide diff``). No page makes claims about them yet."""

from profguide.site.parts.reading_waits import HTA
from profguide.site.recordings import RealTrace

# docs/traces/README.md: copies of TraceLens's test traces, MIT licence (AMD's notice) in docs/traces/LICENSE.
# TraceLens publishes them for testing and education, not as official performance numbers.
TRACELENS = {"source": "TraceLens test traces, commit 171dd747",
             "source_url": "https://github.com/AMD-AGI/TraceLens/tree/171dd747",
             "licence": "MIT"}

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
    ),
    RealTrace(
        id="reading-h100-bert",
        file="docs/traces/h100_bert_small_inference.json.gz",
        title="BERT-small fill-mask inference on an H100, one sequence of 512 tokens, bf16",
        **TRACELENS,
    ),
    RealTrace(
        id="reading-mi300x-bert",
        file="docs/traces/mi300x_bert_small_inference.json.gz",
        title="BERT-small fill-mask inference on an MI300X, one sequence of 512 tokens, bf16",
        **TRACELENS,
        compared_with="reading-h100-bert",
    ),
)
