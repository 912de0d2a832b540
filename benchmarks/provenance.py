"""What a benchmark's results record of where they were measured: the checkout's commit, whether its files
differed from it, and the machine (CPU model, cores, memory, operating system, Python).

Standard library only, as the benchmarks that import it: `explain_vs_hta.py` runs on any Python 3.10+.
"""

import os
import platform
import subprocess
from pathlib import Path
from typing import TypedDict

# What the benchmarks themselves write into the tree: a results file written by an earlier run is no change to
# the code measured.
RESULTS = "benchmarks/results"


class Checkout(TypedDict):
    commit: str | None
    dirty: bool | None


class Machine(TypedDict):
    cpu: str
    cores: int | None
    usable_cores: int | None
    memory_gib: float | None
    os: str
    python: str


class Provenance(TypedDict):
    checkout: Checkout
    machine: Machine


def git(root: str | os.PathLike[str], *args: str) -> str | None:
    """git's output in the checkout ``root``, stripped; None when git fails or is missing."""
    try:
        done = subprocess.run(["git", "-C", str(root), *args], capture_output=True, text=True, check=False)
    except OSError:
        return None
    return done.stdout.strip() if done.returncode == 0 else None


def checkout(root: str | os.PathLike[str]) -> Checkout:
    """{"commit": the full hash of ``root``'s HEAD, "dirty": whether a tracked file outside benchmarks/results
    differs from it}; both None when ``root`` is not a git checkout."""
    commit = git(root, "rev-parse", "HEAD")
    changed = git(root, "status", "--porcelain", "--untracked-files=no", "--", ".", f":(exclude){RESULTS}")
    return {"commit": commit, "dirty": None if commit is None or changed is None else bool(changed)}


def key_values(path: str, separator: str) -> dict[str, str]:
    """The ``key<separator>value`` lines of a text file such as /proc/cpuinfo, stripped; {} when unreadable."""
    try:
        lines = Path(path).read_text().splitlines()
    except OSError:
        return {}
    pairs = (line.partition(separator) for line in lines)
    return {key.strip(): value.strip().strip('"') for key, found, value in pairs if found}


def memory_gib() -> float | None:
    """The machine's physical memory in GiB, to one decimal; None where the system does not say."""
    try:
        return round(os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES") / 2**30, 1)
    except (ValueError, OSError, AttributeError):
        return None


def machine() -> Machine:
    """The machine a benchmark runs on: its CPU model, its cores (all of them, and those this process may use),
    memory, operating system and Python."""
    system = f"{platform.system()} {platform.release()}"  # the kernel, and its distribution where it names one
    distribution = key_values("/etc/os-release", "=").get("PRETTY_NAME")
    usable = os.sched_getaffinity(0) if hasattr(os, "sched_getaffinity") else None
    return {
        "cpu": key_values("/proc/cpuinfo", ":").get("model name") or platform.processor() or platform.machine(),
        "cores": os.cpu_count(),
        "usable_cores": len(usable) if usable is not None else os.cpu_count(),
        "memory_gib": memory_gib(),
        "os": f"{distribution}, {system}" if distribution else system,
        "python": platform.python_version(),
    }


def recorded(root: str | os.PathLike[str]) -> Provenance:
    """What a results file records of where it was measured: {"checkout": checkout(root), "machine": machine()}.
    Taken as the run begins, so that it describes the code that was measured."""
    return {"checkout": checkout(root), "machine": machine()}
