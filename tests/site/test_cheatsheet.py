"""profguide.site.cheatsheet: each row quotes what its claim measured, and names only claims that exist."""

import posixpath
import re

import pytest

from profguide.site import cheatsheet
from profguide.site.catalogue import REAL_TRACES, RECORDINGS
from profguide.site.claims import HOLDS, WAITS, ClaimCheck
from profguide.site.fragments import FragmentError
from profguide.site.measures.results import RowValue
from profguide.site.recordings import Claim

SIGNS = {"Section": (cheatsheet.Sign("X", "means", "try", "[page](p.md)",
                                     ("rec", "it holds", "`forward` freed {share}")),
                     cheatsheet.Sign("Y", "means", "try", "[page](p.md)"))}


def check(says, value, outcome, device="cpu", recording="rec", claim_device=None, row="forward"):
    return ClaimCheck(recording, Claim("p.md", says, RowValue(row, "self_cpu_memory_bytes"),
                                       device=claim_device), value, outcome, device)


def test_a_row_says_in_words_what_its_claim_measured_and_a_row_without_one_says_so(monkeypatch):
    monkeypatch.setattr(cheatsheet, "SIGNS", SIGNS)
    text = cheatsheet.cheat_sheet([check("it holds", 0.5, HOLDS)])
    assert text.startswith("## Section\n")
    assert "| X | means | try | [page](p.md) | `forward` freed 50% (`rec`, a CPU run) |" in text
    assert "| Y | means | try | [page](p.md) | – |" in text
    assert "could not be measured (`rec`)" in cheatsheet.cheat_sheet([check("it holds", None, HOLDS)])


@pytest.mark.parametrize(("value", "words"), [
    (0.00966, {"share": "0.97%", "times": "0.00966×", "count": "0", "yes_no": "yes"}),
    (0.881, {"share": "88%", "times": "0.881×", "count": "1", "yes_no": "yes"}),
    (1532.4, {"share": "153,240%", "times": "1,532×", "count": "1,532", "yes_no": "yes"}),
    (0.0, {"share": "0%", "times": "0×", "count": "0", "yes_no": "no"}),
])
def test_a_value_is_put_as_a_share_a_ratio_a_count_or_yes_and_no(value, words):
    assert cheatsheet.value_words(value) == words


def test_a_claim_made_for_each_device_is_quoted_by_the_check_that_applies(monkeypatch):
    monkeypatch.setattr(cheatsheet, "SIGNS", SIGNS)
    waiting = check("it holds", 0.5, WAITS, claim_device="cuda")
    assert "waits for a GPU run (`rec`)" in cheatsheet.cheat_sheet([waiting])
    text = cheatsheet.cheat_sheet([waiting, check("it holds", 0.25, HOLDS)])
    assert "freed 25% (`rec`" in text and "waits" not in text


def test_claims_that_share_their_words_are_each_quoted_in_the_recordings_order(monkeypatch):
    monkeypatch.setattr(cheatsheet, "SIGNS", {"Section": (cheatsheet.Sign(
        "X", "means", "try", "[page](p.md)", ("rec", "it holds", "{count} in `forward`, {count} in `backward`")),)})
    both = [check("it holds", 3, HOLDS), check("it holds", 0, HOLDS, row="backward")]
    assert "| 3 in `forward`, 0 in `backward` (`rec`, a CPU run) |" in cheatsheet.cheat_sheet(both)
    assert "| 0 in `forward`, 3 in `backward` (`rec`" in cheatsheet.cheat_sheet(
        [check("it holds", 0, HOLDS), check("it holds", 3, HOLDS, row="backward")])
    with pytest.raises(FragmentError, match="1 claim 'it holds' of rec, but .* have 2 places"):
        cheatsheet.cheat_sheet(both[:1])
    monkeypatch.setattr(cheatsheet, "SIGNS", SIGNS)  # words with one place: the second claim would go unquoted
    with pytest.raises(FragmentError, match="2 claims 'it holds' of rec, but .* have 1 place "):
        cheatsheet.cheat_sheet(both)


def test_a_row_that_names_no_claim_is_an_error(monkeypatch):
    monkeypatch.setattr(cheatsheet, "SIGNS", SIGNS)
    with pytest.raises(FragmentError, match="no claim 'it holds' of rec"):
        cheatsheet.cheat_sheet([check("something else", 1.0, HOLDS)])


def test_every_row_of_the_guide_names_a_claim_that_a_recording_or_real_trace_makes():
    made = {(item.id, claim.says) for item in (*RECORDINGS, *REAL_TRACES) for claim in item.claims}
    named = [sign.evidence[:2] for signs in cheatsheet.SIGNS.values() for sign in signs if sign.evidence]
    assert len(named) >= 20 and set(named) <= made


def test_every_row_of_the_guide_says_its_measurement_in_words_with_the_value_measured():
    """The last column reads as words with the run's value in them, not as the claim's expression
    (``aten::linear self CPU time / … = 0.00966``)."""
    claims = {}  # (recording, words): every claim of the recording with those words
    for item in (*RECORDINGS, *REAL_TRACES):
        for claim in item.claims:
            claims.setdefault((item.id, claim.says), []).append(claim)
    rows = [sign for signs in cheatsheet.SIGNS.values() for sign in signs if sign.evidence]
    for value in (0.4321, 3.0):
        checks = [ClaimCheck(sign.evidence[0], claim, value, HOLDS, "cpu") for sign in rows
                  for claim in claims[sign.evidence[:2]]]
        cells = [line.rsplit("|", 2)[1] for line in cheatsheet.cheat_sheet(checks).splitlines()
                 if line.startswith("| ") and not line.startswith("| If you see")]
        said = [cell for cell in cells if cell.strip() != "–"]
        assert len(said) == len(rows)
        for cell in said:
            assert " / " not in cell and "=" not in cell, cell
            assert any(words in cell for words in cheatsheet.value_words(value).values()), cell
    for sign in rows:  # a place for each claim with the row's words
        assert len(re.findall(r"\{(share|times|count|yes_no)\}", sign.evidence[2])) \
            == len(claims[sign.evidence[:2]]), sign.evidence


def test_every_row_links_the_page_whose_sentence_its_number_checks():
    pages = {(item.id, claim.says): claim.page for item in (*RECORDINGS, *REAL_TRACES) for claim in item.claims}
    folder = "reading-output"  # the cheat sheet's links are relative to its page, reading-output/cheat-sheet.md
    for signs in cheatsheet.SIGNS.values():
        for sign in signs:
            if sign.evidence:
                linked = {posixpath.normpath(posixpath.join(folder, target.split("#")[0]))
                          for target in re.findall(r"\]\(([^)]+)\)", sign.shown)}
                assert pages[sign.evidence[:2]] in linked, (sign.see, pages[sign.evidence[:2]])
