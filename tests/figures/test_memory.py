"""profguide.figures.memory: bytes by category over time, stacked, with the steps marked."""

import re

import numpy as np
import pytest

from profguide.figures import memory


def test_bands_stack_in_order_and_empty_categories_are_left_out():
    sizes = {"PARAMETER": np.array([100, 100, 100]), "TEMPORARY": np.zeros(3), "ACTIVATION": np.array([0, 300, 0])}
    svg = memory.memory_timeline_svg([0, 10, 20], sizes, steps=[("ProfilerStep#1", 0), ("ProfilerStep#2", 15)])
    assert "<title>PARAMETER: peak 100 bytes</title>" in svg and "<title>ACTIVATION: peak 300 bytes</title>" in svg
    assert "TEMPORARY" not in svg
    assert svg.count("ProfilerStep#") == 2 and svg.count('stroke-dasharray="4 3"') == 2
    paths = re.findall(r'<path d="([^"]+)" fill="(#\w+)"', svg)
    assert [fill for _, fill in paths] == [memory.CATEGORY_COLOURS["PARAMETER"], memory.CATEGORY_COLOURS["ACTIVATION"]]


def test_a_step_that_starts_before_the_first_allocation_is_still_drawn():
    svg = memory.memory_timeline_svg([100, 200], {"PARAMETER": np.array([1, 1])}, steps=[("ProfilerStep#3", 50)])
    assert "ProfilerStep#3" in svg


def test_ticks_of_bytes_are_round_in_their_unit():
    assert memory.bytes_step(10 * 2**20) == 5 * 2**20
    assert memory.bytes_step(300) == 100


def test_one_point_per_pixel_column_keeps_the_peak():
    kept = memory.thinned(np.arange(4), np.array([1, 5, 2, 3]), np.array([0, 0, 0, 1]))
    assert kept.tolist() == [1, 3]


def test_nothing_to_draw_is_an_error():
    with pytest.raises(ValueError, match="no memory to draw"):
        memory.memory_timeline_svg([0, 1], {"PARAMETER": np.zeros(2)})
