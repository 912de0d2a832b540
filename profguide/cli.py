"""The ``profguide`` command: explain and draw a trace; record, build and list the guide's recordings.

Usage::

    profguide explain TRACE|DIR [--json | --markdown] [--step N]
    profguide draw TRACE|DIR --out FILE.svg [--window START:END | --step N]
    profguide record [--all | ID ...] [--device cpu|cuda] [--out DIR] [--root DIR]
    profguide build [--refresh] [--check] [--root DIR]
    profguide list

``explain`` and ``draw`` work on any trace. ``record`` and ``build`` work on a
checkout of the guide: the nearest folder above the working one that holds
``mkdocs.yml`` and ``snippets/``, or the one ``--root`` names.
"""

import argparse
import math
import os
import sys
from pathlib import Path

from profguide.site.catalogue import REAL_TRACES, RECORDINGS, by_id
from profguide.text import format_tick


def parse_args(argv):
    parser = argparse.ArgumentParser(prog="profguide", description=__doc__.splitlines()[0])
    commands = parser.add_subparsers(dest="command", required=True)

    rec = commands.add_parser("record", help="run recordings under torch.profiler")
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

    bld = commands.add_parser("build", help="refresh stale recordings, render what pages include, check claims")
    bld.add_argument("--refresh", action="store_true", help="re-record stale or missing recordings")
    bld.add_argument("--check", action="store_true",
                     help="write nothing; exit 1 if anything is stale, out of date, unused, or a claim fails")
    bld.add_argument("--root", type=Path, help="the guide's checkout (default: found from the working folder)")
    bld.add_argument("--generated", type=Path, help="recordings folder (default: docs/generated in the checkout)")

    commands.add_parser("list", help="list the recordings")

    exp = commands.add_parser("explain", help="say what a trace shows: verdict, evidence, where to look")
    exp.add_argument("trace", type=Path, help="a .json or .json.gz trace, or a folder of per-rank traces")
    form = exp.add_mutually_exclusive_group()
    form.add_argument("--json", action="store_true", help="machine-readable output (a stable interface)")
    form.add_argument("--markdown", action="store_true", help="Markdown output")
    exp.add_argument("--step", type=int, metavar="N", help="measure over ProfilerStep#N only")
    add_max_size(exp)

    drw = commands.add_parser("draw", help="draw a trace as an SVG timeline")
    drw.add_argument("trace", type=Path, help="a .json or .json.gz trace, or a folder of per-rank traces (drawn one "
                     "above the other, aligned on a collective)")
    drw.add_argument("--out", type=Path, required=True,
                     help="the SVG file to write (a new file or a regular one; never the trace itself)")
    add_max_size(drw)
    where = drw.add_mutually_exclusive_group()
    where.add_argument("--window", metavar="START:END",
                       help="times after the trace's first event, as Perfetto shows them: µs, or with "
                            "a unit (12ms:15.5ms)")
    where.add_argument("--step", type=int, metavar="N", help="draw ProfilerStep#N and the GPU work it launched")
    return parser.parse_args(argv)


SIZE_UNITS = {"": 1, "K": 1 << 10, "M": 1 << 20, "G": 1 << 30, "T": 1 << 40}


def parse_size(text):
    """A size in bytes from '500M', '4G', '1.5G' or a plain number of bytes."""
    number, unit = text.strip().upper().removesuffix("B").removesuffix("I"), ""
    if number[-1:] in SIZE_UNITS:
        number, unit = number[:-1], number[-1]
    try:
        value = float(number) * SIZE_UNITS[unit]
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r}: expected a size such as 4G or 500M") from None
    if not 0 < value < 1 << 50:
        raise argparse.ArgumentTypeError(f"{text!r}: expected a size such as 4G or 500M")
    return int(value)


def add_max_size(command):
    from profguide.limits import MAX_BYTES
    from profguide.text import format_size

    command.add_argument("--max-size", type=parse_size, default=MAX_BYTES, metavar="SIZE",
                         help=f"read at most this much JSON per trace, after gunzip (default {format_size(MAX_BYTES)})")


def run_record(args):
    from profguide.site import launch
    from profguide.site.project import checked_root

    root = checked_root(args.root)
    recordings = RECORDINGS if args.all else [by_id(i) for i in args.ids]
    launch.record_all(recordings, args.device, root, args.out or root / "docs" / "generated")
    return 0


def run_build(args):
    from profguide.site import build
    from profguide.site.project import checked_root

    statuses, _ = build.build(RECORDINGS, checked_root(args.root), args.generated, refresh=args.refresh,
                              check=args.check, real_traces=REAL_TRACES)
    for status in statuses:
        print(f"{status.id:<28} {status.state:<8} {status.action}")
        for line in status.problems:
            print(f"  {line}")
    failing = build.problems(statuses)
    if args.check and failing:
        print(f"profguide: {len(failing)} of {len(statuses)} checks failed: a stale recording needs "
              "`make figures`; a failing claim needs its page's words changed (never the data)", file=sys.stderr)
        return 1
    return 0


def run_list(_args):
    for recording in RECORDINGS:
        processes = f" ({recording.ranks} processes)" if recording.ranks > 1 else ""
        print(f"{recording.id:<28} {recording.device:<5} {recording.title_with(recording.params)}{processes}")
    return 0


def run_explain(args):
    from profguide import explain
    from profguide.progress import bar
    from profguide.text import shown

    if args.trace.is_dir():
        found = explain.explain_folder(args.trace, args.step, max_bytes=args.max_size,
                                       progress=lambda path: bar(f"loading {shown(path.name)}"))
        render = explain.job_to_markdown if args.markdown else explain.job_to_text
    else:
        found = explain.explain_file(args.trace, args.step, progress=bar(f"loading {shown(args.trace.name)}"),
                                     max_bytes=args.max_size)
        render = explain.to_markdown if args.markdown else explain.to_text
    if args.json:
        print(explain.to_json(found))
    else:
        print(render(found), end="")
    return 0


UNITS = {"ns": 1e-3, "us": 1.0, "µs": 1.0, "ms": 1e3, "s": 1e6}


def parse_offset(text):
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


def parse_window(text, extent):
    """The (start, end) of ``--window START:END``, cut to the trace's ``extent`` (its first and last µs)."""
    origin, last = extent
    try:
        start, end = (parse_offset(part) for part in text.split(":"))
    except ValueError:
        raise KeyError(f"--window {text!r}: expected START:END, such as 0:1500 or 12ms:15.5ms") from None
    if not end > start:
        raise KeyError(f"--window {text!r}: END must come after START")
    start, end = max(origin + start, origin), min(origin + end, last)
    if not end > start:
        raise KeyError(f"--window {text!r}: the trace spans 0 to {format_tick(last - origin)}; nothing is there")
    return start, end


def run_draw(args):
    from profguide import trace
    from profguide.analysis.select import activity_window, step_window
    from profguide.figures.timeline import timeline_svg
    from profguide.files import check_target, replace_file
    from profguide.progress import bar
    from profguide.text import count_of, shown

    if args.trace.is_dir():
        return draw_folder(args)
    check_target(args.out, [args.trace])  # before the work, not after
    loaded = trace.load(args.trace, progress=bar(f"loading {shown(args.trace.name)}"), max_bytes=args.max_size)
    if args.step is not None:
        window = step_window(loaded, args.step)
    elif args.window is not None:
        window = parse_window(args.window, (float(loaded.ts.min()), float(loaded.end.max())))
    else:
        window = activity_window(loaded)
    svg = timeline_svg(loaded, window, title=f"Timeline of {shown(args.trace.name)}")
    replace_file(args.out, svg, [args.trace])
    drawn = svg.count("<rect x=")
    shown_events = int(((loaded.end >= window[0]) & (loaded.ts <= window[1])).sum())
    print(f"wrote {shown(args.out)} ({len(svg.encode()) // 1024} KiB, {count_of(drawn, 'slice')} drawn)")
    if drawn < shown_events:
        print(f"left out {count_of(shown_events - drawn, 'slice')} too narrow to see or beyond the busiest lanes: "
              "use --window or --step to zoom in", file=sys.stderr)
    return 0


def draw_folder(args):
    """``draw DIR``: the ranks of the job in the folder one above the other, aligned on a collective."""
    from profguide import explain, trace
    from profguide.figures.ranks import job_svg
    from profguide.files import check_target, replace_file
    from profguide.progress import bar
    from profguide.text import count_of, shown

    if args.window is not None:
        raise KeyError("--window: for one trace; a folder's ranks are drawn over their windows, or --step N")
    files = explain.rank_files(args.trace)
    check_target(args.out, files)

    def load(row):
        path = Path(row["file"])
        return trace.load(path, progress=bar(f"drawing {shown(path.name)}"), max_bytes=args.max_size)

    job = explain.explain_folder(args.trace, args.step, max_bytes=args.max_size,
                                 progress=lambda path: bar(f"loading {shown(path.name)}"))
    svg, drawn = job_svg(job, load, title=f"The ranks in {shown(args.trace.name or args.trace)}")
    replace_file(args.out, svg, files)
    left = len(job["ranks"]) - drawn
    print(f"wrote {shown(args.out)} ({len(svg.encode()) // 1024} KiB, {count_of(drawn, 'rank')} drawn"
          + (f"; {left:,} more left out: the straggler and the ranks that waited longest are drawn)" if left else ")"))
    return 0


def main(argv=None):
    from profguide.errors import OutputError, ProjectError, RecordingError, TraceError

    # A name from a trace or a path that is not UTF-8 prints as escapes rather than stopping the output.
    if hasattr(sys.stdout, "reconfigure"):
        sys.stdout.reconfigure(errors="backslashreplace")
    args = parse_args(sys.argv[1:] if argv is None else argv)
    handler = {"record": run_record, "build": run_build, "list": run_list, "explain": run_explain,
               "draw": run_draw}[args.command]
    try:
        code = handler(args)
        sys.stdout.flush()
        return code
    except BrokenPipeError:
        # The reader stopped early (`| head`): leave quietly, as other command-line tools do.
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return 141
    except (RecordingError, TraceError, ProjectError, OutputError) as error:
        print(f"profguide: {error}", file=sys.stderr)
        return 2
    except KeyError as error:
        print(f"profguide: {error.args[0]}", file=sys.stderr)
        return 2
    except OSError as error:
        print(f"profguide: {error.filename or ''}: {error.strerror}", file=sys.stderr)
        return 2
    except MemoryError:
        print("profguide: out of memory", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        print("profguide: interrupted", file=sys.stderr)
        return 130
