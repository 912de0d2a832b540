"""profguide.site.marks: the sentences pages mark as checked, how they render, and how the build holds marks and
claims to each other."""

import json
import re
from collections import Counter

import markdown

from profguide.site import claims, marks
from profguide.site.catalogue import REAL_TRACES, RECORDINGS
from profguide.site.measures.timing import StepCount
from profguide.site.recordings import Claim
from tests.helpers import ROOT

PAGE = """Some prose, then [a sentence with `code` and a
[link](https://example.com) in it]{.claim}, and [a link](https://example.com){ .not-a-claim }.
"""


def entry(says, state="holds", page="p.md", anchor="claim-r-1"):
    label = "✓" if state == "holds" else "waits for a GPU run"
    return {"page": page, "says": says, "anchor": anchor, "state": state, "label": label, "title": f"about {says}"}


def rendered(text, entries, tmp_path):
    data = tmp_path / "claims.json"
    data.write_text(json.dumps(entries))
    # inlinehilite, as mkdocs.yml has it, turns code spans into raw HTML before the marks are read
    return markdown.markdown(text, extensions=["attr_list", "pymdownx.inlinehilite", marks.ClaimMarks(data=str(data))])


def test_marked_finds_each_mark_across_line_breaks_and_not_plain_links():
    assert marks.marked(PAGE) == ["a sentence with code and a [link](https://example.com) in it"]
    assert marks.marked("`[shown as code]{.claim}` and\n```text\n[a block]{.claim}\n```\n") == []
    assert marks.marked("[a link](x) and [not a mark]{.other}") == []


def test_a_longer_claim_that_holds_a_shorter_one_takes_the_mark_and_equal_words_share_it():
    short, longer, twin = entry("every step"), entry("here too every step"), entry("every step", "waits")
    assert marks.shown("here too every step, again", [short, longer]) == [longer]
    assert marks.shown("every step, again", [short, longer, twin]) == [short, twin]
    assert marks.shown("something else", [short]) == []


def test_a_mark_renders_its_words_as_markdown_and_one_link_per_claim(tmp_path):
    says = "a sentence with `code` and a [link](https://example.com) in it"
    html = rendered(PAGE, [entry("`code` and a", anchor="claim-r-1"), entry("in it", "waits", anchor="claim-r-2")],
                    tmp_path)
    span = re.search(r'<span class="claim">(.*?)</span>', html, re.DOTALL)[1]
    assert "<code>code</code>" in span and '<a href="https://example.com">link</a>' in span
    links = re.findall(r'<a aria-label="([^"]+)" class="([^"]+)" href="([^"]+)" title="\1">([^<]+)</a>', span)
    assert links == [("about `code` and a", "claim-mark claim-holds", "#claim-r-1", "✓"),
                     ("about in it", "claim-mark claim-waits", "#claim-r-2",
                      "waits for a GPU run")]
    assert "{.claim}" not in html and says not in html  # the syntax is gone, the words are Markdown
    assert 'class="not-a-claim"' in html  # attr_list still does its own work
    assert "<code>[shown as code]{.claim}</code>" in rendered("`[shown as code]{.claim}`", [], tmp_path)


def test_a_mark_no_claim_holds_shows_no_tick_and_a_missing_data_file_is_no_error(tmp_path):
    html = markdown.markdown("[unchecked words]{.claim}", extensions=[marks.ClaimMarks(data=str(tmp_path / "no"))])
    assert html == '<p><span class="claim">unchecked words</span></p>'


def check(page, says, recording="r", number=1):
    claim = Claim(page, says, StepCount(), at_least=1)
    return claims.ClaimCheck(recording, claim, 1.0, claims.HOLDS, "cpu", f"claim-{recording}-{number}", "a run")


def test_marks_and_claims_must_match_one_to_one(tmp_path):
    (tmp_path / "a.md").write_text("[the first words]{.claim} and [words nobody checks]{.claim}.\n"
                                   "[the first words again]{.claim}\n\n" + marks.checked_include("a.md"))
    (tmp_path / "b.md").write_text("[it says the first words too]{.claim}\n")
    found = claims.mark_problems(tmp_path, [check("a.md", "the first words"), check("b.md", "it says", number=2)])
    assert found == [
        'a.md marks "words nobody checks" as checked, but no claim checks it',
        'b.md marks sentences as checked but does not list them: end it with --8<-- '
        '"docs/generated/site/checked-b.md"',
        'b.md marks "it says the first words too", which shows a claim of a.md: quote more of the sentence in one '
        "of the two claims",
        'a.md: 3 marks show the claim "the first words" of r; quote more of its sentence',
    ]


def test_a_mark_entry_says_what_was_measured_on_which_run_or_what_a_gpu_run_will_check():
    done = claims.mark_entry(check("a.md", "words"))
    assert (done["state"], done["label"]) == ("holds", "✓")
    assert done["title"] == "Checked: recorded ProfilerSteps = 1, and the words need ≥ 1. Run: a run."
    waiting = claims.ClaimCheck("r", Claim("a.md", "words", StepCount(), at_least=1, device="cuda"), None,
                                claims.WAITS, "cpu", "claim-r-1", "r, recorded on a CPU")
    waits = claims.mark_entry(waiting)
    assert (waits["state"], waits["label"]) == ("waits", "waits for a GPU run")
    assert waits["title"].startswith("Not checked yet: a prediction about GPU runs, and this page shows r, recorded")


def test_the_built_site_shows_every_claim_once_and_a_gpu_claim_on_a_stand_in_as_waiting(built_site):
    committed = {e["anchor"]: e["state"] for e in json.loads((ROOT / marks.DATA).read_text())}
    assert len(committed) == sum(len(r.claims) for r in (*RECORDINGS, *REAL_TRACES))
    shown = Counter()
    for html_file in built_site.rglob("*.html"):
        for state, anchor in re.findall(r'class="claim-mark claim-(\w+)" href="[^"]*#(claim-[\w-]+)"',
                                        html_file.read_text()):
            shown[anchor] += 1
            assert state == committed[anchor], (html_file, anchor)
    assert set(shown) == set(committed) and set(shown.values()) == {1}
    assert {"waits", "holds"} <= set(committed.values())
