"""The recordings of Part 2, Reading the output: Anti-patterns."""

from __future__ import annotations

from typing import TYPE_CHECKING, cast

from profguide.site.measures.summary import RuleFixed
from profguide.site.recordings import Claim, Recording

if TYPE_CHECKING:
    from profguide.analysis.vocabulary import RuleId
    from profguide.site.fragment_run import Maker
    from profguide.site.recordings import Run

PAGE = "reading-output/anti-patterns.md"
ANTI_PATTERNS = "snippets.reading_output.anti_patterns"
ANTI_PATTERNS_PARAMS = {"batch_size": 32, "image": 16, "hidden": 100, "classes": 8, "wait": 1, "warmup": 1,
                        "active": 3}


def anti_patterns_run(fixed: bool, suffix: str, claims: tuple[Claim, ...] = (),
                      compared_with: str = "") -> Recording:
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
        # Each rule below is a RuleId: a literal in a tuple loses its Literal type to inference.
        Claim(PAGE, says, RuleFixed(cast("RuleId", rule)), at_least=1, at_most=1) for rule, says in (
            ("single-tensor-optimizer", "the single-tensor optimizer's rule no longer fires"),
            ("zero-grad-zeroes", "nor does the rule for zeroing gradients"),
            ("conv-bias-before-batch-norm", "nor the one for a convolution's bias before a batch norm"),
            ("half-matmul-not-multiple-of-8", "nor the one for bf16 matrix multiplies whose sizes are not "
                                              "multiples of 8"),
            ("data-parallel", "nor the one for `DataParallel`"),
        ))),
)


# The fragments only this page's recordings give (the generic ones: profguide.site.fragments). Their imports
# are inside them: `profguide record` imports this module on a bare GPU machine, with the standard library only.


def rule_findings(data: Run) -> dict[str, str]:
    """What the rules found on rank 0's trace, as ``explain`` words it: a row a finding, linked to the rule's row
    on the reference page (the rule table's anchors)."""
    from profguide.analysis.select import trace_start_us
    from profguide.render import fragments as render
    from profguide.render.facts import seen_at
    from profguide.site.fragment_run import FragmentError, source_note
    from profguide.text import cell, markdown_table

    found = data.summary["findings"]
    if not found:
        raise FragmentError("no rule finds anything on this run: a page that shows its findings has none to show")
    origin = trace_start_us(data.trace)
    rows = [(f"[`{row['rule']}`](../reference/explain.md#rule-{row['rule']})", cell(row["evidence"], markdown=True),
             seen_at(row["at_us"], origin) or "–",
             cell(row["change"], markdown=True)) for row in found]
    # pg-reflow: on a phone each row reads as a block of labelled cells (docs/assets/figures.css). The time is
    # where to look, not a cost: its heading says so.
    table = markdown_table(("Rule", "What it measured", "Seen at, from the trace's start", "Try"), rows, "llrl")
    return {"findings.md": render.standin_notice(data.meta) + f'<div class="pg-reflow" markdown>\n\n{table}\n</div>\n'
            + source_note(data)}


FRAGMENTS: dict[str, Maker] = {"findings.md": rule_findings}
