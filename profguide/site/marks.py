"""Sentences a page marks as checked against a run, and how a reader sees them.

A page writes a sentence that a claim (``profguide.site.recordings.Claim``)
checks as a span with the class ``claim``, in the bracketed-span syntax of
Pandoc and Quarto: ``[the GPU sits idle most of the time]{.claim}``. The
build checks both ways (``profguide.site.claims``): every claim's words lie
inside a mark on its page, and every mark holds the words of a claim. It
writes what it measured for each claim to ``docs/generated/site/claims.json``.

The Markdown extension here reads that file and renders each mark as the
sentence followed by one small link per claim it holds: a tick where the run
bears it out, "waits for a GPU run" where the claim is about GPU runs and the
page shows a CPU stand-in. The link's title (a tooltip) gives the measured
value, its bound and the run; the link leads to the claim's row in the list
of the page's checked sentences at its end (``checked_fragment``), so it
needs no path to another page. It is an ordinary Python-Markdown extension,
named in ``mkdocs.yml``: it needs no MkDocs hook, and Zensical renders the
marks too.
"""

import functools
import html
import json
import re
import xml.etree.ElementTree as etree
from collections.abc import Sequence
from pathlib import Path
from typing import NotRequired, TypedDict

from markdown import Markdown, util
from markdown.extensions import Extension
from markdown.inlinepatterns import InlineProcessor
from markdown.util import AtomicString

# The words may hold one level of brackets (a link's text) but not a mark of their own.
MARK = r"\[(?P<words>(?:[^\[\]]|\[[^\[\]]*\])+)\]\{\.claim\}"
MARK_PATTERN = re.compile(MARK)
DATA = "docs/generated/site/claims.json"
# Below the code-span pattern (190): a mark written inside backticks is code, shown as it is.
PRIORITY = 185
FENCED = re.compile(r"^[ \t]*```.*?^[ \t]*```[ \t]*$", re.MULTILINE | re.DOTALL)
TAG = re.compile(r"<[^>]+>")
CODE_SPAN = re.compile(r"(`+)(?!`).+?(?<!`)\1(?!`)", re.DOTALL)


class MarkEntry(TypedDict):
    """A claim as ``claims.json`` gives it to the marks: its page and words, the anchor of its row, and how its mark
    shows it (the build's own checks compare marks with claims by the first three alone)."""

    page: str
    says: str
    anchor: str
    state: NotRequired[str]
    label: NotRequired[str]
    title: NotRequired[str]


@functools.lru_cache(maxsize=4096)  # every mark's words are compared with every claim of its page, often
def normalised(text: str) -> str:
    """The words as a reader reads them: every run of white space one space (a page's line breaks are not part
    of its words) and no backticks (code spans reach the extension as their text)."""
    return re.sub(r"\s+", " ", text.replace("`", "")).strip()


def marked(text: str) -> list[str]:
    """The words of every mark in a page's Markdown, normalised; marks inside code are code, not marks."""
    text = FENCED.sub("", text)
    text = CODE_SPAN.sub(lambda span: "" if "{.claim}" in span[0] else span[0], text)
    return [normalised(match["words"]) for match in MARK_PATTERN.finditer(text)]


def holds_words(words: str, says: str) -> bool:
    """Whether a mark's words hold a claim's: the claim quotes the page, possibly less than the whole mark."""
    return normalised(says) in normalised(words)


def shown(words: str, entries: Sequence[MarkEntry]) -> list[MarkEntry]:
    """The entries (of ``claims.json``, or anything with ``says``) that a mark with these words shows, in their
    order: those whose words it holds, less any whose words lie inside the longer words of another it holds
    ("every step…" inside "here too every step…" is a claim about another sentence)."""
    held = [entry for entry in entries if holds_words(words, entry["says"])]
    return [entry for entry in held
            if not any(holds_words(other["says"], entry["says"]) and normalised(other["says"]) != normalised(
                entry["says"]) for other in held)]


def mark_links(entries: Sequence[MarkEntry]) -> list[tuple[str, str, str, str]]:
    """The mark's links, one per claim: [(class, label, title, href)]."""
    return [(f"claim-mark claim-{entry['state']}", entry["label"], entry["title"], f"#{entry['anchor']}")
            for entry in entries]


def checked_fragment(page: str) -> str:
    """The fragment that lists a page's checked sentences at its end: ``basics/index.md`` →
    ``checked-basics-index.md`` in ``docs/generated/site/``."""
    return "checked-" + page.removesuffix(".md").replace("/", "-") + ".md"


def checked_include(page: str) -> str:
    """The line a page with marks ends with, which includes its list of checked sentences."""
    return f'--8<-- "docs/generated/site/{checked_fragment(page)}"'


class ClaimMarkProcessor(InlineProcessor):
    """``[words]{.claim}`` → ``<span class="claim">words</span>`` and its marks; the words are then read as
    Markdown by the patterns that follow (links, emphasis)."""

    def __init__(self, md: Markdown, entries: Sequence[MarkEntry]) -> None:
        super().__init__(MARK, md)
        self.entries = entries

    def handleMatch(self, match: re.Match[str], data: str) -> tuple[etree.Element, int, int]:  # noqa: N802 - Python-Markdown's name
        span = etree.Element("span", {"class": "claim"})
        span.text = match["words"]
        for css_class, label, title, href in mark_links(shown(self.text_of(match["words"]), self.entries)):
            link = etree.SubElement(span, "a", {"class": css_class, "href": href, "title": title,
                                                "aria-label": title})
            link.text = AtomicString(label)
            link.tail = ""
        return span, match.start(0), match.end(0)

    def text_of(self, words: str) -> str:
        """The words as text: code spans are placeholders by now, for an element (``unescape``) or, from
        ``pymdownx.inlinehilite``, for raw HTML in the stash, whose text is what the page shows."""
        stash = self.md.htmlStash.rawHtmlBlocks

        def stashed_text(placeholder: re.Match[str]) -> str:
            return html.unescape(TAG.sub("", str(stash[int(placeholder[1])])))

        text: str = util.HTML_PLACEHOLDER_RE.sub(stashed_text, self.unescape(words))
        return text


def read_entries(path: str | Path) -> list[MarkEntry]:
    """The entries of ``claims.json``; none when the file is not there yet (a first build writes it)."""
    try:
        entries: list[MarkEntry] = json.loads(Path(path).read_text())
    except FileNotFoundError:
        return []
    return entries


class ClaimMarks(Extension):
    """The Markdown extension: ``markdown_extensions: [profguide.site.marks]`` in ``mkdocs.yml``."""

    def __init__(self, **kwargs: object) -> None:
        self.config = {"data": [DATA, "claims.json, relative to the working folder (the project's root)"]}
        super().__init__(**kwargs)

    def extendMarkdown(self, md: Markdown) -> None:  # noqa: N802 - Python-Markdown's name
        entries = read_entries(self.getConfig("data"))
        md.inlinePatterns.register(ClaimMarkProcessor(md, entries), "profguide-claim", PRIORITY)


def makeExtension(**kwargs: object) -> "ClaimMarks":  # noqa: N802 - the name Python-Markdown looks for
    return ClaimMarks(**kwargs)
