"""The recordings of Part 4, torch.compile: compiled code in a trace, what compiling costs, graph breaks."""

RECORDINGS = ()
