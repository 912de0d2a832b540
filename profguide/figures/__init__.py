"""SVG figures drawn from traces: ``svg`` (shared primitives), ``timeline`` and ``charts``."""
