"""profguide.site.cheatsheet: each row quotes what its claim measured, and names only claims that exist."""

import posixpath
import re

import pytest

from profguide.site import cheatsheet
from profguide.site.catalogue import REAL_TRACES, RECORDINGS
from profguide.site.claims import HOLDS, NOT_CHECKED, ClaimCheck
from profguide.site.fragments import FragmentError
from profguide.site.recordings import Claim, RowValue

SIGNS = {"Section": (cheatsheet.Sign("X", "means", "try", "[page](p.md)", ("rec", "it holds")),
                     cheatsheet.Sign("Y", "means", "try", "[page](p.md)"))}


def check(says, value, outcome, device="cpu", recording="rec", claim_device=None):
    return ClaimCheck(recording, Claim("p.md", says, RowValue("forward", "self_cpu_memory_bytes"),
                                       device=claim_device), value, outcome, device)


def test_a_row_quotes_its_claims_measurement_and_a_row_without_one_says_so(monkeypatch):
    monkeypatch.setattr(cheatsheet, "SIGNS", SIGNS)
    text = cheatsheet.cheat_sheet([check("it holds", -5898240.0, HOLDS)])
    assert text.startswith("## Section\n")
    assert "| X | means | try | [page](p.md) | forward self_cpu_memory_bytes = -5,898,240 (`rec`) |" in text
    assert "| Y | means | try | [page](p.md) | – |" in text


def test_a_claim_made_for_each_device_is_quoted_by_the_check_that_applies(monkeypatch):
    monkeypatch.setattr(cheatsheet, "SIGNS", SIGNS)
    waiting = check("it holds", 0.5, NOT_CHECKED, claim_device="cuda")
    assert "waits for a cuda run (`rec`)" in cheatsheet.cheat_sheet([waiting])
    text = cheatsheet.cheat_sheet([waiting, check("it holds", 0.25, HOLDS)])
    assert "= 0.25 (`rec`)" in text and "waits" not in text


def test_a_row_that_names_no_claim_is_an_error(monkeypatch):
    monkeypatch.setattr(cheatsheet, "SIGNS", SIGNS)
    with pytest.raises(FragmentError, match="no claim 'it holds' of rec"):
        cheatsheet.cheat_sheet([check("something else", 1.0, HOLDS)])


def test_every_row_of_the_guide_names_a_claim_that_a_recording_or_real_trace_makes():
    made = {(item.id, claim.says) for item in (*RECORDINGS, *REAL_TRACES) for claim in item.claims}
    named = [sign.evidence for signs in cheatsheet.SIGNS.values() for sign in signs if sign.evidence]
    assert len(named) >= 20 and set(named) <= made


def test_every_row_links_the_page_whose_sentence_its_number_checks():
    pages = {(item.id, claim.says): claim.page for item in (*RECORDINGS, *REAL_TRACES) for claim in item.claims}
    folder = "reading-output"  # the cheat sheet's links are relative to its page, reading-output/cheat-sheet.md
    for signs in cheatsheet.SIGNS.values():
        for sign in signs:
            if sign.evidence:
                linked = {posixpath.normpath(posixpath.join(folder, target.split("#")[0]))
                          for target in re.findall(r"\]\(([^)]+)\)", sign.shown)}
                assert pages[sign.evidence] in linked, (sign.see, pages[sign.evidence])
