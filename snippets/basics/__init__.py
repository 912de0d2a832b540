"""Part 1, Basics: a matmul plus bias add under the profiler, a loop of steps, and a CPU-only run."""
