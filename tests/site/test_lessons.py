"""profguide.site.lessons: every lesson of the Hugging Face series links a section of the guide that exists, a
lesson taught in part quotes what its page says a CPU run or the guide's traces cannot show, and the page's
counts are the data's."""

import re

import pytest

from profguide.site import build, lessons
from profguide.site.fragments import FragmentError
from profguide.site.lessons import Lesson, NotYet, Partly
from tests.helpers import ROOT
from tests.site_nav import nav_pages

DOCS = ROOT / "docs"
PAGE = "part/page.md"
PAGE_TEXT = """# A page

## The `aten::mm` chain

Some words that say a CPU run cannot show it.

### Named {#named-here}

```python
# Not a heading
```
"""


@pytest.fixture
def docs(tmp_path):
    (tmp_path / "part").mkdir()
    (tmp_path / PAGE).write_text(PAGE_TEXT)
    return tmp_path


def test_headings_have_the_ids_mkdocs_gives_them_and_code_is_no_heading():
    assert lessons.headings(PAGE_TEXT) == {"a-page": "A page", "the-atenmm-chain": "The `aten::mm` chain",
                                           "named-here": "Named"}


def test_every_lesson_taught_in_part_gives_a_reason_and_words_to_quote():
    # lessons.problems finds the page, the heading and the quoted words; an empty quote is in every page, so the
    # words must not be empty, nor the reason the table shows.
    partial = [lesson for lesson in lessons.LESSONS if isinstance(lesson.gap, Partly)]
    assert partial
    for lesson in partial:
        assert lesson.gap.why.strip() and lesson.gap.page_says.strip(), lesson


def test_the_lessons_cover_the_three_parts_in_the_guides_own_short_words():
    assert {lesson.part for lesson in lessons.LESSONS} == set(lessons.PARTS)
    assert len({lesson.says for lesson in lessons.LESSONS}) == len(lessons.LESSONS)
    assert all(len(lesson.says) <= 200 for lesson in lessons.LESSONS)


def test_the_list_finds_nothing_wrong_with_the_guide():
    assert lessons.problems(lessons.LESSONS, DOCS) == []


def test_a_missing_page_heading_or_quoted_sentence_is_named_and_fails_the_table(docs):
    wrong = (Lesson(1, "gone page", "part/gone.md", "a-page"),
             Lesson(1, "gone heading", PAGE, "no-such-heading"),
             Lesson(2, "gone words", PAGE, "named-here", Partly("why", "words the page never wrote")),
             Lesson(2, "words in code", PAGE, "named-here", Partly("why", "Not a heading")))
    assert lessons.problems(wrong, docs) == [
        "'gone page': no page part/gone.md", "'gone heading': no heading #no-such-heading on part/page.md",
        "'gone words': part/page.md does not say 'words the page never wrote'",
        "'words in code': part/page.md does not say 'Not a heading'"]
    with pytest.raises(FragmentError, match="no heading #no-such-heading"):
        lessons.lessons_table(docs, wrong)


def test_the_table_counts_what_the_data_says_and_links_each_section(docs):
    made = (Lesson(1, "One", PAGE, "the-atenmm-chain"),
            Lesson(1, "Two", PAGE, "named-here", Partly("a GPU is needed", "a CPU run cannot show it")),
            Lesson(3, "Three", PAGE, "a-page", NotYet("not written")))
    text = lessons.lessons_table(docs, made)
    assert text.startswith("3 lessons: 1 taught in full, 1 in part, 1 not yet.\n")
    assert "## Part 1: [A Beginner's Guide to torch.profiler](https://huggingface.co/blog/torch-profiler)\n\n" \
           "2 lessons: 1 taught in full, 1 in part, 0 not yet." in text
    assert "| One | [A page: The `aten::mm` chain](../part/page.md#the-atenmm-chain) | In full |" in text
    assert "| Two | [A page: Named](../part/page.md#named-here) | In part: a GPU is needed |" in text
    assert "| Three | [A page](../part/page.md#a-page) | Not yet: not written |" in text
    assert "1 lesson: 0 taught in full, 0 in part, 1 not yet." in text


def test_the_committed_fragment_is_the_table_of_the_data():
    committed = (DOCS / "generated" / "site" / lessons.FRAGMENT).read_text()
    assert committed == lessons.lessons_table(DOCS)
    found = lessons.counts(lessons.LESSONS)
    first = committed.splitlines()[0]
    assert re.fullmatch(rf"{len(lessons.LESSONS)} lessons: {found['full']} taught in full, {found['partial']} in "
                        rf"part, {found['missing']} not yet\.", first)


def test_the_lessons_page_includes_the_table_and_the_nav_lists_it():
    assert f'--8<-- "docs/generated/site/{lessons.FRAGMENT}"' in (DOCS / lessons.PAGE).read_text()
    assert lessons.PAGE in nav_pages()


def test_the_build_makes_the_table_for_the_page_that_includes_it():
    files = build.site_files(ROOT, [], {lessons.FRAGMENT: [lessons.PAGE]})
    assert files[lessons.FRAGMENT] == lessons.lessons_table(DOCS)


def test_the_data_teaches_at_least_55_of_the_lessons_in_full():
    """Issue 31's target, on the records the page renders: a lesson that falls back to partial must say why."""
    assert lessons.counts(lessons.LESSONS)["full"] >= 55
