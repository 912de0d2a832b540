"""Reference, Around the profiler: the workloads its page runs, one tool each."""
