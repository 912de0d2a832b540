"""What profguide will read: the caps that keep hostile or damaged input bounded. Standard library only."""

MAX_BYTES = 2 << 30  # JSON a trace may hold (after gunzip) before the loader stops; `--max-size` raises it
# Beyond these an event's time is not a measurement (µs: about the year 2286, and eleven days).
TS_LIMIT = 1e16
DUR_LIMIT = 1e12
