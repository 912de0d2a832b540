"""profguide: record torch.profiler runs, analyse their traces, draw them.

Recording (``profguide.site.record``) needs only torch and the standard library,
so it runs on a bare GPU machine with ``PYTHONPATH=. python -m profguide``.
Everything else reads the recorded traces and runs anywhere.
"""

__version__ = "0.1.0"
