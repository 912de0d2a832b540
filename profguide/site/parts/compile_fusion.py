"""The recordings of Part 4, torch.compile: fusion, and overhead against when compiling pays."""

RECORDINGS = ()
REAL_TRACES = ()
