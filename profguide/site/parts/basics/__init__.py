"""The recordings of the pages of Basics, one module for each page."""
