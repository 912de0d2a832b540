"""What PyTorch's CPU build saves: the CPU torch a venv holds against PyPI's CUDA torch and its CUDA packages.

The CPU side is measured on disk: the files the venv's torch distribution installed (its RECORD), summed by
size. The CUDA side is what pip would download for `pip install torch==VERSION` on Linux x86_64 from PyPI:
the size PyPI's JSON API gives for torch's wheel for this interpreter, plus the wheels of every package it
requires there that the CPU build does not (nvidia-*, cuda-*, triton), and theirs in turn, each at the newest
version its requirement allows. Their requirements come from each wheel's metadata file (PEP 658), so nothing
large is downloaded.

    python benchmarks/install_size.py --venv .venv
    python benchmarks/install_size.py --venv .venv --json benchmarks/results/install_size.json

With ``--transformers VENV`` (a venv where ``pip install transformers==5.18.0`` ran) it measures instead what
``transformers`` would add to the guide's recordings: the bytes on disk of every distribution in that venv that
the lock (``requirements/lock.txt``) does not hold, and the seconds that importing its Llama model takes after
torch, against importing the guide's hand-written decoder, each the median of fresh processes.

    python benchmarks/install_size.py --transformers /tmp/tf-venv \
        --json benchmarks/results/install_size_transformers.json
"""

import argparse
import csv
import datetime
import io
import json
import os
import statistics
import subprocess
import sys
import urllib.error
import urllib.request
import zipfile
from collections.abc import Iterable, Mapping, Sequence
from email.parser import Parser
from pathlib import Path
from typing import TypedDict
from urllib.parse import urljoin

from packaging.requirements import Requirement
from packaging.tags import sys_tags
from packaging.utils import NormalizedName, canonicalize_name, parse_wheel_filename
from packaging.version import Version
from provenance import recorded

PYPI = "https://pypi.org/pypi/"
TAGS = {tag: rank for rank, tag in enumerate(sys_tags())}  # this interpreter's wheel tags, most preferred first


class WheelFile(TypedDict):
    """A file of a release in PyPI's JSON API: the fields read here (it holds more)."""

    filename: str
    url: str
    size: int


class Wheel(TypedDict):
    """A wheel pip would download, as the results list it."""

    name: str
    version: str
    filename: str
    bytes: int


def fetch(url: str, start: int | None = None, end: int | None = None) -> bytes:
    """The bytes at ``url``; only those from ``start`` to ``end`` (inclusive) when given."""
    ranged = {"Range": f"bytes={start}-{end}"} if start is not None else {}
    with urllib.request.urlopen(urllib.request.Request(url, headers=ranged), timeout=60) as response:
        body: bytes = response.read()  # urlopen's response is Any to the checker
        return body


class RemoteFile(io.RawIOBase):
    """A file at a URL, read in ranges as zipfile asks for them: a wheel's METADATA without the whole wheel."""

    def __init__(self, url: str, size: int) -> None:
        self.url, self.size, self.offset = url, size, 0

    def seekable(self) -> bool:
        return True

    def readable(self) -> bool:
        return True

    def tell(self) -> int:
        return self.offset

    def seek(self, offset: int, whence: int = io.SEEK_SET) -> int:
        self.offset = {io.SEEK_SET: 0, io.SEEK_CUR: self.offset, io.SEEK_END: self.size}[whence] + offset
        return self.offset

    def read(self, size: int | None = -1) -> bytes:
        end = self.size if size is None or size < 0 else min(self.offset + size, self.size)
        if end <= self.offset:
            return b""
        data = fetch(self.url, self.offset, end - 1)
        self.offset += len(data)
        return data


def wheel_metadata(entry: WheelFile) -> str:
    """The METADATA of a wheel on PyPI: its PEP 658 file, or read from the wheel itself where there is none."""
    try:
        return fetch(entry["url"] + ".metadata").decode()
    except urllib.error.HTTPError as error:
        if error.code != 404:
            raise
    with zipfile.ZipFile(RemoteFile(entry["url"], entry["size"])) as wheel:
        name = next(n for n in wheel.namelist() if n.endswith(".dist-info/METADATA"))
        return wheel.read(name).decode()


def requirements(metadata_text: str, extras: Iterable[str] = ()) -> list[Requirement]:
    """The requirements a wheel's metadata lists that hold here (this platform, these extras)."""
    found = []
    for line in Parser().parsestr(metadata_text).get_all("Requires-Dist") or []:
        requirement = Requirement(line)
        if requirement.marker is None or any(requirement.marker.evaluate({"extra": extra}) for extra in
                                             (*extras, "")):
            found.append(requirement)
    return found


def preference(entry: WheelFile) -> int:
    """Where a wheel's best tag stands among this interpreter's: lower is preferred, as pip prefers it."""
    return min(TAGS.get(tag, len(TAGS)) for tag in parse_wheel_filename(entry["filename"])[3])


def best_wheel(name: str, requirement: Requirement) -> tuple[Version, WheelFile]:
    """(version, file entry of PyPI's JSON API) of the newest release that meets ``requirement`` and has a
    wheel for this interpreter."""
    project_url = f"{PYPI}{canonicalize_name(name)}/json"
    releases = json.loads(fetch(project_url))["releases"]
    for version in sorted(map(Version, releases), reverse=True):
        if not requirement.specifier.contains(version, prereleases=True):
            continue
        wheels: list[WheelFile] = [
            entry for entry in releases[str(version)] if entry["filename"].endswith(".whl")
            and not entry.get("yanked") and any(t in TAGS for t in parse_wheel_filename(entry["filename"])[3])]
        if wheels:
            entry = min(wheels, key=preference)
            return version, {**entry, "url": urljoin(project_url, entry["url"])}
    raise SystemExit(f"no wheel of {requirement} for this interpreter on PyPI")


def cuda_download(version: str, cpu_requires: Iterable[str]) -> list[Wheel]:
    """The wheels pip would fetch for PyPI's torch==``version`` beyond those the CPU build needs too."""
    seen, wheels = set(cpu_requires), list[Wheel]()
    pending: list[tuple[Requirement, tuple[str, ...]]] = [(Requirement(f"torch=={version}"), ())]
    while pending:
        requirement, extras = pending.pop()
        name = canonicalize_name(requirement.name)
        found_version, entry = best_wheel(name, requirement)
        wheels.append({"name": name, "version": str(found_version), "filename": entry["filename"],
                       "bytes": entry["size"]})
        metadata = wheel_metadata(entry)
        # A package asked for with extras (cuda-toolkit[cublas,...]) brings what those extras require too.
        for needed in requirements(metadata, extras):
            key = canonicalize_name(needed.name)
            if key not in seen:
                seen.add(key)
                pending.append((needed, tuple(needed.extras)))
    return sorted(wheels, key=lambda wheel: -wheel["bytes"])


def site_packages(venv: Path) -> Path:
    return next(Path(venv).glob("lib/python*/site-packages"))


def file_sizes(site: Path, info: Path) -> list[int]:
    """The sizes of the files a distribution installed (its ``RECORD``) that are on disk."""
    with open(info / "RECORD", newline="") as record:
        paths = [site / row[0] for row in csv.reader(record) if row]
    return [path.stat().st_size for path in paths if path.is_file()]


def installed_torch(venv: Path) -> tuple[str, int, int, set[NormalizedName]]:
    """(version, bytes on disk, files, the names it requires) of the torch in ``venv``'s site-packages."""
    site = site_packages(venv)
    info = next(site.glob("torch-*.dist-info"))
    metadata = (info / "METADATA").read_text()
    sizes = file_sizes(site, info)
    names = {canonicalize_name(r.name) for r in requirements(metadata)}
    return Parser().parsestr(metadata)["Version"], sum(sizes), len(sizes), names


class Installed(TypedDict):
    """A distribution installed in a venv, as the results list it."""

    name: str
    version: str
    bytes: int
    files: int


INSTALLER = {"pip", "setuptools"}  # what a new venv holds before anything is installed


def locked_names(lock: Path) -> set[NormalizedName]:
    """The names pinned in a pip-compile lock (``name==version`` lines)."""
    return {canonicalize_name(line.split("==")[0].strip()) for line in lock.read_text().splitlines()
            if "==" in line and not line.lstrip().startswith("#")}


def added_beyond(venv: Path, locked: set[NormalizedName]) -> list[Installed]:
    """Every distribution in ``venv`` that ``locked`` does not name (nor the installer), largest first."""
    site = site_packages(venv)
    added = []
    for info in site.glob("*.dist-info"):
        metadata = Parser().parsestr((info / "METADATA").read_text())
        if canonicalize_name(metadata["Name"]) in locked | INSTALLER:
            continue
        sizes = file_sizes(site, info)
        added.append(Installed(name=metadata["Name"], version=metadata["Version"], bytes=sum(sizes),
                               files=len(sizes)))
    return sorted(added, key=lambda found: -found["bytes"])


# What each import loads, after torch: transformers' Llama model (transformers imports its models lazily, so the
# import of the class is what loads the modelling code), and the guide's decoder.
IMPORTS = {"transformers": "from transformers import LlamaConfig, LlamaForCausalLM",
           "hand-written": "import snippets.serving_a_model.generation"}
TIMED_IMPORT = "import time, torch; start = time.perf_counter(); {}; print(time.perf_counter() - start)"


def import_seconds(statement: str, path: Path, repeats: int) -> float:
    """The median over ``repeats`` fresh processes of this interpreter of the seconds ``statement`` takes after
    torch is imported, with ``path`` first on the import path."""
    env = dict(os.environ, PYTHONPATH=str(path))
    found = [float(subprocess.run([sys.executable, "-c", TIMED_IMPORT.format(statement)], env=env, check=True,
                                  capture_output=True, text=True).stdout.split()[-1]) for _ in range(repeats)]
    return statistics.median(found)


class TransformersCost(TypedDict):
    added: list[Installed]
    added_bytes: int
    import_repeats: int
    import_seconds: dict[str, float]  # by IMPORTS' names


def transformers_cost(venv: Path, lock: Path, root: Path, repeats: int) -> TransformersCost:
    """What installing transformers in ``venv`` added beyond ``lock``, and its import against the snippet's."""
    added = added_beyond(venv, locked_names(lock))
    seconds = {name: import_seconds(statement, site_packages(venv) if name == "transformers" else root, repeats)
               for name, statement in IMPORTS.items()}
    return TransformersCost(added=added, added_bytes=sum(found["bytes"] for found in added), import_repeats=repeats,
                            import_seconds=seconds)


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--venv", type=Path, default=Path(".venv"), help="a venv with the CPU build of torch")
    parser.add_argument("--json", type=Path, help="write the results here")
    parser.add_argument("--transformers", type=Path, help="a venv with transformers: measure what it adds instead")
    parser.add_argument("--repeats", type=int, default=5, help="fresh processes per import timed")
    args = parser.parse_args(argv)
    root = Path(__file__).resolve().parents[1]
    measured_on = recorded(root)
    if args.transformers:
        return report_transformers(args.transformers, root, args.repeats, measured_on, args.json)
    cpu_version, cpu_bytes, cpu_files, cpu_requires = installed_torch(args.venv)
    if "+cpu" not in cpu_version:
        raise SystemExit(f"{args.venv}: torch {cpu_version} is not the CPU build")
    wheels = cuda_download(cpu_version.split("+")[0], cpu_requires)
    cuda_bytes = sum(wheel["bytes"] for wheel in wheels)
    beyond_torch_bytes = cuda_bytes - next(w["bytes"] for w in wheels if w["name"] == "torch")
    results = {
        "date": datetime.datetime.now(datetime.timezone.utc).isoformat(timespec="seconds"),
        **measured_on,
        "cpu": {"torch": cpu_version, "installed_bytes": cpu_bytes, "files": cpu_files},
        "cuda": {"download_bytes": cuda_bytes, "wheels": wheels,
                 "beyond_torch_bytes": beyond_torch_bytes},
        "cuda_download_over_cpu_installed": cuda_bytes / cpu_bytes,
    }
    print(f"CPU torch {cpu_version}: {cpu_bytes / 2**20:,.0f} MiB installed ({cpu_files:,} files); "
          f"PyPI's CUDA torch: {cuda_bytes / 2**20:,.0f} MiB to download in {len(wheels)} wheels "
          f"({beyond_torch_bytes / 2**20:,.0f} MiB of them beside torch's own); "
          f"{results['cuda_download_over_cpu_installed']:.1f}×", file=sys.stderr)
    if args.json:
        args.json.write_text(json.dumps(results, indent=1) + "\n")
    return 0


def report_transformers(venv: Path, root: Path, repeats: int, measured_on: Mapping[str, object],
                        out: Path | None) -> int:
    cost = transformers_cost(venv, root / "requirements" / "lock.txt", root, repeats)
    seconds = cost["import_seconds"]
    print(f"transformers adds {len(cost['added'])} distributions beyond the lock, "
          f"{cost['added_bytes'] / 2**20:,.0f} MiB on disk; after torch, its Llama model imports in "
          f"{seconds['transformers']:.2f} s, the hand-written decoder in {seconds['hand-written']:.3f} s",
          file=sys.stderr)
    if out:
        results = {"date": datetime.datetime.now(datetime.timezone.utc).isoformat(timespec="seconds"),
                   **measured_on, "transformers": cost}
        out.write_text(json.dumps(results, indent=1) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
