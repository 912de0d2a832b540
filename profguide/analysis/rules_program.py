"""The rules of torch's anti-pattern matcher (``torch/profiler/_pattern_matcher.py``), as far as a saved trace
shows them."""

from profguide.analysis.rules import Rule

RULES: tuple[Rule, ...] = ()
