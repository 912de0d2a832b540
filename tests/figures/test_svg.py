"""profguide.figures.svg: the shared axis."""

from profguide.figures.svg import nice_tick_step
from profguide.text import format_tick


def test_axis_ticks_are_round_numbers():
    assert [format_tick(t) for t in (0, 500, 1000, 1500)] == ["0", "500 µs", "1 ms", "1.5 ms"]
    assert nice_tick_step(2400) == 500


def test_xml_text_is_well_formed_as_text_and_as_an_attribute_whatever_it_holds():
    import xml.etree.ElementTree as ElementTree

    from profguide.figures.svg import xml_text

    hostile = "".join(map(chr, range(32))) + "\ud800\udfff\ufffe\uffff\x7f\x9b\x85\u202e\u2066<>&\"'😀\U0010ffff"
    escaped = xml_text(hostile)
    element = ElementTree.fromstring(f'<t a="{escaped}">{escaped}</t>'.encode())
    kept = "?" * 10 + "\n" + "?" * 21 + "?" * 9 + "<>&\"'😀\U0010ffff"  # a newline is a tooltip's line break
    assert element.text == kept and element.get("a") == kept.replace("\n", " ")


def test_a_lane_named_by_any_string_is_printable():
    from profguide.figures.timeline import lane_label

    assert lane_label("\x1b[2J\x00", "\u202e7", on_gpu=True) == "GPU ?[2J? · stream ?7"
    assert lane_label(1, "\x9b1m", on_gpu=False) == "CPU · tid ?1m"
