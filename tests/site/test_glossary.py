"""profguide.site.glossary: the glossary defines the guide's words, every page shows them as tooltips, and the
verdicts it lists are the ones explain gives."""

import re

from profguide.analysis.verdict import HOST_VERDICTS, VERDICTS
from profguide.site import glossary
from tests.helpers import ROOT

# The words issue 19 asks a beginner to find defined.
WORDS = ("kernel", "stream", "dispatcher", "GEMM", "cuBLAS", "cuDNN", "CUPTI", "SM", "occupancy", "tensor core",
         "epilogue", "intra-op thread pool", "frame")
PAGE = (ROOT / "docs" / glossary.PAGE).read_text()


def test_the_glossary_defines_every_word_a_beginner_meets():
    terms = [term for term, _ in glossary.entries(PAGE)]
    assert set(WORDS) <= set(terms), set(WORDS) - set(terms)
    assert len(terms) == len(set(terms))


def test_entries_join_a_definition_s_lines_and_stop_at_the_blank_line():
    text = "## Part\n\nterm\n:   First line,\n    second line.\n\nother\n:   Its own.\n"
    assert glossary.entries(text) == [("term", "First line, second line."), ("other", "Its own.")]


def test_a_terms_anchor_is_no_part_of_the_term():
    assert glossary.entries("External id { #external-id }\n:   A number.\n") == [("External id", "A number.")]


def test_the_ids_other_pages_link_to_are_anchors_of_their_terms():
    for term, anchor in (("External id", "external-id"), ("correlation id", "correlation-id")):
        assert f"\n{term} {{ #{anchor} }}\n:   " in PAGE


def test_an_abbreviation_is_the_definition_s_first_sentence_in_plain_words():
    text = ("GEMM\n:   A `C = AB` multiply, the work of [Linear](x.md) ([cuBLAS docs](https://e.com)). More.\n\n"
            "occupancy\n:   A share.\n")
    assert glossary.abbreviations(text) == (
        "*[GEMM]: A C = AB multiply, the work of Linear.\n*[GEMMs]: A C = AB multiply, the work of Linear.\n"
        "*[occupancy]: A share.\n")


def test_the_verdict_list_holds_every_verdict_with_explain_s_own_words():
    listed = glossary.verdict_list()
    for name in {*VERDICTS, *HOST_VERDICTS}:
        assert f"`{name}`\n:   " in listed
    assert "{label}" not in listed and "{categories}" not in listed
    without_gpu = "Without GPU work: " + HOST_VERDICTS["host-compute-bound"].replace(" ({label})", "")
    assert VERDICTS["compute-bound"].replace("{label}", "") in listed and without_gpu in listed


def test_a_page_shows_a_glossary_word_as_a_tooltip_and_the_glossary_lists_the_verdicts(built_site):
    html = (built_site / "basics" / "first-trace" / "index.html").read_text()
    [(title, word)] = set(re.findall(r'<abbr title="([^"]+)">(stream)</abbr>', html))
    assert title.startswith("A queue of GPU work")
    page = (built_site / "reference" / "glossary" / "index.html").read_text()
    assert all(f"<code>{name}</code>" in page for name in VERDICTS)
