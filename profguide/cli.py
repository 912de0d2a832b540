"""The ``profguide`` command: record, build and list the guide's recordings.

Usage::

    profguide record [--all | ID ...] [--device cpu|cuda] [--out DIR]
    profguide build [--refresh] [--check]
    profguide list
    profguide explain TRACE [--json | --markdown] [--step N]
"""

import argparse
import sys
from pathlib import Path

from profguide.recordings import RECORDINGS, by_id

PROJECT_ROOT = Path(__file__).resolve().parents[1]
GENERATED = PROJECT_ROOT / "docs" / "generated"


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
    rec.add_argument("--out", type=Path, default=GENERATED, help="output folder (default: %(default)s)")

    bld = commands.add_parser("build", help="refresh stale recordings and render figures and tables")
    bld.add_argument("--refresh", action="store_true", help="re-record stale or missing recordings")
    bld.add_argument("--check", action="store_true", help="write nothing; exit 1 if anything is stale")
    bld.add_argument("--generated", type=Path, default=GENERATED, help="recordings folder")

    commands.add_parser("list", help="list the recordings")

    exp = commands.add_parser("explain", help="say what a trace shows: verdict, evidence, where to look")
    exp.add_argument("trace", type=Path, help="a .json or .json.gz trace, or a folder of per-rank traces")
    form = exp.add_mutually_exclusive_group()
    form.add_argument("--json", action="store_true", help="machine-readable output (a stable interface)")
    form.add_argument("--markdown", action="store_true", help="Markdown output")
    exp.add_argument("--step", type=int, metavar="N", help="measure over ProfilerStep#N only")
    return parser.parse_args(argv)


def run_record(args):
    from profguide import record

    recordings = RECORDINGS if args.all else [by_id(i) for i in args.ids]
    record.record_all(recordings, args.device, PROJECT_ROOT, args.out)
    return 0


def run_build(args):
    from profguide import build

    statuses = build.build(
        RECORDINGS, PROJECT_ROOT, args.generated, refresh=args.refresh, check=args.check
    )
    for status in statuses:
        print(f"{status.id:<28} {status.state:<8} {status.action}")
    failing = build.problems(statuses)
    if args.check and failing:
        print(f"{len(failing)} recording(s) stale or not rendered; run `make figures`", file=sys.stderr)
        return 1
    return 0


def run_list(_args):
    for recording in RECORDINGS:
        print(f"{recording.id:<28} {recording.device:<5} {recording.title}")
    return 0


def run_explain(args):
    from profguide import explain, trace
    from profguide.progress import bar

    files = trace.trace_files(args.trace)
    summaries = [explain.explain_file(path, args.step, progress=bar(f"loading {path.name}")) for path in files]
    if args.json:
        print(explain.to_json(summaries))
    else:
        render = explain.to_markdown if args.markdown else explain.to_text
        print("\n".join(render(summary) for summary in summaries), end="")
    return 0


def main(argv=None):
    from profguide.record import RecordingError
    from profguide.trace import TraceError

    args = parse_args(sys.argv[1:] if argv is None else argv)
    handler = {"record": run_record, "build": run_build, "list": run_list, "explain": run_explain}[args.command]
    try:
        return handler(args)
    except (RecordingError, TraceError) as error:
        print(f"profguide: {error}", file=sys.stderr)
        return 2
    except KeyError as error:
        print(f"profguide: {error.args[0]}", file=sys.stderr)
        return 2
    except MemoryError:
        print("profguide: out of memory", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        print("profguide: interrupted", file=sys.stderr)
        return 130
