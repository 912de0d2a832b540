"""What a rule is: an anti-pattern a saved trace can show, with the evidence it found and the change to try.

A rule reads a trace and its summary (``profguide.analysis.summarise``) and
answers with ``Evidence`` when the trace shows what it detects, or None. The
rules come from four sources (``SOURCES``): torch's anti-pattern matcher
(``torch/profiler/_pattern_matcher.py``, which needs a live profiler and is
being removed from PyTorch), the TensorBoard plugin's recommendations (removed
from kineto), Nsight Systems' expert rules (which do not read Kineto traces),
and this guide's own pages. The rule modules (``rules_program``,
``rules_device``, ``rules_guide``) each hold a tuple of ``Rule``;
``profguide.analysis.rules`` puts them together. Rules over a whole job of
rank traces are ``JobRule``s.

Each rule names the run of the guide that shows it (``shown_by``) and one
that does not (``clean_on``): the tests check both, and the cheat sheet quotes
what the rule measured on ``shown_by``. A rule that no run of the guide can
show yet (it needs a GPU run the guide does not have) names none; its tests
are on small traces made to show it, and the site says it waits for a run.
"""

from collections.abc import Callable
from dataclasses import dataclass
from typing import NamedTuple

from profguide.analysis.summary import Finding, Job, Summary
from profguide.analysis.vocabulary import FindingSource, RuleId, RuleSource
from profguide.trace.model import Trace

SOURCES: dict[RuleSource, FindingSource] = {
    "torch": "torch's anti-pattern matcher",
    "tensorboard": "the TensorBoard plugin",
    "nsight": "Nsight Systems' expert rules",
    "guide": "this guide",
}


class Evidence(NamedTuple):
    """What a rule found: the number it compared with its threshold, what it saw in words (times, counts),
    and where to look in the trace (a time on the trace's own clock; None when no one place shows it)."""

    measured: float
    words: str
    at_us: float | None = None


@dataclass(frozen=True)
class RuleText:
    """What a rule says of itself, whatever it reads.

    Attributes:
        id: a short name in kebab case, stable across versions (``dataloader-without-workers``).
        source: a key of ``SOURCES``: where the rule comes from.
        detects: what it detects, in a sentence.
        measures: what ``Evidence.measured`` is, and the threshold, in words ("data loading / step, over 5%").
        change: the change to try.
        page: the guide's page that shows it, relative to ``docs/`` with its anchor
            (``reading-output/input-pipeline.md#…``).
        shown_by: a run of the guide that shows it: a recording's or a real trace's id; "" while none does.
        clean_on: a run of the guide that does not.
    """

    id: RuleId
    source: RuleSource
    detects: str
    measures: str
    change: str
    page: str
    shown_by: str
    clean_on: str


@dataclass(frozen=True)
class Rule(RuleText):
    """One anti-pattern a trace can show; ``check(trace, summary)`` gives Evidence when it does, else None."""

    check: Callable[[Trace, Summary], Evidence | None]


@dataclass(frozen=True)
class JobRule(RuleText):
    """One a job of rank traces can show (``Job``); ``check(job)`` gives Evidence when it does, else None."""

    check: Callable[[Job], Evidence | None]


def page_url(page: str) -> str:
    """A page given relative to ``docs/`` as the built site addresses it, from the site's root
    (``a/b.md#x`` → ``a/b/#x``): the guide is published wherever its builder serves it."""
    path, _, anchor = page.partition("#")
    path = path.removesuffix(".md").removesuffix("index").rstrip("/")
    return (f"{path}/" if path else "") + (f"#{anchor}" if anchor else "")


def finding(rule: RuleText, evidence: Evidence) -> Finding:
    """What ``rule`` found, as the summary reports it."""
    return {"rule": rule.id, "source": SOURCES[rule.source], "measured": evidence.measured,
            "evidence": evidence.words, "at_us": evidence.at_us, "change": rule.change, "guide": page_url(rule.page)}
