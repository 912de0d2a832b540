"""Reference: the workloads its pages run."""
