"""The recordings of the pages of Serving a model, one module for each page."""
