"""Part 6, Serving a model: a decoder generating tokens, its cache, compiled decoding, and profiling a server."""
