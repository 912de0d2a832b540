"""Part 2, Reading the output: the workloads its pages profile."""
