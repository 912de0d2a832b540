"""The guide's recordings, one module for each part or page that has its own (standard library only)."""
