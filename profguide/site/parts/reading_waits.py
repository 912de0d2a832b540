"""The recordings of Part 2, Reading the output: Where the GPU waits."""

RECORDINGS = ()
