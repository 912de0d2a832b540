"""The recordings of the pages of Reading the output, one module for each page."""
