"""The recordings of the pages of Multi-GPU, one module for each page."""
