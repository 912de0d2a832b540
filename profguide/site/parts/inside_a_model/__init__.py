"""The recordings of the pages of Inside a model, one module for each page."""
