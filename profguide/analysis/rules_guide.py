"""The guide's own rules: what its pages show going wrong, and the job rules over a folder of rank traces."""

from profguide.analysis.rules import JobRule, Rule

RULES: tuple[Rule, ...] = ()
JOB_RULES: tuple[JobRule, ...] = ()
