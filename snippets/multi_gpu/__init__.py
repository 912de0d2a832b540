"""Part 3, Multi-GPU: the distributed jobs its pages profile, one process per rank."""
