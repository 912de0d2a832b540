"""Keep ``docs/generated/`` in step with the snippets and the pages, then render what the pages include.

For each recording: decide whether the committed recording is fresh (its
cache key matches its snippets and spec), re-record it when asked to and
when its device is here, render exactly the fragments that pages include,
and check the claims pages make about it. A CPU machine never replaces a
CUDA recording: it reports it as stale instead. Files in a recording's
folder that no page uses are removed (or, with ``check``, reported). A real
trace from another machine (``RealTrace``) is rendered and checked the same
way, and never recorded.
"""

import dataclasses
import functools
import json
import re
import sys
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, TextIO

from profguide.analysis import diff, op_view, summary, tables
from profguide.analysis.idle import hta_ops_in
from profguide.analysis.peaks import PEAKS
from profguide.analysis.rules import JOB_RULES, RULES
from profguide.analysis.summarise import summarise
from profguide.errors import RecordingError, TraceError
from profguide.figures import charts
from profguide.files import replace_file
from profguide.progress import step
from profguide.render import fragments as render
from profguide.site import (
    claims,
    glossary,
    kernel_table,
    launch,
    lessons,
    marks,
    nav,
    notebooks,
    rule_table,
    verdict_table,
)
from profguide.site.cheatsheet import cheat_sheet
from profguide.site.claims import ClaimCheck, Vocabulary
from profguide.site.data import RealTraceData, RecordingData, load_once
from profguide.site.fragment_run import FragmentError
from profguide.site.fragments import makers_for
from profguide.site.measures.summary import HTA_REFERENCE
from profguide.site.recordings import RealTrace, Recording, Run
from profguide.site.staleness import CPU_RUN, Meta, cpu_run_state, recording_state

INCLUDE = re.compile(r'^[ \t]*--8<-- "docs/generated/(?P<folder>[^/"]+)/(?P<name>[^/"]+)"[ \t]*$', re.MULTILINE)
# Fragments of the whole site rather than of one recording, in docs/generated/site/.
SITE = "site"
BENCHMARK_RESULTS = "benchmarks/results/explain_vs_hta.json"
RANKS_RESULTS = "benchmarks/results/explain_ranks.json"
LAYOUT_RESULTS = "benchmarks/results/layout_memory.json"
DIFF_RESULTS = "benchmarks/results/diff_and_rules.json"
TRANSFORMERS_RESULTS = "benchmarks/results/install_size_transformers.json"
READBACK_RESULTS = "benchmarks/results/export_readback.json"
TRACELENS_RESULTS = "benchmarks/results/tracelens_comparison.json"
TRACES = "docs/traces"  # the real traces from other machines, with their sources and licences
REAL_VERDICTS = "real-trace-verdicts.md"
HTA_AGREEMENT = "hta-agreement.md"
CHEAT_SHEET = "reading-output/cheat-sheet.md"
# The JSON Schemas of the commands' --json output, which the reference page links: (types, title) by file.
SCHEMAS = {"explain.schema.json": (summary.OUTPUTS, "profguide explain --json"),
           "diff.schema.json": (diff.OUTPUTS, "profguide diff --json"),
           "ops.schema.json": ((op_view.OpsView,), "profguide explain --ops --json")}


@dataclass(frozen=True)
class Status:
    """What the build found for one recording (or the site's own fragments) and what it did."""

    id: str
    state: str  # "fresh", "stale" or "missing"
    action: str = "kept"  # "kept", "rendered", "recorded on cpu", "not refreshed: …"
    problems: tuple[str, ...] = ()  # what makes `build --check` fail, one line each


def page_includes(docs: Path) -> dict[str, dict[str, list[str]]]:
    """What the pages include from ``docs/generated/``: {folder: {fragment name: [pages]}}."""
    found: dict[str, dict[str, list[str]]] = {}
    for page in sorted(Path(docs).rglob("*.md")):
        relative = page.relative_to(docs)
        if relative.parts[0] == "generated":
            continue
        for match in INCLUDE.finditer(page.read_text()):
            found.setdefault(match["folder"], {}).setdefault(match["name"], []).append(str(relative))
    return found


def rendered(data: Run, names: Iterable[str]) -> dict[str, str]:
    """The files made for the fragments ``names`` that pages include (recording files need no making)."""
    files: dict[str, str] = {}
    makers = makers_for(data.recording.id)
    for name in sorted(set(names) - set(data.files)):
        if name not in makers:
            raise FragmentError(f"no fragment named {name} (known: {', '.join(makers)})")
        files.update(makers[name](data))
    return files


def write_if_changed(path: Path | str, text: str) -> bool:
    """Write ``text`` unless the file already holds it (keeps `mkdocs serve` from looping)."""
    path = Path(path)
    if path.exists() and path.read_text() == text:
        return False
    path.parent.mkdir(parents=True, exist_ok=True)
    replace_file(path, text)
    return True


def settle(folder: Path | str, files: Mapping[str, str], keep: set[str], check: bool) -> tuple[str, list[str]]:
    """Write ``files`` into ``folder`` and remove what no page uses, or, with ``check``, report both.

    Returns (what was done, problems): "rendered: …; removed: …" (or
    "kept"), and with ``check`` one line for each file out of date or unused.
    """
    folder = Path(folder)
    outdated = sorted(n for n, text in files.items() if not (folder / n).exists() or (folder / n).read_text() != text)
    unused = sorted(p.name for p in folder.iterdir() if p.is_file() and p.name not in files and p.name not in keep) \
        if folder.is_dir() else []
    if check:
        return "kept", [f"out of date: {name}" for name in outdated] + [f"used by no page: {name}" for name in unused]
    for name in outdated:
        write_if_changed(folder / name, files[name])
    for name in unused:
        (folder / name).unlink()
    done = [f"{verb}: {', '.join(names)}" for verb, names in (("rendered", outdated), ("removed", unused)) if names]
    return "; ".join(done) or "kept", []


def build_recording(recording: Recording, root: Path, generated: Path, included: Mapping[str, list[str]],
                    refresh: bool, check: bool, gpus: int | None, stream: TextIO, position: tuple[int, int],
                    vocabulary: Vocabulary) -> tuple[Status, list[ClaimCheck]]:
    """Bring one recording up to date as far as this machine can; return its Status and its claim checks.

    A CPU stand-in counts as out of date on a machine with the GPUs its recording is meant for. A recording
    meant for CUDA whose claims speak of the CPU keeps a CPU run beside its GPU run, brought up to date too.
    """
    state, meta = recording_state(recording, root, generated)
    action = "kept"
    if refresh and not check and (state != "fresh" or standin_with_gpus(recording, meta, gpus)):
        device, reason = launch.device_for(recording, meta, gpus)
        if device is None:
            action = f"not refreshed: {reason}"  # a reason comes with no device
        else:
            with step(*position, f"recording {recording.id} on {device}", stream):
                launch.record(recording, device, root, generated)
            state, action = "fresh", f"recorded on {device}"
    if state in ("missing", "broken"):
        broken = (f"{recording.id}: its meta.json cannot be read: record it again",) if state == "broken" else ()
        return Status(recording.id, state, "nothing to render", broken), []
    cpu_state, _ = cpu_run_state(recording, root, generated)
    if cpu_state not in ("fresh", "not needed") and refresh and not check:
        with step(*position, f"recording {recording.id}'s CPU run", stream):
            launch.record(recording, "cpu", root, generated, cpu_run=True)
        cpu_state, action = "fresh", f"{action}; CPU run recorded"
    kept = () if cpu_state in ("fresh", "not needed") else (
        f"{recording.id}: its CPU run ({CPU_RUN}/), on which its claims about the CPU are checked, is {cpu_state}: "
        "`make figures` records it",)
    if not included:
        return Status(recording.id, state, action, (f"{recording.id}: no page includes anything from it", *kept)), []
    status, checks = render_and_check(RecordingData(recording, Path(generated) / recording.id), included, root,
                                      check, state, action, vocabulary)
    return dataclasses.replace(status, problems=(*status.problems, *kept)), checks


def standin_with_gpus(recording: Recording, meta: Meta | None, gpus: int | None) -> bool:
    """Whether ``meta`` is that of a CPU stand-in and this machine has the GPUs to record the run it stands in
    for."""
    return bool(meta and meta.get("cpu_standin")) and launch.default_device(recording, gpus) == "cuda"


def build_real_trace(real: RealTrace, root: Path, generated: Path, included: Mapping[str, list[str]], check: bool,
                     vocabulary: Vocabulary) -> tuple[Status, list[ClaimCheck]]:
    """Render what pages include from a real trace and check its claims; it is never recorded, so never stale."""
    missing = [name for name in (real.files or (real.file,)) if not (Path(root) / name).is_file()]
    if missing:
        return Status(real.id, "missing", "nothing to render",
                      tuple(f"{real.id}: its trace {name} is not there" for name in missing)), []
    if not included:
        # A real trace that a rule names as its run (the rule table quotes it) needs no page of its own.
        ruled = any(real.id in (rule.shown_by, rule.clean_on) for rule in (*RULES, *JOB_RULES))
        return Status(real.id, "fresh", "kept", () if ruled else (f"{real.id}: no page includes anything from it",)), []
    return render_and_check(RealTraceData(real, Path(root), Path(generated) / real.id), included, root, check,
                            "fresh", "kept", vocabulary)


def render_and_check(data: Run, included: Iterable[str], root: Path, check: bool, state: str, action: str,
                     vocabulary: Vocabulary) -> tuple[Status, list[ClaimCheck]]:
    """Render the fragments pages include from ``data`` into its folder and check its claims (their names looked
    up in their runs and ``vocabulary``): (Status, checks)."""
    recording = data.recording
    try:
        checks = claims.check(recording, data, Path(root) / "docs", vocabulary)
    except (RecordingError, TraceError) as error:
        return Status(recording.id, state, action, (f"{recording.id}: {error}",)), []
    problems = ["claim " + c.line() for c in claims.failed(checks)]
    try:  # a fragment that cannot be made is a problem of its own: the claims are checked all the same
        files = rendered(data, included)
    except (FragmentError, RecordingError, TraceError) as error:
        return Status(recording.id, state, action, (f"{recording.id}: {error}", *problems)), checks
    done, unsettled = settle(data.folder, files, set(data.files), check)
    return Status(recording.id, state, done if action == "kept" else action, (*unsettled, *problems)), checks


def benchmark_results(root: Path | str, path: str) -> dict[str, Any]:
    """A benchmark's results file (``benchmarks/results/…``), as its script wrote it."""
    results: dict[str, Any] = json.loads((Path(root) / path).read_text())  # a JSON object, of any script's age
    return results


def benchmark_files(root: Path | str) -> dict[str, str]:
    """The benchmark's results as a table and sentences, and its scaling figure."""
    results = benchmark_results(root, BENCHMARK_RESULTS)
    svg = f"docs/generated/{SITE}/explain-vs-hta.svg"
    files = {"explain-vs-hta.md": render.benchmark_fragment(results, svg)}
    if results.get("scaling"):
        files["explain-vs-hta.svg"] = charts.scaling_svg(render.scaling_series(results))
    return files


def hta_comparison(path: Path, references: Mapping[str, Any]) -> render.HtaComparison:
    """A real trace's GPU idle share by HTA (its entry in ``references``, the HTA reference file's traces) beside
    the ones profguide measures. A trace without GPU work has no window to compare, and needs no entry; one with
    GPU work and no entry is a FragmentError."""
    trace = load_once(path)
    found = summarise(trace)
    if not found["window"]:
        return render.HtaComparison(path.name, found["device"], None, 0, None, None, references.get(path.name, {}))
    reference = references.get(path.name)
    if reference is None:
        raise FragmentError(f"{HTA_REFERENCE} holds no entry for {path.name}: run "
                            "benchmarks/hta_reference.py where HolisticTraceAnalysis is installed")
    window = (found["window"]["start_us"], found["window"]["end_us"])
    return render.HtaComparison(path.name, found["device"], found["window"]["dur_us"], hta_ops_in(trace, window),
                                found["gpu_idle_pct_by_htas_rule"], found["gpu_idle_pct"], reference)


def hta_agreement(root: Path | str) -> str:
    """Every real trace's GPU idle share by HTA beside profguide's, as the reference page shows them."""
    reference = benchmark_results(root, HTA_REFERENCE)
    comparisons = [hta_comparison(path, reference["traces"])
                   for path in sorted((Path(root) / TRACES).glob("*.json.gz"))]
    return render.hta_agreement_fragment(comparisons, reference)


def site_files(root: Path, checks: list[ClaimCheck], included: Iterable[str]) -> dict[str, str]:
    """The site's own fragments that pages include (every claim's check, the benchmark results, the rules with
    what each measured on its run, and the cheat sheet, which quotes the rules' and the claims' measurements),
    ``claims.json``, which the marks on the pages read, the glossary's abbreviations and verdicts, and the JSON
    Schemas of the commands' ``--json`` with explain's field tables, and the nav, from the pages' front matter."""
    found = functools.cache(functools.partial(rule_table.measured_on_runs, root))  # the rules' runs, summarised once
    makers: dict[str, Callable[[], dict[str, str]]] = {
        "claims.md": lambda: {"claims.md": claims.claims_table(checks)},
        "rules.md": lambda: {"rules.md": rule_table.reference_table(Path(root), found())},
        verdict_table.FRAGMENT: lambda: {verdict_table.FRAGMENT: verdict_table.verdict_table()},
        "explain-vs-hta.md": lambda: benchmark_files(root),
        "layout-memory.md": lambda: {"layout-memory.md": render.layout_benchmark_fragment(
            benchmark_results(root, LAYOUT_RESULTS))},
        "diff-and-rules.md": lambda: {"diff-and-rules.md": render.diff_benchmark_fragment(
            benchmark_results(root, DIFF_RESULTS))},
        "explain-ranks.md": lambda: {"explain-ranks.md": render.ranks_benchmark_fragment(
            benchmark_results(root, RANKS_RESULTS))},
        "transformers-cost.md": lambda: {"transformers-cost.md": render.transformers_benchmark_fragment(
            benchmark_results(root, TRANSFORMERS_RESULTS))},
        "peaks.md": lambda: {"peaks.md": render.peak_table(PEAKS.values())},
        "tracelens-comparison.md": lambda: {"tracelens-comparison.md": render.tracelens_fragment(
            benchmark_results(root, TRACELENS_RESULTS))},
        "cheat-sheet.md": lambda: {"cheat-sheet.md": rule_table.cheat_rows(Path(root), found(), CHEAT_SHEET)
                                   + "\n" + cheat_sheet(checks)},
        glossary.VERDICT_LIST: lambda: {glossary.VERDICT_LIST: glossary.verdict_list()},
        "explain-fields.md": lambda: {"explain-fields.md": summary.field_tables()},
        "export-tables.md": lambda: {"export-tables.md": tables.schema_tables()},
        "export-readback.md": lambda: {"export-readback.md": render.readback_benchmark_fragment(
            benchmark_results(root, READBACK_RESULTS))},
        REAL_VERDICTS: lambda: {REAL_VERDICTS: render.real_verdicts_table(
            [(path.name, summarise(load_once(path))) for path in sorted((Path(root) / TRACES).glob("*.json.gz"))])},
        HTA_AGREEMENT: lambda: {HTA_AGREEMENT: hta_agreement(root)},
        lessons.FRAGMENT: lambda: {lessons.FRAGMENT: lessons.lessons_table(Path(root) / "docs")},
        "kernel-families.md": lambda: {"kernel-families.md": kernel_table.families_table(
            [(path.name, load_once(path)) for path in sorted((Path(root) / TRACES).glob("*.json.gz"))])},
    }
    pages = {marks.checked_fragment(page): page for page in {c.claim.page for c in checks}}
    for name, page in pages.items():
        def page_checks(page: str = page) -> dict[str, str]:  # a def: mypy infers no lambda with a default
            return {marks.checked_fragment(page): claims.page_claims([c for c in checks if c.claim.page == page])}
        makers[name] = page_checks
    unknown = sorted(set(included) - set(makers))
    if unknown:
        raise FragmentError(f"no site fragment named {', '.join(unknown)} (known: {', '.join(makers)})")
    made = {name: text for fragment in included for name, text in makers[fragment]().items()}
    glossary_page = Path(root) / "docs" / glossary.PAGE
    tooltips = ({glossary.ABBREVIATIONS: glossary.abbreviations(glossary_page.read_text())}
                if glossary_page.is_file() else {})
    schema = {name: summary.schema_text(*shape) for name, shape in SCHEMAS.items()}  # linked, not included
    return {**made, marks.DATA.rpartition("/")[2]: claims.mark_entries(checks), **tooltips, **schema,
            nav.NAV_FILE: nav.nav_yaml(Path(root) / "docs")}


def build(recordings: Sequence[Recording], root: Path | str, generated: Path | str | None = None, refresh: bool = False,
          check: bool = False, gpus: int | None = None, stream: TextIO | None = None,
          real_traces: Sequence[RealTrace] = ()) -> tuple[list[Status], list[ClaimCheck]]:
    """Bring every recording up to date as far as this machine can, render, and check the claims.

    With ``refresh``, stale or missing recordings are recorded again on their
    device (or as a CPU stand-in where that replaces no CUDA recording). With
    ``check``, nothing is written. ``real_traces`` are rendered and checked
    likewise, never recorded. Returns (statuses, claim checks).
    """
    stream = stream or sys.stderr
    root = Path(root)
    generated = Path(generated or root / "docs" / "generated")
    includes = page_includes(root / "docs")
    if refresh and not check and gpus is None:
        gpus = launch.gpu_count()
    statuses: list[Status] = []
    checks: list[ClaimCheck] = []
    runs: list[Recording | RealTrace] = [*recordings, *real_traces]
    known = {run.id for run in runs} | {SITE}
    for folder in sorted(set(includes) - known):
        statuses.append(Status(folder, "missing", "nothing to render", (f"pages include docs/generated/{folder}/, "
                                                                        "which no recording makes",)))
    vocabulary = claims.vocabulary(root)
    for index, recording in enumerate(recordings, 1):
        status, found = build_recording(recording, root, generated, includes.get(recording.id, {}), refresh, check,
                                        gpus, stream, (index, len(recordings)), vocabulary)
        statuses.append(status)
        checks += found
    for real in real_traces:
        status, found = build_real_trace(real, root, generated, includes.get(real.id, {}), check, vocabulary)
        statuses.append(status)
        checks += found
    try:
        files = site_files(root, checks, includes.get(SITE, {}))
        action, problems = settle(generated / SITE, files, set(), check)
    except FragmentError as error:
        action, problems = "kept", [str(error)]
    problems += leftovers(generated) + claims.mark_problems(root / "docs", checks)
    statuses.append(Status(SITE, "fresh", action, tuple(problems)))
    action, problems = settle(generated / notebooks.FOLDER, notebooks.notebook_files(root), set(), check)
    statuses.append(Status(notebooks.FOLDER, "fresh", action, tuple(problems)))
    return statuses, checks


def leftovers(generated: Path) -> list[str]:
    """Folders an interrupted `profguide record` left in ``generated`` (its staging and set-aside folders, and
    those of a recording's CPU run, inside the recording's folder)."""
    folder = Path(generated)
    found = sorted(p for p in (*folder.glob(".*"), *folder.glob("*/.*")) if p.is_dir())
    return [f"left by an interrupted recording: {path}; delete it, and record again what is missing"
            for path in found]


def problems(statuses: Iterable[Status]) -> list[Status]:
    """The statuses that make ``build --check`` fail."""
    return [s for s in statuses if s.state != "fresh" or s.problems]
