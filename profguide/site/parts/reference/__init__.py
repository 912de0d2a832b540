"""The recordings of the pages of Reference, one module for each page."""
