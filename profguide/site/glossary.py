"""The glossary's words as tooltips on every page, and its list of verdicts, from their one source each.

The glossary page (``docs/reference/glossary.md``) defines its terms in a
definition list. The build turns each into a Markdown abbreviation,
``*[kernel]: A function that runs on the GPU…``, in
``docs/generated/site/abbreviations.md``, which ``pymdownx.snippets`` appends
to every page (``auto_append`` in ``mkdocs.yml``): Material shows it as a
tooltip wherever the word appears outside code. The verdicts are listed from
``profguide.analysis.verdict``, the words ``profguide explain`` prints.
"""

import re

from profguide.analysis.verdict import HOST_VERDICTS, VERDICTS

PAGE = "reference/glossary.md"
ABBREVIATIONS = "abbreviations.md"  # in docs/generated/site/
VERDICT_LIST = "verdicts.md"  # in docs/generated/site/
# A term on its own line, then its definition indented under ":   ".
ENTRY = re.compile(r"^(?P<term>[^\s:#<!`*\-][^\n]*)\n:   (?P<definition>.+?)(?=\n\n|\n*\Z)", re.MULTILINE | re.DOTALL)
LINK = re.compile(r"\[([^\]]+)\]\([^)]+\)")
CITATION = re.compile(r"\s*\(\[[^\]]+\]\([^)]+\)\)")  # "(" a link ")": the source, which a tooltip leaves out
ANCHOR = re.compile(r"\s*\{[^}]*\}\s*$")  # a term's attribute list, ``{ #external-id }``: a stable link target


def entries(text: str) -> list[tuple[str, str]]:
    """[(term, definition)] of the glossary page's definition lists, the definition's lines joined."""
    return [(ANCHOR.sub("", match["term"]).strip(), " ".join(line.strip() for line in match["definition"].splitlines()))
            for match in ENTRY.finditer(text)]


def plain(markdown: str) -> str:
    """Markdown inline text as plain words for a tooltip: no citations, links keep their text, code loses its
    backticks."""
    return LINK.sub(r"\1", CITATION.sub("", markdown)).replace("`", "").replace("*", "")


def first_sentence(text: str) -> str:
    """Up to the first full stop followed by a space (or the end)."""
    return re.split(r"(?<=\.)\s", text, maxsplit=1)[0]


def abbreviations(text: str) -> str:
    """The abbreviations file: each term, and its plural, with the first sentence of its definition."""
    lines = []
    for term, definition in entries(text):
        tooltip = plain(first_sentence(definition)).replace("]", ")").replace("[", "(")
        for form in (term, term + "s") if not term.endswith(("s", "y")) else (term,):
            lines.append(f"*[{form}]: {tooltip}")
    return "\n".join(lines) + "\n"


def unlabelled(words: str) -> str:
    """A verdict's sentence without the names ``explain`` fills in for one trace."""
    return words.replace(" ({label})", "").replace("{label}", "").replace("({categories})", "(named in the report)")


def verdict_list() -> str:
    """Every verdict ``explain`` gives, with the words it prints: on a trace with GPU work, and without."""
    lines = []
    for name in sorted({*VERDICTS, *HOST_VERDICTS}):
        meanings = [("", VERDICTS.get(name)), ("Without GPU work: ", HOST_VERDICTS.get(name))]
        said = " ".join(prefix + unlabelled(words) for prefix, words in meanings if words)
        lines += [f"`{name}`", f":   {said}", ""]
    return "\n".join(lines)
