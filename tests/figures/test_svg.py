"""profguide.figures.svg: the shared axis."""

from profguide.figures.svg import nice_tick_step
from profguide.text import format_tick


def test_axis_ticks_are_round_numbers():
    assert [format_tick(t) for t in (0, 500, 1000, 1500)] == ["0", "500 µs", "1 ms", "1.5 ms"]
    assert nice_tick_step(2400) == 500
