"""The rule table as the site shows it: every rule of ``profguide.analysis.rules`` with what it measured on the
run of the guide that shows it, on the reference page and in the cheat sheet (one source: the rules).

A rule whose run no longer shows it fails the build, as a claim would: the
table never quotes a finding the run does not make.
"""

from pathlib import Path

from profguide.analysis.rule import SOURCES, RuleText
from profguide.analysis.rules import JOB_RULES, RULES
from profguide.analysis.summary import Finding
from profguide.site.data import run_data
from profguide.site.fragment_run import FragmentError
from profguide.text import cell

REFERENCE_PAGE = "reference/explain.md"
EVERY_RULE: tuple[RuleText, ...] = (*RULES, *JOB_RULES)  # as the site lists them: a trace's rules, then a job's
Measured = dict[str, tuple[str, Finding]]  # {rule id: (the run that shows it, what the rule found there)}


def anchor(rule_id: str) -> str:
    """The id of a rule's row on the reference page: ``explain`` links it as ``reference/explain/#rule-…``."""
    return f"rule-{rule_id}"


def measured_on_runs(root: Path | str, generated: Path | str | None = None) -> Measured:
    """{rule id: (the run that shows it, what the rule found there)}, for the rules that name a run (the others
    wait for one); FragmentError when a rule's run does not show it any more."""
    found: Measured = {}
    for rule in EVERY_RULE:
        if not rule.shown_by:
            continue
        data = run_data(rule.shown_by, root, generated)
        summary = data.job if rule in JOB_RULES else data.summary
        hits = [row for row in summary["findings"] if row["rule"] == rule.id] if summary else []
        if not hits:
            raise FragmentError(f"rule {rule.id}: its run {rule.shown_by} does not show it any more; change the "
                                "rule's shown_by (never the data)")
        found[rule.id] = (rule.shown_by, hits[0])
    return found


def link(page: str, from_page: str) -> str:
    """A Markdown link from ``from_page`` to ``page`` (both relative to ``docs/``, ``page`` with its anchor)."""
    depth = from_page.count("/")
    return f"{'../' * depth}{page}"


def page_title(page: str, root: Path) -> str:
    """The first heading of a page (relative to ``docs/``): the words of a link to it."""
    path = root / "docs" / page.partition("#")[0]
    for line in path.read_text().splitlines():
        if line.startswith("# "):
            return line[2:].strip()
    return page


def measured_words(rule: RuleText, found: Measured) -> str:
    """What the rule measured on the guide's run that shows it, and which run; or that it waits for one."""
    if rule.id not in found:
        return "no run of this guide shows it yet: it waits for a GPU run"
    run, hit = found[rule.id]
    return f"{cell(hit['evidence'], markdown=True)} (`{run}`)"


def reference_table(root: Path, found: Measured) -> str:
    """Markdown for the reference page: the rules by source, in the order ``explain`` tries them, each a term
    (its id, with the anchor ``explain`` links) and its definition: what it detects and measures, the change
    to try, the page that shows it, and what it measured on the guide's run."""
    blocks = []
    for source, words in SOURCES.items():
        blocks.append(f"### From {words}\n" if source != "guide" else "### This guide's own\n")
        for rule in (rule for rule in EVERY_RULE if rule.source == source):
            scope = " (a folder of ranks)" if rule in JOB_RULES else ""
            blocks.append(
                f'<span id="{anchor(rule.id)}"></span>`{rule.id}`{scope}\n'
                f":   {sentence_case(rule.detects)}. "
                f"*Measures* {cell(rule.measures, markdown=True)}.\n\n"
                f"    *Try* {cell(rule.change, markdown=True)}; "
                f"[{cell(page_title(rule.page, root))}]({link(rule.page, REFERENCE_PAGE)}) shows it.\n\n"
                f"    *On the guide's run:* {measured_words(rule, found)}; quiet on `{rule.clean_on}`.\n")
    return "\n".join(blocks)


def sentence_case(text: str) -> str:
    """``text`` with its first letter a capital (a rule's words start in lower case, to sit in a sentence)."""
    return cell(text[:1].upper() + text[1:], markdown=True)


def cheat_rows(root: Path, found: Measured, from_page: str) -> str:
    """The cheat sheet's rule section: what you see, what it means (the rule), what to try, where it is shown,
    and what the rule measured on the guide's run."""
    lines = ["## What `profguide explain` flags", "", '<div class="pg-reflow" markdown>', "",
             "| If the trace shows… | Rule | Try… | Shown on | In this guide's runs |", "|---|---|---|---|---|"]
    for rule in EVERY_RULE:
        reference = link(f"{REFERENCE_PAGE}#{anchor(rule.id)}", from_page)
        lines.append(f"| {cell(rule.detects, markdown=True)} | [`{rule.id}`]({reference}) | "
                     f"{cell(rule.change, markdown=True)} | "
                     f"[{cell(page_title(rule.page, root))}]({link(rule.page, from_page)}) | "
                     f"{measured_words(rule, found)} |")
    return "\n".join([*lines, "", "</div>"]) + "\n"

