"""The recordings of Part 2, Reading the output: The profiler's own footprint."""

RECORDINGS = ()
