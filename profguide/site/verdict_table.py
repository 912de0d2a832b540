"""The verdict table of the reference page (``docs/reference/explain.md``): every verdict ``profguide explain``
gives and when it gives it, from their one source, ``profguide.analysis.verdict.WORDS``."""

from profguide.analysis.verdict import WORDS

FRAGMENT = "verdict-table.md"  # in docs/generated/site/


def verdict_table() -> str:
    """The Markdown table: each verdict, in code, and when it is given (its words are the guide's own
    Markdown, written for a table cell)."""
    rows = [f"| `{name}` | {words.when} |" for name, words in WORDS.items()]
    return "\n".join(["| Verdict | When |", "|---|---|", *rows]) + "\n"
