"""What PyTorch's CPU build saves: the CPU torch a venv holds against PyPI's CUDA torch and its CUDA packages.

The CPU side is measured on disk: the files the venv's torch distribution installed (its RECORD), summed by
size. The CUDA side is what pip would download for `pip install torch==VERSION` on Linux x86_64 from PyPI:
the size PyPI's JSON API gives for torch's wheel for this interpreter, plus the wheels of every package it
requires there that the CPU build does not (nvidia-*, cuda-*, triton), and theirs in turn, each at the newest
version its requirement allows. Their requirements come from each wheel's metadata file (PEP 658), so nothing
large is downloaded.

    python benchmarks/install_size.py --venv .venv
    python benchmarks/install_size.py --venv .venv --json benchmarks/results/install_size.json
"""

import argparse
import csv
import datetime
import io
import json
import sys
import urllib.error
import urllib.request
import zipfile
from collections.abc import Iterable, Sequence
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


def installed_torch(venv: Path) -> tuple[str, int, int, set[NormalizedName]]:
    """(version, bytes on disk, files, the names it requires) of the torch in ``venv``'s site-packages."""
    site = next(Path(venv).glob("lib/python*/site-packages"))
    info = next(site.glob("torch-*.dist-info"))
    metadata = (info / "METADATA").read_text()
    with open(info / "RECORD", newline="") as record:
        paths = [site / row[0] for row in csv.reader(record) if row]
    sizes = [path.stat().st_size for path in paths if path.is_file()]
    names = {canonicalize_name(r.name) for r in requirements(metadata)}
    return Parser().parsestr(metadata)["Version"], sum(sizes), len(sizes), names


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--venv", type=Path, default=Path(".venv"), help="a venv with the CPU build of torch")
    parser.add_argument("--json", type=Path, help="write the results here")
    args = parser.parse_args(argv)
    measured_on = recorded(Path(__file__).resolve().parents[1])
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


if __name__ == "__main__":
    sys.exit(main())
