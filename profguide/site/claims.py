"""Check what the guide's pages say about a recording against the recording.

Each claim (``profguide.site.recordings.Claim``) quotes a sentence of a page
and names a measurement; this module finds the sentence on the page, takes
the measurement from the recording's data, and compares it with the claim's
bound. A claim about one device is checked on that device's run: a claim
about the CPU beside a CUDA recording on the CPU run kept with it; a claim
about CUDA beside a CPU stand-in waits for the GPU run, and says so. Any
other claim that cannot be checked fails the build, as does a claim that
names what no run, real trace or vocabulary holds: a misspelt name would
otherwise pass for an absent one.
"""

import functools
import json
import math
import textwrap
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass, fields
from pathlib import Path
from typing import Annotated, Any, Literal, TypedDict, cast, get_args, get_origin, get_type_hints

from profguide.analysis import stacks
from profguide.analysis.compile import compile_markers
from profguide.analysis.diff import TraceDiff
from profguide.analysis.families import FAMILY_WORDS, Family, family_values
from profguide.analysis.kernels import device_numbers, gemm_calls
from profguide.analysis.memory import CATEGORIES as MEMORY_CATEGORIES
from profguide.analysis.ops import MODULE
from profguide.analysis.roofline import roofline_rows
from profguide.analysis.select import event_names
from profguide.errors import RecordingError, TraceError
from profguide.render.fragments import run_words
from profguide.site import marks, operators
from profguide.site.data import load_once
from profguide.site.measures.results import exported_stacks, from_results, logged_messages
from profguide.site.recordings import Claim, Measure, RealTrace, Recording, Run
from profguide.text import cell, code, count_of, markdown_table

# What checking a claim can come to. A claim waits only as a prediction about CUDA runs beside a CPU stand-in of
# a recording meant for CUDA; every other claim is checked on the run it names, or the build fails on it.
Outcome = Literal["holds", "fails", "waits", "not checked", "misnamed", "not on its page"]
HOLDS: Outcome = "holds"
FAILS: Outcome = "fails"
WAITS: Outcome = "waits"
NOT_CHECKED: Outcome = "not checked"
MISNAMED: Outcome = "misnamed"
NOT_ON_PAGE: Outcome = "not on its page"
FAILING: tuple[Outcome, ...] = (FAILS, NOT_CHECKED, MISNAMED, NOT_ON_PAGE)
# What a measure's string stands for: the name of its annotation ("event", "idle cause"…), or the members of a
# closed Literal.
Kind = str | frozenset[str]
Unknown = tuple[str, str, Kind, "set[str] | frozenset[str] | None"]  # (field, value, kind, members or None)


def measured(measure: Measure, run: Run) -> float | None:
    """The value of ``measure`` on a run (its first rank), or None when it cannot be taken."""
    return measure.value(run)


# The closed sets a measure's strings come from (the annotations of profguide.site.recordings), by name.
CLOSED_SETS: dict[str, Callable[[], set[str]]] = {
    "memory category": lambda: set(MEMORY_CATEGORIES),
    "diff field": lambda: set(TraceDiff.__annotations__),
    "kernel family": lambda: set(FAMILY_WORDS),
    "family field": lambda: set(Family._fields) - {"family"},
}


@dataclass(frozen=True)
class Vocabulary:
    """The names a claim may use that its own runs need not hold: torch's operator registry (an op a run is
    said not to call) and every name in the guide's real traces (a kernel or a runtime call a GPU run is
    predicted to show)."""

    names: frozenset[str]
    joined: str  # every name, as written, one a line: what a part of a name is looked for in


def vocabulary_of(names: Iterable[str]) -> Vocabulary:
    names = frozenset(names)
    return Vocabulary(names, "\n".join(sorted(names)))


def vocabulary(root: Path | str) -> Vocabulary:
    """The vocabulary of the guide at ``root``: torch's operators and the names in ``docs/traces`` (a trace
    that cannot be read adds none: the build reports it where a page shows it)."""
    names = set(operators.names())
    for path in sorted((Path(root) / "docs" / "traces").glob("*.json.gz")):
        try:
            names.update(event_names(load_once(path)))
        except TraceError:
            continue
    return vocabulary_of(names)


def run_names(runs: Iterable[Run]) -> Vocabulary:
    """Every name the traces of ``runs`` hold (their string tables), with ``ProfilerStep`` where a run has
    steps: the word by which a measure means every step."""
    names: set[str] = set()
    for run in runs:
        for loaded in getattr(run, "traces", None) or (run.trace,):
            names.update(event_names(loaded))
    if any(name.startswith("ProfilerStep#") for name in names):
        names.add("ProfilerStep")
    return vocabulary_of(names)


def strings_of(measure: Measure) -> list[tuple[str, str, Kind]]:
    """Each string ``measure`` holds, with what it stands for: [(field, value, kind)]; ``kind`` is the name of
    its annotation (``"event"``, ``"idle cause"``…) or the members of a closed ``Literal``."""
    hints = get_type_hints(type(measure), include_extras=True)
    found: list[tuple[str, str, Kind]] = []
    for item in fields(measure):
        value, hint = getattr(measure, item.name), hints[item.name]
        if get_origin(hint) is tuple:
            hint = get_args(hint)[0]
            values = value
        else:
            values = (value,)
        if get_origin(hint) is Literal:
            kind = frozenset(get_args(hint))
        elif get_origin(hint) is Annotated:
            kind = hint.__metadata__[0]
        else:
            continue  # a number or a flag
        found += [(item.name, one, kind) for one in values if one != ""]
    return found


def allowed(kind: Kind, measure: Measure, data: Run) -> set[str] | frozenset[str] | None:
    """The members of a closed set that depend on the run (its tables, its configurations, its diff's keys, a
    family field's values), or of one the analysis defines; None for a kind of name looked up in runs."""
    if isinstance(kind, frozenset):
        return kind
    if kind in CLOSED_SETS:
        return CLOSED_SETS[kind]()
    fielded: Any = measure  # a measure of the kind whose fields the closed set depends on
    if kind == "table":
        return {table.name for table in data.recording.tables} if isinstance(data.recording, Recording) else set()
    if kind == "configuration":
        return from_results(data, "configurations", read=lambda rows: {row["name"] for row in rows}) or set()
    if kind == "log message":
        return set(logged_messages(data) or ())
    if kind == "python function":
        return {stacks.function_of(frame) for frames, _ in exported_stacks(data) or () for frame in frames}
    if kind == "device property":
        return set(device_numbers(data.trace))
    if kind == "diff key":
        found = cast("dict[str, Any]", data.diff).get(fielded.field)
        return set(found) if isinstance(found, dict) else set()
    if kind == "diff row":
        return {row["name"] for row in cast("dict[str, Any]", data.diff).get(fielded.rows, ())}
    if kind == "family value":
        return family_values(fielded.field)  # None for a tile or fused ops, parts of a name looked up as such
    if kind == "compile marker":
        return set(compile_markers(data.trace))
    if kind == "gemm shapes":
        return {call.key[1] for call in gemm_calls(data.trace)}
    if kind == "op shapes":
        return {row["shapes"] for row in roofline_rows(data.trace)}
    if kind == "run":
        from profguide.site.catalogue import REAL_TRACES, RECORDINGS

        runs: list[Recording | RealTrace] = [*RECORDINGS, *REAL_TRACES]
        return {run.id for run in runs}
    return None


def known_name(value: str, kind: Kind, names: Vocabulary) -> bool:
    """Whether one of ``names`` (a Vocabulary) is ``value`` (an event), holds it (a part of a name) or is a call
    of the module class ``value``. A part of a name is looked for as written, case and all: most measures match
    it so (``measure.named in name``), and one in another case would pass the check and then measure 0."""
    if kind == "event":
        return value in names.names
    if kind in ("name part", "family value"):  # a tile, fused ops: parts of a kernel's name
        return value in names.joined
    if kind == "module":
        return any((call := MODULE.match(name)) and call["name"] == value for name in names.names)
    raise ValueError(f"no way to look up a name of kind {kind!r}")


def unknown_strings(measure: Measure, data: Run, known: Callable[[], Iterable[Vocabulary]]) -> list[Unknown]:
    """The strings of ``measure`` that name nothing: [(field, value, kind, members of its set or None)].
    ``known`` gives the Vocabularies to look names up in: the runs the claim reads, then the guide's."""
    unknown: list[Unknown] = []
    for field_name, value, kind in strings_of(measure):
        members = allowed(kind, measure, data)
        if members is not None:
            if value not in members:
                unknown.append((field_name, value, kind, members))
        elif not any(known_name(value, kind, names) for names in known()):
            unknown.append((field_name, value, kind, None))
    return unknown


def runs_read(claim: Claim, data: Run) -> list[Run]:
    """The runs a claim reads besides the one it is checked on: the CPU run kept beside it, the run it is
    compared with, and the runs its measure names."""
    runs = []
    cpu = data.run_on("cpu")
    if cpu is not None and cpu is not data:
        runs.append(cpu)
    if data.recording.compared_with:
        runs.append(data.compared_run)
    named = allowed("run", claim.measure, data) or set()
    runs += [data.sibling(value) for _, value, kind in strings_of(claim.measure) if kind == "run" and value in named]
    return runs


@dataclass(frozen=True)
class ClaimCheck:
    """A claim, the value measured for it, and the outcome.

    ``anchor`` names the claim's row in the table of every claim (the recording and the claim's place in its
    list); ``run`` says in words what it was measured on; ``reason`` why it was not checked, or which of its
    names nothing holds.
    """

    recording: str
    claim: Claim
    value: float | None
    outcome: Outcome
    device: str
    anchor: str = ""
    run: str = ""
    reason: str = ""

    def line(self) -> str:
        """One line for a person: the page, the words, the measurement and the outcome."""
        claim = self.claim
        value = "cannot be measured" if self.value is None else f"{self.value:.3g}"
        where = f'{claim.page} says "{claim.says}" of {self.recording}'
        if self.outcome == NOT_ON_PAGE:
            return (f"{where}, but the page no longer says it inside a mark, [...]{{.claim}}: "
                    "update the claim or the page")
        if self.outcome == WAITS:
            return f"{where}: about {claim.device} runs, waiting for one beside this {self.device} stand-in"
        if self.outcome in (NOT_CHECKED, MISNAMED):
            return f"{where}: {self.reason}"
        return f"{where}: {claim.measure.describe()} = {value}, must be {claim.bound()}: {self.outcome}"


def holds(claim: Claim, value: float | None) -> bool:
    if value is None or not math.isfinite(value):
        return False
    return (claim.at_least is None or value >= claim.at_least) and (claim.at_most is None or value <= claim.at_most)


def checked_run(claim: Claim, data: Run) -> tuple[Run | None, tuple[Outcome, str] | None]:
    """The run a claim is checked on, and otherwise why not: (run, None) or (None, (outcome, reason)).

    A claim about no device in particular is checked on the run the page shows; one about the device that
    run was made on, on it too. A claim about the CPU beside a CUDA run is checked on the CPU run kept with
    it. A claim about CUDA beside a CPU stand-in waits for the GPU run that will replace it. Anything else
    can never be checked, and the build fails on it, saying what to change.
    """
    device = data.meta["device"]
    if claim.device in (None, device):
        return data, None
    kind = "trace" if getattr(data, "real", False) else "recording"
    if claim.device == "cpu":
        cpu = data.run_on("cpu") if kind == "recording" else None
        if cpu is not None:
            return cpu, None
        return None, (NOT_CHECKED, f"about CPU runs, and the {kind} holds a {device} run with no CPU run kept "
                                   "beside it: record that (`make figures` records what is missing), or reword "
                                   f"the claim for {device} runs")
    if kind == "recording" and data.meta.get("cpu_standin"):
        return None, (WAITS, "")
    return None, (NOT_CHECKED, f"about {claim.device} runs, and the {kind} is a {device} run that no "
                               f"{claim.device} run will replace: point the claim at a recording meant for "
                               f"{claim.device} (or a real trace of one), or reword it for {device} runs")


def misnamed_words(unknown: list[Unknown]) -> str:
    """Why a claim's names fail, in one clause."""
    words = []
    for field_name, value, kind, members in unknown:
        if members is None:
            words.append(f'{field_name} "{value}" names no {kind} of the runs it reads, of the guide\'s real '
                         "traces or of torch\'s operators")
        else:
            words.append(f'{field_name} "{value}" is no {kind if isinstance(kind, str) else "choice"} '
                         f"(one of: {', '.join(sorted(members))})")
    return "; ".join(words) + ": a misspelling?"


def judged(claim: Claim, data: Run, run: Run | None, refused: tuple[Outcome, str] | None,
           names: Callable[[], Vocabulary], vocabulary: Vocabulary | None) -> tuple[float | None, Outcome, str]:
    """(value, outcome, reason) of a claim its page makes: ``run`` is the run it is checked on (or None, with
    ``refused`` saying why), ``names`` the Vocabulary of ``data`` itself; its other runs and ``vocabulary`` are
    looked in only for a name ``data`` lacks."""
    def known() -> Iterator[Vocabulary]:
        yield names()
        yield run_names(runs_read(claim, data))
        if vocabulary is not None:
            yield vocabulary

    if refused and refused[0] == NOT_CHECKED:
        return None, *refused  # its names are those of a run that is not there
    unknown = unknown_strings(claim.measure, run or data, known)
    if unknown:
        return None, MISNAMED, misnamed_words(unknown)
    if refused:
        return None, *refused
    value = None if run is None else measured(claim.measure, run)
    return value, HOLDS if holds(claim, value) else FAILS, ""


def check(recording: Recording | RealTrace, data: Run, docs: Path | str,
          vocabulary: Vocabulary | None = None) -> list[ClaimCheck]:
    """Check every claim of ``recording`` against its data and its page under ``docs``: a claim's words must lie
    inside a mark on its page (``profguide.site.marks``), and each name it measures must be known: held by a
    run it reads or by ``vocabulary`` (``vocabulary(root)``: torch's operators, the real traces' names). A claim
    whose run cannot be read is not checked, and says why."""
    checks = []
    names = functools.cache(lambda: run_names([data]))
    for number, claim in enumerate(recording.claims, 1):
        page = Path(docs) / claim.page
        words = marks.marked(page.read_text()) if page.is_file() else []
        run = None
        if not any(marks.holds_words(marked, claim.says) for marked in words):
            value, outcome, reason = None, NOT_ON_PAGE, ""
        else:
            try:
                run, refused = checked_run(claim, data)
                value, outcome, reason = judged(claim, data, run, refused, names, vocabulary)
            except (RecordingError, TraceError) as error:
                value, outcome, reason = None, NOT_CHECKED, f"cannot be measured: {error}"
        shown = run or data
        checks.append(ClaimCheck(recording.id, claim, value, outcome, shown.meta["device"],
                                 f"claim-{recording.id}-{number}", run_words(shown.meta), reason))
    return checks


def mark_problems(docs: Path | str, checks: list[ClaimCheck]) -> list[str]:
    """One line for each way the marks on the pages under ``docs`` and the claims disagree: a mark that shows no
    claim (a sentence shown as checked that nothing checks), a mark that shows another page's claim, and a
    claim that more than one mark shows."""
    entries: list[marks.MarkEntry] = [{"says": c.claim.says, "page": c.claim.page, "anchor": c.anchor} for c in checks]
    lines: list[str] = []
    times_shown: dict[str, int] = {}
    for page in sorted(Path(docs).rglob("*.md")):
        relative = str(page.relative_to(docs))
        if relative.startswith("generated/"):
            continue
        text = page.read_text()
        if marks.marked(text) and marks.checked_include(relative) not in text:
            lines.append(f"{relative} marks sentences as checked but does not list them: end it with "
                         f"{marks.checked_include(relative)}")
        for words in marks.marked(text):
            found = marks.shown(words, entries)
            if not found:
                lines.append(f'{relative} marks "{words}" as checked, but no claim checks it')
            for entry in found:
                if entry["page"] != relative:
                    lines.append(f'{relative} marks "{words}", which shows a claim of {entry["page"]}: '
                                 "quote more of the sentence in one of the two claims")
                times_shown[entry["anchor"]] = times_shown.get(entry["anchor"], 0) + 1
    lines += [f'{c.claim.page}: {times_shown[c.anchor]} marks show the claim "{c.claim.says}" of {c.recording}; '
              "quote more of its sentence" for c in checks if times_shown.get(c.anchor, 0) > 1]
    return lines


def failed(checks: Sequence[ClaimCheck]) -> list[ClaimCheck]:
    """The checks that make the build fail: a claim that does not hold, one that names what nothing holds, one no
    run can check, or one its page no longer makes."""
    return [c for c in checks if c.outcome in FAILING]


class ClaimCounts(TypedDict):
    """The claims by what came of them (``counts``)."""

    claims: int
    checked: int
    holding: int
    failing: int
    waiting: int


def counts(checks: Sequence[ClaimCheck]) -> ClaimCounts:
    """What came of the claims, in numbers: checked (measured and compared with their bounds), holding,
    failing (whatever makes the build fail) and waiting (predictions about GPU runs beside CPU stand-ins)."""
    return {"claims": len(checks), "checked": sum(c.outcome in (HOLDS, FAILS) for c in checks),
            "holding": sum(c.outcome == HOLDS for c in checks), "failing": len(failed(checks)),
            "waiting": sum(c.outcome == WAITS for c in checks)}


def claims_table(checks: list[ClaimCheck]) -> str:
    """Markdown: every claim of the guide, with the value measured for it and the outcome; each row links to the
    claim's row in its page's own list (``page_claims``)."""
    rows = [(f"[{cell(c.claim.page.removesuffix('.md'))}](../{cell(c.claim.page)}#{c.anchor})",
             cell(c.claim.says, markdown=True), code(c.recording), measured_words(c), cell(c.claim.bound(), True),
             result_words(c)) for c in checks]
    return markdown_table(("Page", "The page says", "Recording", "Measured", "Must be", "Result"), rows, "llllll")


def measured_words(check: ClaimCheck) -> str:
    """What was measured for a claim and its value, in a cell (the measure's words are the guide's Markdown)."""
    return cell(check.claim.measure.describe(), markdown=True) + " = " + (
        "–" if check.value is None else f"{check.value:.3g}")


DEVICE_WORDS: dict[str | None, str] = {"cuda": "GPU", "cpu": "CPU", None: "any"}
STATES: dict[Outcome, str] = {HOLDS: "holds", WAITS: "waits", **{outcome: "fails" for outcome in FAILING}}


def mark_entry(c: ClaimCheck) -> dict[str, str]:
    """What the mark of one claim shows (``profguide.site.marks``): its state, its label and its tooltip."""
    claim, state = c.claim, STATES[c.outcome]
    if state == "holds":
        label = "✓"
        title = (f"Checked: {claim.measure.describe()} = {c.value:.3g}, and the words need {claim.bound()}. "
                 f"Run: {c.run}.")
    elif state == "waits":
        device = DEVICE_WORDS[claim.device]
        label = f"waits for a {device} run"
        title = (f"Not checked yet: a prediction about {device} runs, and this page shows {c.run}. A {device} "
                 f"recording will check that {claim.measure.describe()} is {claim.bound()}.")
    else:
        label = "✗ does not hold"
        title = c.line()
    return {"page": claim.page, "says": claim.says, "anchor": c.anchor, "state": state, "label": label,
            "title": title}


def page_claims(checks: list[ClaimCheck]) -> str:
    """Markdown for the end of a page: its checked sentences, what was measured for each and on which run,
    collapsed. Each row is the target of its sentence's mark (``anchor``)."""
    waiting = sum(c.outcome == WAITS for c in checks)
    summary = f"{count_of(len(checks), 'sentence')} on this page checked against their runs" + (
        f", {waiting} waiting for a GPU run" if waiting else "")
    lines = [f'??? abstract "{summary}"',
             "    The build checks each sentence shown with a mark against the run the page shows, and fails when "
             "one no longer holds: a GPU refresh cannot silently falsify a sentence. *How the figures are made* "
             "lists the checks of every page.", ""]
    rows = [(f'<span id="{c.anchor}"></span>{cell(c.claim.says, markdown=True)}',
             measured_words(c), cell(c.claim.bound(), True), result_words(c), cell(c.run, True))
            for c in checks]
    table = markdown_table(("The page says", "Measured", "The words need", "Result", "Run"), rows, "lllll")
    return "\n".join(lines) + "\n" + textwrap.indent(table, "    ")


def result_words(c: ClaimCheck) -> str:
    if c.outcome == HOLDS:
        return "✓ holds"
    if c.outcome == WAITS:
        return f"waits for a {DEVICE_WORDS[c.claim.device]} run"
    return f"✗ {c.outcome}"


def mark_entries(checks: list[ClaimCheck]) -> str:
    """``claims.json``: one entry per claim, for the marks on the pages."""
    return json.dumps([mark_entry(c) for c in checks], indent=1, ensure_ascii=False) + "\n"
