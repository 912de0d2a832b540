"""What profguide will read: the caps that keep hostile or damaged input bounded. Standard library only."""

MAX_BYTES = 2 << 30  # JSON a trace may hold (after gunzip) before the loader stops; `--max-size` raises it
# JSON one event may hold, and the document around the event list: Kineto writes a few KiB for an event with
# its call stack and input shapes. Past this it is damage or a bomb (a gigabyte-long name inflates from a
# megabyte of gzip), refused before it costs its size in memory.
MAX_EVENT_BYTES = 64 << 20
# Beyond these an event's time is not a measurement (µs: about the year 2286, and eleven days).
TS_LIMIT = 1e16
DUR_LIMIT = 1e12
# Nor is a positive duration under a picosecond (µs): Kineto counts nanoseconds, and a rate over such a
# duration (bytes per µs) overflows to inf.
DUR_FLOOR = 1e-6
# An exbibyte: no copy or set moves more (a device holds a few hundred GiB). A larger count, or an infinite
# one, is damage, and one such count makes every sum it enters infinite.
COPY_BYTES_LIMIT = 2**60
