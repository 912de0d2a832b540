"""The benchmarks: what their results record of where they were measured and how the site shows it, and the
decoding floor's structs, which must read what the trace loader reads."""

import importlib.util
import json
import os
import subprocess
import typing

import msgspec
import pytest

from profguide.render import fragments as render
from profguide.trace import loader
from tests.helpers import ROOT

BENCHMARKS = ROOT / "benchmarks"


def script(name):
    """The benchmark script ``benchmarks/NAME.py`` as a module (benchmarks/ is no package)."""
    spec = importlib.util.spec_from_file_location(f"benchmark_{name}", BENCHMARKS / f"{name}.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


provenance = script("provenance")
decode_floor = script("decode_floor")


def shape(struct):
    """The JSON fields a struct reads, each with the shape of the struct it decodes into (None for a value)."""
    def inner(kind):
        found = [t for t in (kind, *typing.get_args(kind)) if isinstance(t, type) and issubclass(t, msgspec.Struct)]
        return shape(found[0]) if found else None

    return {field.encode_name: inner(field.type) for field in msgspec.structs.fields(struct)}


def by_phase(structs):
    """{the ``ph`` tag: the struct} of event structs."""
    return {struct.__struct_config__.tag: struct for struct in structs}


def test_the_floor_decodes_every_field_the_loader_reads_and_no_other():
    floor, loaders = by_phase(typing.get_args(decode_floor.Event)), by_phase(loader.PHASE)
    assert floor.keys() == loaders.keys()
    for phase, struct in loaders.items():
        assert shape(floor[phase]) == shape(struct), phase
    # The floor decodes the events with the document; the loader keeps them raw and decodes them in batches.
    assert {**shape(decode_floor.Document), "traceEvents": None} == shape(loader._Document)


def test_the_floor_shapes_would_tell_a_field_the_floor_lacks():
    # The check above compares these shapes: an instant's args without the allocator's three fields is told apart.
    class Bytes(msgspec.Struct):
        bytes: object = msgspec.field(name="Bytes", default=None)

    class Instant(msgspec.Struct, tag_field="ph", tag="i"):
        args: Bytes | None = None

    assert shape(Instant) == {"args": {"Bytes": None}} != shape(loader._Instant)


def git(folder, *args):
    return subprocess.run(["git", "-C", str(folder), "-c", "user.name=t", "-c", "user.email=t@example.org", *args],
                          capture_output=True, text=True, check=True).stdout.strip()


def test_a_checkout_records_its_commit_and_whether_its_code_differs_from_it(tmp_path):
    (tmp_path / "benchmarks" / "results").mkdir(parents=True)
    (tmp_path / "code.py").write_text("x = 1\n")
    (tmp_path / "benchmarks" / "results" / "run.json").write_text("{}\n")
    git(tmp_path, "init", "-q")
    git(tmp_path, "add", ".")
    git(tmp_path, "commit", "-q", "-m", "first")
    head = git(tmp_path, "rev-parse", "HEAD")
    assert provenance.checkout(tmp_path) == {"commit": head, "dirty": False}
    # A results file an earlier run wrote is no change to the code measured, nor is an untracked file.
    (tmp_path / "benchmarks" / "results" / "run.json").write_text('{"again": true}\n')
    (tmp_path / "notes.txt").write_text("scratch\n")
    assert provenance.checkout(tmp_path) == {"commit": head, "dirty": False}
    (tmp_path / "code.py").write_text("x = 2\n")
    assert provenance.checkout(tmp_path) == {"commit": head, "dirty": True}


def test_a_tree_that_is_no_checkout_records_neither(tmp_path):
    # A tree from `git archive` (build_time.py's earlier tree) has no commit to name.
    assert provenance.checkout(tmp_path) == {"commit": None, "dirty": None}


def test_the_machine_is_read_from_the_systems_own_files(tmp_path):
    cpuinfo, release = tmp_path / "cpuinfo", tmp_path / "os-release"
    cpuinfo.write_text("processor\t: 0\nmodel name\t: AMD EPYC 7B13\ncpu cores\t: 1\n\nprocessor\t: 1\n")
    release.write_text('NAME="Debian GNU/Linux"\nPRETTY_NAME="Debian GNU/Linux 12 (bookworm)"\n')
    assert provenance.key_values(cpuinfo, ":")["model name"] == "AMD EPYC 7B13"
    assert provenance.key_values(release, "=")["PRETTY_NAME"] == "Debian GNU/Linux 12 (bookworm)"
    assert provenance.key_values(tmp_path / "missing", ":") == {}
    machine = provenance.machine()
    assert set(machine) == {"cpu", "cores", "usable_cores", "memory_gib", "os", "python"}
    assert machine["cores"] == os.cpu_count() and 1 <= machine["usable_cores"] <= machine["cores"]
    assert machine["cpu"] and machine["os"] and machine["memory_gib"] > 0


@pytest.mark.parametrize("name", sorted(path.stem for path in BENCHMARKS.glob("*.py")
                                        if '"--json"' in path.read_text() or '"--out"' in path.read_text()))
def test_every_benchmark_that_writes_results_records_where_it_ran(name):
    assert "recorded(" in (BENCHMARKS / f"{name}.py").read_text(), name


MACHINE = {"cpu": "AMD EPYC 7B13", "cores": 4, "usable_cores": 2, "memory_gib": 23.5,
           "os": "Debian GNU/Linux 12 (bookworm), Linux 6.1.0", "python": "3.11.7"}
CHECKOUT = {"commit": "0123456789abcdef0123456789abcdef01234567", "dirty": True}


def test_where_a_benchmark_ran_in_words():
    assert render.measured_on({"machine": MACHINE, "checkout": CHECKOUT}) == (
        "AMD EPYC 7B13, 4 cores (2 of them usable), 23.5 GiB of memory, Debian GNU/Linux 12 (bookworm), "
        "Linux 6.1.0, Python 3.11.7; commit 01234567 with uncommitted changes")
    clean = {**CHECKOUT, "dirty": False}
    assert render.measured_on({"machine": {**MACHINE, "usable_cores": 4}, "checkout": clean}).startswith(
        "AMD EPYC 7B13, 4 cores, 23.5 GiB")
    assert render.measured_on({"machine": MACHINE, "checkout": clean}).endswith("; commit 01234567")
    # A results file from before the scripts recorded the commit: its machine as it wrote it.
    assert render.measured_on({"machine": "x86_64, 2 cores"}) == "x86_64, 2 cores; commit not recorded"
    assert render.measured_on({"checkout": {"commit": None, "dirty": None}}) == \
        "a machine not recorded; commit not recorded"


FRAGMENTS = {  # each results file the site shows, and the fragment that shows it
    "explain_vs_hta.json": lambda results: render.benchmark_fragment(results, "x.svg"),
    "explain_ranks.json": render.ranks_benchmark_fragment,
    "diff_and_rules.json": render.diff_benchmark_fragment,
    "layout_memory.json": render.layout_benchmark_fragment,
    "install_size_transformers.json": render.transformers_benchmark_fragment,
    "tracelens_comparison.json": render.tracelens_fragment,
}


@pytest.mark.parametrize("file", FRAGMENTS)
def test_each_benchmark_fragment_says_where_its_results_were_measured(file):
    results = json.loads((BENCHMARKS / "results" / file).read_text())
    assert f"on {render.escape(render.measured_on(results))}" in FRAGMENTS[file](results)
    recorded = FRAGMENTS[file]({**results, "machine": MACHINE, "checkout": CHECKOUT})
    assert "AMD EPYC 7B13, 4 cores (2 of them usable)" in recorded and "commit 01234567 with uncommitted" in recorded
