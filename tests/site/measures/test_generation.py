"""Known answers of the measures of a generation swept over its sizes (``profguide.site.measures.generation``)."""

from profguide.site.measures.generation import SweptRatio
from tests.helpers import event as cpu
from tests.site.measures import Answer, answers, known, run

ONE_OP = cpu("aten::mm", 0, 5)
# Batch 1 with prompts of 16 and 64 tokens, and batch 4 with the prompt of 64.
SWEPT = run(ONE_OP, results_json={"points": [
    {"batch": 1, "prompt_tokens": 16, "prefill_us": 800.0, "decode_us": 200.0},
    {"batch": 1, "prompt_tokens": 64, "prefill_us": 3200.0, "decode_us": 250.0},
    {"batch": 4, "prompt_tokens": 64, "prefill_us": 12800.0, "decode_us": 500.0}]})
NOT_SWEPT = run(ONE_OP)

ANSWERS = [
    Answer("decode-over-prompt", SWEPT, SweptRatio("decode", 1, 64, "decode", 1, 16), 250 / 200),
    Answer("prefill-over-prompt", SWEPT, SweptRatio("prefill", 1, 64, "prefill", 1, 16), 3200 / 800),
    # A decode step's token: 250 µs; a prefill's token at batch 1, prompt 64: 3200 / 64 = 50 µs.
    Answer("decode-per-token", SWEPT, SweptRatio("decode", 1, 64, "prefill", 1, 64, per="token"), 250 / 50),
    # At batch 4 a decode step handles 4 tokens (125 µs each), its prefill 256 (50 µs each).
    Answer("batch-per-token", SWEPT, SweptRatio("decode", 4, 64, "decode", 1, 64, per="token"), 125 / 250),
    Answer("configuration-not-swept", SWEPT, SweptRatio("decode", 8, 64, "decode", 1, 64), None),
    Answer("no-results", NOT_SWEPT, SweptRatio("decode", 1, 64, "decode", 1, 16), None),
]


@answers(ANSWERS)
def test_known_answer(answer, tmp_path):
    known(answer, tmp_path)
