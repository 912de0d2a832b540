"""The recordings of Part 2, Reading the output: The input pipeline."""

RECORDINGS = ()
