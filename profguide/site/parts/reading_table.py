"""The recordings of Part 2, Reading the output: The summary table, column by column."""

RECORDINGS = ()
