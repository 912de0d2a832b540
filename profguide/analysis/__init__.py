"""Facts about a trace, each a small function over ``profguide.trace.Trace`` columns.

Every fact is plain data (numbers, strings, lists, dicts) so that pages,
captions and ``profguide explain`` can quote it and ``--json`` can carry it.
The modules follow the questions: ``select`` (masks, lanes, windows, steps,
launches), ``idle``, ``launches``, ``kernels``, ``communication``, ``compile``.
``verdict`` judges what they measured and the rules (``rule``, ``rules`` and
the ``rules_*`` modules) find anti-patterns in it; ``summarise`` runs them all
in that order. ``ranks`` does the same for a job's ranks, and ``job`` loads a
file or a folder and summarises it, as ``profguide explain`` prints it.
``summary`` types what the summaries hold, key by key, and ``vocabulary`` the
closed sets of words they use.
"""
