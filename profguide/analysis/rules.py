"""Every rule (``profguide.analysis.rule``), and what they find on a trace's summary or on a job.

``RULES`` holds the trace rules in the order ``explain`` prints what they
find: torch's anti-pattern matcher's (``rules_program``), the TensorBoard
plugin's and Nsight Systems' (``rules_device``), then this guide's own
(``rules_guide``), which also holds ``JOB_RULES``, over a folder of rank traces.
A new rule goes into one of those modules' tuples, and its id into
``profguide.analysis.vocabulary.RuleId``.
"""

from profguide.analysis import rules_device, rules_guide, rules_program
from profguide.analysis.rule import JobRule, Rule, finding
from profguide.analysis.summary import Finding, Job, Summary
from profguide.trace.model import Trace

RULES: tuple[Rule, ...] = (*rules_program.RULES, *rules_device.RULES, *rules_guide.RULES)
JOB_RULES: tuple[JobRule, ...] = rules_guide.JOB_RULES


def findings(trace: Trace, summary: Summary) -> list[Finding]:
    """What every rule finds on ``trace``, whose summary is ``summary``, in the order of ``RULES``."""
    return [finding(rule, evidence) for rule in RULES if (evidence := rule.check(trace, summary)) is not None]


def job_findings(job: Job) -> list[Finding]:
    """What every job rule finds on ``job``."""
    return [finding(rule, evidence) for rule in JOB_RULES if (evidence := rule.check(job)) is not None]
