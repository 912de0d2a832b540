"""The recordings of Part 2, Reading the output: Memory."""

RECORDINGS = ()
