"""The profguide command: explain, compare and draw traces; record, build and list the guide's recordings.

explain, diff and draw work on any trace: a file, a folder of per-rank traces,
or standard input ('-'). record and build work on a checkout of the guide: the
nearest folder above the working one that holds mkdocs.yml and snippets/, or
the one --root names. Each command's --help gives examples.
"""

import argparse
import math
import os
import sys
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, NoReturn, TextIO, TypeVar

from profguide.errors import OutputError, ProfguideError, UsageError
from profguide.files import is_folder
from profguide.text import format_tick

if TYPE_CHECKING:  # the command imports what each subcommand needs when it runs
    from profguide.analysis.diff import JobDiff, TraceDiff
    from profguide.analysis.op_view import OpsView
    from profguide.analysis.summary import FolderJob, RankRow, TraceSummary
    from profguide.trace import Trace

STANDARD_STREAM = Path("-")  # `explain -` reads standard input; `draw --out -` writes to standard output

EXAMPLES = {
    "record": """\
examples:
  profguide record basics-matmul-64 --device cpu   one recording, on the CPU
  profguide record --all --out /tmp/recordings     every recording, into another folder

Recording needs torch: pip install 'profguide[record]'.
""",
    "build": """\
examples:
  profguide build             render what the pages include from the committed recordings
  profguide build --check     write nothing; exit 1 if a recording is stale or a claim fails
  profguide build --refresh   re-record what is stale (needs torch), then render
""",
    "claims": """\
examples:
  profguide claims                          how many claims hold, fail and wait for a GPU run
  profguide claims --json > before.json     the counts, each claim's outcome, for a later comparison
  profguide claims --since before.json      what changed since: Markdown; exit 1 if fewer are checked or any fails
""",
    "list": """\
examples:
  profguide list              every recording: its id, its device, what it shows
  profguide list | grep cuda  the recordings made on a GPU
""",
    "export": """\
examples:
  profguide export trace.json.gz --parquet tables/   the trace's tables, one Parquet file each, for SQL

Writing Parquet needs pyarrow: pip install 'profguide[tables]'.
""",
    "explain": """\
examples:
  profguide explain trace.json.gz               the verdict, the evidence, where to look in Perfetto
  profguide explain trace.json.gz --step 12     over ProfilerStep#12 and the GPU work it launched
  profguide explain trace.json.gz --window 12ms:15.5ms   over a window, as Perfetto times it
  profguide explain replay.json.gz --capture capture.json.gz   a graph replay's time by the op that captured it
  profguide explain logs/                       a folder of per-rank traces: the job and its straggler
  profguide explain logs/ --jobs 1              the same, reading one rank file at a time (least memory)
  profguide explain trace.json --json > s.json  the summary as JSON, for a script
  zcat trace.json.gz | profguide explain -      a trace on standard input, gzipped or not
  profguide explain trace.json.gz --ops         every op by shape, its TFLOP/s and TB/s against its roof
""",
    "draw": """\
examples:
  profguide draw trace.json.gz --out timeline.svg                   the busiest stretch of the trace
  profguide draw trace.json.gz --out step.svg --step 12             ProfilerStep#12 and its GPU work
  profguide draw trace.json.gz --out zoom.svg --window 12ms:15.5ms  a window, as Perfetto times it
  profguide draw logs/ --out ranks.svg                              the ranks one above the other
  zcat trace.json.gz | profguide draw - --out - > timeline.svg      standard input to standard output
  profguide draw trace.json.gz --out roofline.svg --roofline        each op under the GPU's roofs
""",
    "diff": """\
examples:
  profguide diff before.json.gz after.json.gz               what changed: verdict, step time, kernels, host
  profguide diff before.json.gz after.json.gz --json        the same as JSON, for a script
  profguide diff eager.json.gz compiled.json.gz --markdown  a Markdown fragment, for a page
  profguide diff logs-before/ logs-after/                   two folders of rank traces: the job and each rank
""",
}


class Parser(argparse.ArgumentParser):
    """argparse whose usage errors are one line that says where the help is, with exit status 2."""

    def error(self, message: str) -> NoReturn:
        self.exit(2, f"profguide: {message} (try '{self.prog} --help')\n")


class Version(argparse.Action):
    """``--version``: looked up only when asked, so that other commands do not pay for importlib.metadata."""

    def __init__(self, option_strings: Sequence[str], dest: str, **kwargs: object) -> None:
        super().__init__(option_strings, dest, nargs=0, help="print profguide's version and exit")

    def __call__(self, parser: argparse.ArgumentParser, namespace: argparse.Namespace,
                 values: str | Sequence[object] | None, option_string: str | None = None) -> None:
        try:
            write_stdout(f"profguide {installed_version()}\n")
        except OutputError as error:
            parser.exit(2, f"profguide: {error}\n")
        parser.exit()


def installed_version() -> str:
    """The installed package's version; the source's, for a checkout run with PYTHONPATH (a bare GPU box)."""
    from importlib.metadata import PackageNotFoundError, version

    try:
        return version("profguide")
    except PackageNotFoundError:
        from profguide import __version__

        return f"{__version__} (not installed)"


def parse_args(argv: Sequence[str]) -> argparse.Namespace:
    parser = Parser(prog="profguide", description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--version", action=Version)
    commands = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")

    def command(name: str, help: str) -> argparse.ArgumentParser:
        return commands.add_parser(name, help=help, description=help[0].upper() + help[1:] + ".",
                                   epilog=EXAMPLES[name], formatter_class=argparse.RawDescriptionHelpFormatter)

    exp = command("explain", "say what a trace shows: verdict, evidence, where to look")
    exp.add_argument("trace", type=Path, help="a .json or .json.gz trace, a folder of per-rank traces, or - for "
                     "standard input")
    form = exp.add_mutually_exclusive_group()
    form.add_argument("--json", action="store_true", help="machine-readable output (a stable interface)")
    form.add_argument("--markdown", action="store_true", help="Markdown output")
    where = exp.add_mutually_exclusive_group()
    where.add_argument("--step", type=int, metavar="N", help="measure over ProfilerStep#N only")
    where.add_argument("--window", metavar="START:END", help="measure over this window only (one trace): times "
                       "after the trace's first event, as Perfetto and 'Where to look' show them: µs, or with a unit "
                       "(12ms:15.5ms)")
    exp.add_argument("--capture", type=Path, metavar="CAPTURE", help="the trace of the captures of the graphs "
                     "this trace replays: each replayed kernel's time goes to the op that captured it (one trace)")
    exp.add_argument("--ops", action="store_true", help="the op view instead: ops by name and input shapes with "
                     "their CPU and device time, each op with a formula against the GPU's roofline, the kernels' "
                     "footprint and occupancy, modules, the memory peak (one trace file)")
    add_max_size(exp)
    add_jobs(exp)

    drw = command("draw", "draw a trace as an SVG timeline")
    drw.add_argument("trace", type=Path, help="a .json or .json.gz trace, - for standard input, or a folder of "
                     "per-rank traces (drawn one above the other, aligned on a collective)")
    drw.add_argument("--out", type=output_path, required=True, help="the SVG file to write (a new file or a "
                     "regular one; never the trace itself), or - for standard output")
    add_max_size(drw)
    add_jobs(drw)
    where = drw.add_mutually_exclusive_group()
    where.add_argument("--window", metavar="START:END",
                       help="times after the trace's first event, as Perfetto shows them: µs, or with "
                            "a unit (12ms:15.5ms)")
    where.add_argument("--step", type=int, metavar="N", help="draw ProfilerStep#N and the GPU work it launched")
    drw.add_argument("--roofline", action="store_true", help="draw the ops' roofline instead (one trace file with "
                     "GPU work on a GPU in profguide's peak table): each op's TFLOP/s against its FLOPs per byte "
                     "under the device's roofs")

    dif = command("diff", "say what changed from one trace (or folder of rank traces) to another")
    dif.add_argument("before", type=Path, help="the trace before the change: a .json or .json.gz file, a folder "
                     "of per-rank traces, or - for standard input")
    dif.add_argument("after", type=Path, help="the trace after it, of the same kind")
    form = dif.add_mutually_exclusive_group()
    form.add_argument("--json", action="store_true", help="machine-readable output (a stable interface)")
    form.add_argument("--markdown", action="store_true", help="Markdown output")
    add_max_size(dif)
    add_jobs(dif)

    xpt = command("export", "write a trace as tables (events, ops, kernels, launches, memory, steps, idle gaps)")
    xpt.add_argument("trace", type=Path, help="a .json or .json.gz trace, or - for standard input")
    xpt.add_argument("--parquet", type=output_path, required=True, metavar="DIR", help="the folder to write the "
                     "tables in, one .parquet file each (a new or empty folder, or an earlier export's)")
    add_max_size(xpt)

    rec = command("record", "run the guide's recordings under torch.profiler")
    which = rec.add_mutually_exclusive_group(required=True)
    which.add_argument("--all", action="store_true", help="every recording")
    which.add_argument("ids", nargs="*", default=[], metavar="ID", help="recordings to run")
    rec.add_argument(
        "--device",
        choices=("cpu", "cuda"),
        help="where to run (default: the recording's device if present, else the CPU)",
    )
    rec.add_argument("--out", type=Path, help="output folder (default: docs/generated in the checkout)")
    rec.add_argument("--root", type=Path, help="the guide's checkout (default: found from the working folder)")

    bld = command("build", "refresh stale recordings, render what pages include, check claims")
    bld.add_argument("--refresh", action="store_true", help="re-record stale or missing recordings")
    bld.add_argument("--check", action="store_true",
                     help="write nothing; exit 1 if anything is stale, out of date, unused, or a claim fails")
    bld.add_argument("--root", type=Path, help="the guide's checkout (default: found from the working folder)")
    bld.add_argument("--generated", type=Path, help="recordings folder (default: docs/generated in the checkout)")

    clm = command("claims", "count the guide's claims: checked, holding, failing, waiting for a GPU run")
    clm_form = clm.add_mutually_exclusive_group()
    clm_form.add_argument("--json", action="store_true", help="the counts and each claim's outcome, as JSON")
    clm_form.add_argument("--since", type=Path, metavar="FILE",
                          help="compare with the counts that --json wrote before (a refresh's pull request text)")
    clm.add_argument("--root", type=Path, help="the guide's checkout (default: found from the working folder)")
    clm.add_argument("--generated", type=Path, help="recordings folder (default: docs/generated in the checkout)")

    command("list", "list the guide's recordings")
    return parser.parse_args(window_attached(argv))


def window_attached(argv: Sequence[str]) -> list[str]:
    """``argv`` with ``--window START:END`` written ``--window=START:END`` where START is negative, so that
    argparse does not take ``-5:10`` for an option."""
    joined: list[str] = []
    for arg in argv:
        if joined and joined[-1] == "--window" and arg[:1] == "-" and arg[1:2] in set("0123456789."):
            joined[-1] = f"--window={arg}"
        else:
            joined.append(arg)
    return joined


def output_path(text: str) -> Path:
    """``--out``'s file: any name but an empty one (which Path would read as the working folder)."""
    if not text:
        raise argparse.ArgumentTypeError("the file name is empty: name the file to write, or - for standard output")
    return Path(text)


SIZE_UNITS = {"": 1, "K": 1 << 10, "M": 1 << 20, "G": 1 << 30, "T": 1 << 40}


def parse_size(text: str) -> int:
    """A size in bytes from '500M', '4G', '1.5G', '2GiB' or a plain number of bytes."""
    number = text.strip().upper().removesuffix("B").removesuffix("I")
    unit = number[-1:] if number[-1:] in SIZE_UNITS else ""  # K, M, G or T if it ends in one (and "" if empty)
    number = number[: len(number) - len(unit)]
    try:
        value = float(number) * SIZE_UNITS[unit]
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r}: expected a size such as 4G or 500M") from None
    if not 0 < value < 1 << 50:
        raise argparse.ArgumentTypeError(f"{text!r}: expected a size such as 4G or 500M")
    return int(value)


def add_max_size(command: argparse.ArgumentParser) -> None:
    from profguide.limits import MAX_BYTES
    from profguide.text import format_size

    command.add_argument("--max-size", type=parse_size, default=MAX_BYTES, metavar="SIZE",
                         help=f"read at most this much JSON per trace, after gunzip (default {format_size(MAX_BYTES)})")


def positive_count(text: str) -> int:
    """A whole number of at least 1, for ``--jobs``."""
    try:
        value = int(text)
    except ValueError:
        value = 0
    if value < 1:
        raise argparse.ArgumentTypeError(f"{text!r}: expected a whole number of at least 1")
    return value


def add_jobs(command: argparse.ArgumentParser) -> None:
    command.add_argument("--jobs", type=positive_count, metavar="N", help="for a folder: read up to N rank files "
                         "at once, each in its own process (default: one per core; 1 reads them one by one here)")


def require_torch(what: str) -> None:
    """A UsageError unless torch can be imported: the recorder runs torch.profiler, an optional dependency."""
    from importlib.util import find_spec

    if find_spec("torch") is None:
        raise UsageError(f"{what} runs torch.profiler, and torch is not installed: pip install 'profguide[record]'")


def needs_docs(handler: Callable[[argparse.Namespace], int]) -> Callable[[argparse.Namespace], int]:
    """``handler`` (build, claims: they render the guide's Markdown), with a module missing from outside
    profguide, whenever it is imported, a UsageError that names the extra to install."""

    def checked(args: argparse.Namespace) -> int:
        try:
            return handler(args)
        except ModuleNotFoundError as error:
            if not error.name or error.name.partition(".")[0] == "profguide":
                raise  # our own module missing is a broken install: a bug, with its traceback
            raise UsageError(f"profguide {args.command} renders the guide's pages, and {error.name} is not "
                             "installed: pip install 'profguide[docs]'") from None

    return checked


def run_record(args: argparse.Namespace) -> int:
    from profguide.site import launch
    from profguide.site.catalogue import RECORDINGS, by_id
    from profguide.site.project import checked_root

    root = checked_root(args.root)
    recordings = RECORDINGS if args.all else [by_id(i) for i in args.ids]
    require_torch("profguide record")
    launch.record_all(recordings, args.device, root, args.out or root / "docs" / "generated")
    return 0


def run_build(args: argparse.Namespace) -> int:
    from profguide.site import build
    from profguide.site.catalogue import REAL_TRACES, RECORDINGS
    from profguide.site.project import checked_root

    root = checked_root(args.root)
    if args.refresh:
        require_torch("profguide build --refresh")
    statuses, _ = build.build(RECORDINGS, root, args.generated, refresh=args.refresh, check=args.check,
                              real_traces=REAL_TRACES)
    write_stdout("".join(f"{status.id:<28} {status.state:<8} {status.action}\n"
                         + "".join(f"  {line}\n" for line in status.problems) for status in statuses))
    failing = build.problems(statuses)
    if args.check and failing:
        print(f"profguide: {len(failing)} of {len(statuses)} checks failed: a stale recording needs "
              "`make figures`; a failing claim needs its page's words changed (never the data)", file=sys.stderr)
        return 1
    return 0


def run_claims(args: argparse.Namespace) -> int:
    from profguide.site import build, refresh
    from profguide.site.catalogue import REAL_TRACES, RECORDINGS
    from profguide.site.project import checked_root

    root = checked_root(args.root)
    before = refresh.read_counts(args.since) if args.since else None
    _, checks = build.build(RECORDINGS, root, args.generated, check=True, real_traces=REAL_TRACES)
    if args.json:
        write_stdout(refresh.counts_document(checks))
        return 0
    if before is not None:
        text, refused = refresh.report(before, refresh.counts_of(checks))
        write_stdout(text + "\n")
        return 1 if refused else 0
    found = refresh.counts_of(checks)
    write_stdout(f"{found['claims']} claims: {found['checked']} checked ({found['holding']} hold), "
                 f"{found['failing']} fail, {found['waiting']} wait for a GPU run\n")
    return 1 if found["failing"] else 0


def run_list(_args: argparse.Namespace) -> int:
    from profguide.site.catalogue import RECORDINGS

    def processes(count: int) -> str:
        return f" ({count} processes)" if count > 1 else ""

    write_stdout("".join(f"{recording.id:<28} {recording.device:<5} {recording.title_with(recording.params)}"
                         f"{processes(recording.ranks)}\n" for recording in RECORDINGS))
    return 0


def input_name(path: Path) -> str:
    """How messages and summaries name the input: its file name, or <stdin>."""
    from profguide.text import shown
    from profguide.trace.loader import STDIN

    return STDIN if path == STANDARD_STREAM else shown(path.name or path)


def load_input(args: argparse.Namespace, doing: str = "loading") -> "Trace":
    """The trace ``args.trace`` names: a file, or standard input for '-' (gzipped or not, capped as a file is)."""
    from profguide import trace
    from profguide.progress import bar
    from profguide.trace.loader import load_stream

    progress = bar(f"{doing} {input_name(args.trace)}")
    if args.trace != STANDARD_STREAM:
        return trace.load(args.trace, progress=progress, max_bytes=args.max_size)
    if sys.stdin is None:  # the shell closed it (`<&-`): Python had no descriptor 0 to open
        raise UsageError("standard input is closed, so there is no trace to read: pipe one in "
                         "(zcat trace.json.gz | profguide explain -) or name the file")
    if sys.stdin.isatty():
        raise UsageError("standard input is a terminal, not a trace: pipe one in "
                         "(zcat trace.json.gz | profguide explain -) or name the file")
    return load_stream(sys.stdin.buffer, progress=progress, max_bytes=args.max_size)


Found = TypeVar("Found", bound="TraceSummary | FolderJob | OpsView | TraceDiff | JobDiff")


def print_found(found: Found, render: Callable[[Found], str], as_json: bool) -> None:
    """Print ``found`` as JSON (``--json``), or as ``render`` writes it."""
    from profguide.render import explain

    write_stdout(explain.to_json(found) + "\n" if as_json else render(found))


def write_stdout(text: str) -> None:
    """Write ``text`` to standard output now; a write that fails (a full disk, a closed descriptor) is a
    one-line OutputError, after which standard output goes nowhere, so that the interpreter's last flush of
    what is still buffered does not fail once more."""
    try:
        sys.stdout.write(text)
        sys.stdout.flush()
    except BrokenPipeError:
        raise  # the reader stopped early: main leaves quietly
    except OSError as error:
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        raise OutputError(f"standard output: {error.strerror or error}") from None


def run_explain(args: argparse.Namespace) -> int:
    from profguide.analysis import job
    from profguide.progress import bar
    from profguide.render import explain

    one_file = args.trace == STANDARD_STREAM or not is_folder(args.trace)
    if args.window is not None and (args.ops or not one_file):
        raise UsageError("--window: for one trace's explain, not --ops or a folder of ranks (use --step N)")
    if args.capture is not None and (args.ops or not one_file):
        raise UsageError("--capture: for one replay trace's explain, not --ops or a folder of ranks")
    if args.ops:
        from profguide.analysis.op_view import ops_view as view_of
        from profguide.render import ops as ops_view
        from profguide.text import shown

        if args.trace != STANDARD_STREAM and is_folder(args.trace):
            raise UsageError(f"{shown(args.trace)}: --ops reads one trace file, not a folder of rank traces")
        from_file = args.trace != STANDARD_STREAM
        view = view_of(load_input(args), shown(args.trace) if from_file else input_name(args.trace), args.step,
                       args.trace if from_file else None)
        print_found(view, ops_view.to_markdown if args.markdown else ops_view.to_text, args.json)
    elif not one_file:
        folder = job.folder_job(args.trace, args.step, max_bytes=args.max_size,
                                progress=bar(f"loading {input_name(args.trace)}"), workers=args.jobs)
        print_found(folder, explain.job_to_markdown if args.markdown else explain.job_to_text, args.json)
    else:
        loaded = load_input(args)
        window = None if args.window is None else parse_window(args.window, (float(loaded.ts.min()),
                                                                             float(loaded.end.max())))
        capture = None
        if args.capture is not None:
            from profguide import trace

            capture = (trace.load(args.capture, progress=bar(f"loading {input_name(args.capture)}"),
                                  max_bytes=args.max_size), str(args.capture))
        summary = job.trace_summary(loaded, input_name(args.trace) if args.trace == STANDARD_STREAM
                                    else args.trace, args.step, window, capture)  # a file by its whole path
        print_found(summary, explain.to_markdown if args.markdown else explain.to_text, args.json)
    return 0


UNITS = {"ns": 1e-3, "us": 1.0, "µs": 1.0, "ms": 1e3, "s": 1e6}


def parse_offset(text: str) -> float:
    """A time after the trace's first event, in µs: '1500', '1.5ms', '2s'; ValueError unless finite."""
    text = text.strip()
    scale = 1.0
    for unit in sorted(UNITS, key=len, reverse=True):
        if text.endswith(unit):
            text, scale = text[: -len(unit)], UNITS[unit]
            break
    value = float(text) * scale
    if not math.isfinite(value):
        raise ValueError(text)
    return value


def parse_window(text: str, extent: tuple[float, float]) -> tuple[float, float]:
    """The (start, end) of ``--window START:END``, cut to the trace's ``extent`` (its first and last µs)."""
    origin, last = extent
    try:
        start, end = (parse_offset(part) for part in text.split(":"))
    except ValueError:
        raise UsageError(f"--window {text!r}: expected START:END, such as 0:1500 or 12ms:15.5ms") from None
    if not end > start:
        raise UsageError(f"--window {text!r}: END must come after START")
    start, end = max(origin + start, origin), min(origin + end, last)
    if not end > start:
        raise UsageError(f"--window {text!r}: the trace spans 0 to {format_tick(last - origin)}; nothing is there")
    return start, end


def check_output(out: Path, inputs: Sequence[Path]) -> None:
    """Before the work: a one-line OutputError unless ``out`` is standard output or a file one may replace."""
    from profguide.files import check_target

    if out != STANDARD_STREAM:
        check_target(out, inputs)


def write_svg(out: Path, svg: str, inputs: Sequence[Path]) -> tuple[str, TextIO]:
    """Write ``svg`` to the file ``out``, or to standard output for '-'; return (where it went, in words, and
    the stream a report of it goes to: standard error when the SVG took standard output)."""
    from profguide.files import replace_file
    from profguide.text import shown

    if out == STANDARD_STREAM:
        write_stdout(svg)
        return "standard output", sys.stderr
    replace_file(out, svg, inputs)
    return shown(out), sys.stdout


def run_draw(args: argparse.Namespace) -> int:
    from profguide.analysis.select import activity_window, step_window
    from profguide.figures.timeline import timeline_svg
    from profguide.text import count_of

    if args.trace != STANDARD_STREAM and is_folder(args.trace):
        if args.roofline:
            from profguide.text import shown

            raise UsageError(f"{shown(args.trace)}: --roofline draws one trace file, not a folder of rank traces")
        return draw_folder(args)
    if args.roofline:
        return draw_roofline(args)
    inputs = [] if args.trace == STANDARD_STREAM else [args.trace]
    check_output(args.out, inputs)  # before the work, not after
    loaded = load_input(args)
    if args.step is not None:
        window = step_window(loaded, args.step)
    elif args.window is not None:
        window = parse_window(args.window, (float(loaded.ts.min()), float(loaded.end.max())))
    else:
        window = activity_window(loaded)
    svg = timeline_svg(loaded, window, title=f"Timeline of {input_name(args.trace)}")
    written, report = write_svg(args.out, svg, inputs)
    drawn = svg.count("<rect x=")
    shown_events = int(((loaded.end >= window[0]) & (loaded.ts <= window[1])).sum())
    print(f"wrote {written} ({len(svg.encode()) // 1024} KiB, {count_of(drawn, 'slice')} drawn)", file=report)
    if drawn < shown_events:
        print(f"left out {count_of(shown_events - drawn, 'slice')} too narrow to see or beyond the busiest lanes: "
              "use --window or --step to zoom in", file=sys.stderr)
    return 0


def draw_roofline(args: argparse.Namespace) -> int:
    """``draw TRACE --roofline``: the ops with a formula (in ProfilerStep#N with --step) under the device's roofs."""
    from profguide.analysis.op_view import host_step
    from profguide.figures.roofline import trace_roofline_svg
    from profguide.text import count_of

    if args.window is not None:
        raise UsageError("--window: not with --roofline, which counts ops by the step they start in (use --step N)")
    inputs = [] if args.trace == STANDARD_STREAM else [args.trace]
    check_output(args.out, inputs)
    loaded = load_input(args)
    svg = trace_roofline_svg(loaded, None if args.step is None else host_step(loaded, args.step),
                             title=f"Roofline of {input_name(args.trace)}")
    written, report = write_svg(args.out, svg, inputs)
    drawn = svg.count('<circle class="pg-dot"')
    print(f"wrote {written} ({len(svg.encode()) // 1024} KiB, {count_of(drawn, 'op')} drawn)", file=report)
    return 0


def draw_folder(args: argparse.Namespace) -> int:
    """``draw DIR``: the ranks of the job in the folder one above the other, aligned on a collective."""
    from profguide import trace
    from profguide.analysis.job import folder_job, rank_files
    from profguide.figures.ranks import job_svg
    from profguide.progress import bar
    from profguide.text import count_of, shown

    if args.window is not None:
        raise UsageError("--window: for one trace; a folder's ranks are drawn over their windows, or --step N")
    files = rank_files(args.trace)
    check_output(args.out, files)

    def load(row: "RankRow") -> "Trace":
        path = Path(row["file"])
        return trace.load(path, progress=bar(f"drawing {shown(path.name)}"), max_bytes=args.max_size)

    job = folder_job(args.trace, args.step, max_bytes=args.max_size, progress=bar(f"loading {input_name(args.trace)}"),
                     workers=args.jobs)
    svg, drawn = job_svg(job, load, title=f"The ranks in {input_name(args.trace)}")
    written, report = write_svg(args.out, svg, files)
    left = len(job["ranks"]) - drawn
    print(f"wrote {written} ({len(svg.encode()) // 1024} KiB, {count_of(drawn, 'rank')} drawn"
          + (f"; {left:,} more left out: the straggler and the ranks that waited longest are drawn)" if left else ")"),
          file=report)
    return 0


def run_export(args: argparse.Namespace) -> int:
    from importlib.util import find_spec

    from profguide.export import check_folder, export_parquet
    from profguide.text import shown

    if find_spec("pyarrow") is None:
        raise UsageError("export --parquet needs pyarrow: pip install 'profguide[tables]'")
    if args.trace != STANDARD_STREAM and is_folder(args.trace):
        raise UsageError(f"{shown(args.trace)}: export reads one trace file, not a folder of rank traces")
    check_folder(args.parquet, [] if args.trace == STANDARD_STREAM else [args.trace])
    rows = export_parquet(load_input(args), args.parquet)
    write_stdout(f"{shown(args.parquet)}: " + ", ".join(f"{table} ({count:,} rows)" for table, count in rows.items())
                 + "\n")
    return 0


def run_diff(args: argparse.Namespace) -> int:
    from profguide.analysis import diff as facts
    from profguide.render import diff

    found = (diff_with_stdin(args) if STANDARD_STREAM in (args.before, args.after)
             else facts.paths_diff(args.before, args.after, max_bytes=args.max_size, workers=args.jobs))
    if "ranks" in found:
        print_found(found, diff.job_to_markdown if args.markdown else diff.job_to_text, args.json)
    else:
        print_found(found, diff.to_markdown if args.markdown else diff.to_text, args.json)
    return 0


def diff_with_stdin(args: argparse.Namespace) -> "TraceDiff":
    """``diff - FILE`` or ``diff FILE -``: one side from standard input, read here, the other a file."""
    from profguide.analysis import diff as facts

    if args.before == args.after:
        raise UsageError("standard input can be only one side of a diff: name the other trace's file")
    other = args.after if args.before == STANDARD_STREAM else args.before
    if is_folder(other):
        raise UsageError(f"{input_name(other)} is a folder: diff standard input against a trace file")
    piped = facts.side_of(load_input(argparse.Namespace(trace=STANDARD_STREAM, max_size=args.max_size)),
                          input_name(STANDARD_STREAM))
    named = facts.file_side(other, args.max_size)
    return facts.trace_diff(piped, named) if args.before == STANDARD_STREAM else facts.trace_diff(named, piped)


HANDLERS: dict[str, Callable[[argparse.Namespace], int]] = {
    "record": run_record, "build": needs_docs(run_build), "claims": needs_docs(run_claims), "list": run_list,
    "explain": run_explain, "draw": run_draw, "diff": run_diff,
    "export": run_export}


def main(argv: Sequence[str] | None = None) -> int:
    # A name from a trace or a path that is not UTF-8 prints as escapes rather than stopping the output.
    if hasattr(sys.stdout, "reconfigure"):
        sys.stdout.reconfigure(errors="backslashreplace")
    args = parse_args(sys.argv[1:] if argv is None else argv)
    try:
        code = HANDLERS[args.command](args)
        write_stdout("")  # what print left in the buffer
        return code
    except BrokenPipeError:
        # The reader stopped early (`| head`): leave quietly, as other command-line tools do.
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return 141
    except ProfguideError as error:  # only these are the reader's to fix; anything else is a bug: a traceback
        print(f"profguide: {error}", file=sys.stderr)
        return 2
    except MemoryError:
        print("profguide: out of memory", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        print("profguide: interrupted", file=sys.stderr)
        return 130
