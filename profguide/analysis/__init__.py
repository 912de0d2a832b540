"""Facts about a trace, each a small function over ``profguide.trace.Trace`` columns.

Every fact is plain data (numbers, strings, lists, dicts) so that pages,
captions and ``profguide explain`` can quote it and ``--json`` can carry it.
The modules follow the questions: ``select`` (masks, lanes, windows, steps,
launches), ``idle``, ``launches``, ``kernels``, ``communication``, ``compile``,
and ``verdict``, which puts them together; ``ranks`` does the same for a job's
ranks, and ``job`` loads a file or a folder and summarises it, as ``profguide
explain`` prints it. ``summary`` types what the summaries hold, key by key.
"""
