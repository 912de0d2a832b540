"""The rules of the TensorBoard plugin's recommendations and of Nsight Systems' expert rules, on a Kineto
trace."""

from profguide.analysis.rules import Rule

RULES: tuple[Rule, ...] = ()
