"""``python -m profguide``, and the console script: the command line, quiet when interrupted at any time."""

import sys


def run() -> int:
    """``profguide.cli.main``, with Ctrl-C while the command line is still being imported, or before ``main``
    handles it, leaving as ``main`` leaves: one line and status 130 (128 + SIGINT), as shells expect."""
    try:
        from profguide.cli import main

        return main()
    except KeyboardInterrupt:
        print("profguide: interrupted", file=sys.stderr)
        return 130


if __name__ == "__main__":
    raise SystemExit(run())
