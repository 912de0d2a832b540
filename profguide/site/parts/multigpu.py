"""The recordings of Part 3, Multi-GPU: data-parallel jobs of several ranks, one trace per rank."""

RECORDINGS = ()
REAL_TRACES = ()
