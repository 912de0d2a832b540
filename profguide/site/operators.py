"""torch's operator registry, as a list of names: what a claim may say a run does not call.

A claim that a region holds no ``aten::add`` is as true of a misspelt name as of a real one, so the claims check
looks each name up: in the runs, the real traces, or here. The list is committed (``operators.txt``) so that the
build needs no torch; ``python -m profguide.site.operators`` writes it again from the torch installed, and a test
fails when the two part.
"""

import sys
from functools import cache
from pathlib import Path
from types import ModuleType

FILE = Path(__file__).with_name("operators.txt")


def registry_names(torch: ModuleType) -> list[str]:
    """Every operator ``torch`` registers, by its name without the overload: ``aten::add``, ``c10d::allreduce_``."""
    return sorted({name.split(".")[0] for name in torch._C._dispatch_get_all_op_names()})


def file_text(torch: ModuleType) -> str:
    return f"# torch {torch.__version__}: python -m profguide.site.operators writes this file\n" + "".join(
        name + "\n" for name in registry_names(torch))


@cache
def names() -> frozenset[str]:
    """The committed registry's names."""
    return frozenset(line for line in FILE.read_text().splitlines() if line and not line.startswith("#"))


def main() -> None:
    import torch

    FILE.write_text(file_text(torch))
    print(f"{FILE}: {len(names.__wrapped__())} operators of torch {torch.__version__}", file=sys.stderr)


if __name__ == "__main__":
    main()
