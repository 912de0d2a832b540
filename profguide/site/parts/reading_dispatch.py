"""The recordings of Part 2, Reading the output: From `@` to a kernel: the dispatch chain."""

RECORDINGS = ()
