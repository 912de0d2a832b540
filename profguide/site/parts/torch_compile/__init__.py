"""The recordings of the pages of torch.compile, one module for each page."""
