"""profguide.render.facts: the words for a fact that several outputs state, written once."""

from profguide.render.facts import count_words, per_call, percent, recorded_on, seen_at, share


def test_shares_and_percentages_say_when_there_is_nothing_to_measure():
    assert percent(12.345) == "12.3%" and percent(None) == "n/a"
    assert share(1, 8) == "12.5%" and share(1, 0) == "n/a" and share(1, 0, "–") == "–"


def test_a_count_is_whole_where_it_is_whole():
    assert count_words(8.0) == "8" and count_words(1234.0) == "1,234" and count_words(2.25) == "2.2"
    assert per_call(16, 2) == "8" and per_call(3, 2) == "1.5"


def test_a_finding_is_seen_at_a_time_from_the_trace_start_or_nowhere():
    assert seen_at(1_500.0, 500.0) == "1.00 ms" and seen_at(None, 500.0) is None


def test_a_recording_names_cuda_only_where_it_used_it():
    meta = {"device_name": "A GPU", "torch": "2.13.0", "cuda": "12.8"}
    assert recorded_on(meta) == ["A GPU", "torch 2.13.0", "CUDA 12.8"]
    assert recorded_on({**meta, "cuda": None}) == ["A GPU", "torch 2.13.0"]
