"""What a refresh of the recordings did to the guide's claims, in numbers and in the words of its pull request.

``profguide claims --json`` writes the claims' counts before a refresh; ``profguide claims --since`` compares the
counts after it with them. A refresh must leave every claim that was checked checked (a claim about the CPU
on the CPU run kept beside a new GPU run, a claim about a GPU on that run): one that checks fewer, or one
after which a claim fails, is refused, and the workflow opens no pull request.
"""

import json
from collections.abc import Sequence
from pathlib import Path
from typing import Literal, TypeGuard

from profguide.errors import UsageError
from profguide.jsontypes import JSON
from profguide.site import claims
from profguide.text import markdown_table

CountName = Literal["checked", "holding", "failing", "waiting", "claims"]
ROWS: tuple[tuple[CountName, str], ...] = (
    ("checked", "checked against their runs"), ("holding", "holding"), ("failing", "failing"),
    ("waiting", "waiting for a GPU run"), ("claims", "in all"))


class Counts(claims.ClaimCounts):
    """What ``profguide claims --json`` writes: the claims by outcome, and each claim's outcome, page and words
    by its anchor (read back from a file, an entry is checked where it is used)."""

    outcomes: dict[str, JSON]


def counts_of(checks: Sequence[claims.ClaimCheck]) -> Counts:
    """``claims.counts`` with each claim's outcome, page and words by its anchor, for a later comparison."""
    outcomes: dict[str, JSON] = {c.anchor: {"outcome": c.outcome, "page": c.claim.page, "says": c.claim.says}
                                 for c in checks}
    return {**claims.counts(checks), "outcomes": outcomes}


def counts_document(checks: Sequence[claims.ClaimCheck]) -> str:
    """``counts_of`` as the JSON that ``profguide claims --json`` writes."""
    return json.dumps(counts_of(checks), indent=1, ensure_ascii=False, sort_keys=True) + "\n"


def read_counts(path: Path) -> Counts:
    """Counts that ``profguide claims --json`` wrote; UsageError, in one line, for anything else."""
    try:
        found = json.loads(Path(path).read_text())
    except (OSError, UnicodeDecodeError, ValueError) as error:
        raise UsageError(f"{path}: not the claims' counts ({str(error).splitlines()[0]})") from None
    if not isinstance(found, dict) or not all(isinstance(found.get(key), int) for key, _ in ROWS) \
            or not isinstance(found.get("outcomes"), dict):
        raise UsageError(f"{path}: not the claims' counts that `profguide claims --json` writes")
    return {"claims": found["claims"], "checked": found["checked"], "holding": found["holding"],
            "failing": found["failing"], "waiting": found["waiting"], "outcomes": found["outcomes"]}


def was_checked(entry: JSON) -> TypeGuard[dict[str, JSON]]:
    return isinstance(entry, dict) and entry.get("outcome") in (claims.HOLDS, claims.FAILS)


def refusals(before: Counts, after: Counts) -> list[str]:
    """Why a refresh that went from ``before`` to ``after`` must not be taken, one line each: fewer claims
    checked, a claim checked before and not now, a claim that fails."""
    lines = []
    if after["checked"] < before["checked"]:
        lines.append(f"the refresh checks fewer claims than before: {before['checked']} → {after['checked']}")
    for anchor, entry in sorted(before["outcomes"].items()):
        now = after["outcomes"].get(anchor)
        if was_checked(entry) and not was_checked(now):
            state = now["outcome"] if isinstance(now, dict) else "gone"
            lines.append(f'{entry["page"]}: "{entry["says"]}" was checked and is now {state}')
    lines += [f'{entry["page"]}: "{entry["says"]}" {entry["outcome"]}' for _, entry in sorted(after["outcomes"].items())
              if isinstance(entry, dict) and entry.get("outcome") in claims.FAILING]
    return lines


def report(before: Counts, after: Counts) -> tuple[str, list[str]]:
    """The pull request's text, from the counts before and after the refresh: (Markdown, refusals)."""
    refused = refusals(before, after)
    table = markdown_table(("Claims", "Before the refresh", "After it"),
                           [(words, str(before[key]), str(after[key])) for key, words in ROWS], "lrr")
    newly = [f'- {entry["page"]}: "{entry["says"]}"' for anchor, entry in sorted(after["outcomes"].items())
             if was_checked(entry) and not was_checked(before["outcomes"].get(anchor))]
    lines = ["`make figures` recorded the stale recordings on the runner's GPUs, and `profguide build --check` "
             "checked every claim against the new data. Each recording's meta.json names the GPU, torch, CUDA and "
             "the date.", "", table, ""]
    if newly:
        lines += [f"Checked for the first time ({len(newly)}):", "", *newly, ""]
    if refused:
        lines += ["**This refresh is refused:**", "", *(f"- {line}" for line in refused), ""]
    return "\n".join(lines), refused
