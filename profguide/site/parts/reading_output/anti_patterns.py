"""The recordings of Part 2, Reading the output: Anti-patterns."""

from profguide.site.recordings import Claim, Recording, RuleFixed

PAGE = "reading-output/anti-patterns.md"
ANTI_PATTERNS = "snippets.reading_output.anti_patterns"
ANTI_PATTERNS_PARAMS = {"batch_size": 32, "image": 16, "hidden": 100, "classes": 8, "wait": 1, "warmup": 1,
                        "active": 3}


def anti_patterns_run(fixed, suffix, claims=(), compared_with=""):
    """The small training loop with the mistakes torch's anti-pattern matcher looked for, or with each fixed; what
    it shows is in the ops the host runs, so it is a CPU run."""
    return Recording(
        id=f"reading-anti-patterns{suffix}",
        module=ANTI_PATTERNS,
        function="profile_anti_patterns",
        params={"fixed": fixed, **ANTI_PATTERNS_PARAMS},
        device="cpu",
        title="A small training loop, fixed={fixed}",
        claims=claims,
        compared_with=compared_with,
    )


RECORDINGS = (
    anti_patterns_run(False, ""),
    anti_patterns_run(True, "-fixed", compared_with="reading-anti-patterns", claims=tuple(
        Claim(PAGE, says, RuleFixed(rule), at_least=1, at_most=1) for rule, says in (
            ("single-tensor-optimizer", "the single-tensor optimizer's rule no longer fires"),
            ("zero-grad-zeroes", "nor does the rule for zeroing gradients"),
            ("conv-bias-before-batch-norm", "nor the one for a convolution's bias before a batch norm"),
            ("half-matmul-not-multiple-of-8", "nor the one for bf16 matrix multiplies whose sizes are not "
                                              "multiples of 8"),
            ("data-parallel", "nor the one for `DataParallel`"),
        ))),
)
