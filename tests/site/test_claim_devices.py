"""profguide.site.claims: a claim is checked on the run of the device it speaks of, waits only as a prediction
beside a CPU stand-in, and otherwise fails the build in one line; each name it measures must be known."""

import dataclasses
import gzip
import json

import pytest

from profguide.site import claims
from profguide.site.data import RecordingData
from profguide.site.measures.compile import PerStepFall
from profguide.site.measures.kernels import GpuBusyShare
from profguide.site.measures.ops import OpsInRegion, RegionShare
from profguide.site.measures.timing import FirstOverRest
from profguide.site.recordings import Claim, RealTrace
from profguide.site.staleness import CPU_RUN, cache_key
from tests.helpers import ROOT, TINY
from tests.helpers import event as cpu
from tests.helpers import gpu_event as gpu

PAGE = "page.md"
SLOWEST_FIRST = Claim(PAGE, "the first step is by far the slowest", FirstOverRest("ProfilerStep"), at_least=2,
                      at_most=100)
MEANT_FOR_CUDA = dataclasses.replace(TINY, device="cuda")


def steps(*durations):
    """ProfilerSteps of these durations, back to back, each with one aten::mm."""
    events, start = [], 0
    for number, duration in enumerate(durations):
        events += [cpu(f"ProfilerStep#{number}", start, duration, kind="annotation"), cpu("aten::mm", start + 1, 1)]
        start += duration
    return events


def write_run(folder, device, events, standin=False):
    """A recording's folder as the recorder leaves it: its trace, rows and meta (made from this project's
    snippets, so fresh)."""
    folder.mkdir(parents=True)
    (folder / "trace.json.gz").write_bytes(gzip.compress(json.dumps({"traceEvents": events}).encode()))
    (folder / "averages.json").write_text("[]")
    meta = {"recording": TINY.id, "cache_key": cache_key(MEANT_FOR_CUDA, ROOT), "device": device,
            "device_name": f"a {device} in a test", "torch": "2.13.0", "python": "3.11", "params": {},
            "recorded_at": "2026-12-02T00:00:00+00:00", "cpu_standin": standin,
            "files": ["trace.json.gz", "averages.json"]}
    (folder / "meta.json").write_text(json.dumps(meta))


def checked(tmp_path, claim, folder, recording=MEANT_FOR_CUDA):
    (tmp_path / PAGE).write_text(f"[{claim.says}]{{.claim}}\n")
    return claims.check(dataclasses.replace(recording, claims=(claim,)), RecordingData(recording, folder),
                        tmp_path)[0]


def test_a_claim_about_the_cpu_beside_a_gpu_run_is_checked_on_the_cpu_run_kept_with_it(tmp_path):
    folder = tmp_path / "generated" / TINY.id
    write_run(folder, "cuda", steps(30, 30) + [gpu("gemm", 2, 1)])  # the GPU run: the first step is not slower
    on_the_cpu = dataclasses.replace(SLOWEST_FIRST, device="cpu")
    missing = checked(tmp_path, on_the_cpu, folder)
    assert missing.outcome == claims.NOT_CHECKED and claims.failed([missing]) == [missing]
    assert missing.line() == (
        f'{PAGE} says "{on_the_cpu.says}" of {TINY.id}: about CPU runs, and the recording holds a cuda run with '
        "no CPU run kept beside it: record that (`make figures` records what is missing), or reword the claim for "
        "cuda runs")
    write_run(folder / CPU_RUN, "cpu", steps(90, 30))  # 90 µs over 30: three times
    kept = checked(tmp_path, on_the_cpu, folder)
    assert (kept.outcome, kept.value, kept.device) == (claims.HOLDS, 3, "cpu")
    assert "a cpu in a test" in kept.run  # the tooltip names the run it was measured on
    anywhere = checked(tmp_path, SLOWEST_FIRST, folder)  # about any device: the GPU run the page shows
    assert (anywhere.outcome, anywhere.value, anywhere.device) == (claims.FAILS, 1, "cuda")


def test_a_claim_about_a_gpu_waits_beside_a_cpu_stand_in_and_fails_where_no_gpu_run_will_come(tmp_path):
    on_a_gpu = dataclasses.replace(SLOWEST_FIRST, device="cuda")
    standin = tmp_path / "standin"
    write_run(standin, "cpu", steps(90, 30), standin=True)
    waiting = checked(tmp_path, on_a_gpu, standin)
    assert (waiting.outcome, waiting.value) == (claims.WAITS, None) and claims.failed([waiting]) == []
    cpu_recording = tmp_path / "cpu-recording"
    write_run(cpu_recording, "cpu", steps(90, 30))
    never = checked(tmp_path, on_a_gpu, cpu_recording, recording=TINY)
    assert never.outcome == claims.NOT_CHECKED and claims.failed([never]) == [never]
    assert never.line().endswith("about cuda runs, and the recording is a cpu run that no cuda run will replace: "
                                 "point the claim at a recording meant for cuda (or a real trace of one), or "
                                 "reword it for cpu runs")


def test_a_real_trace_is_what_it_is(tmp_path):
    real = RealTrace("real", "docs/traces/cpu_only_gloo.json.gz", "a CPU trace", "HTA", "https://x", "MIT")
    from profguide.site.data import RealTraceData

    data = RealTraceData(real, ROOT, tmp_path / "real")
    (tmp_path / PAGE).write_text("[no kernel at all]{.claim}\n")
    gpu_claim = Claim(PAGE, "no kernel at all", GpuBusyShare(), at_least=0, at_most=0, device="cuda")
    found = claims.check(dataclasses.replace(real, claims=(gpu_claim,)), data, tmp_path)[0]
    assert found.outcome == claims.NOT_CHECKED and "the trace is a cpu run" in found.line()


def test_a_name_no_run_and_no_vocabulary_holds_fails_even_where_its_count_of_zero_would_hold(tmp_path):
    folder = tmp_path / "run"
    write_run(folder, "cpu", [cpu("region", 0, 10, kind="annotation"), cpu("aten::mm", 1, 1)])
    absent = Claim(PAGE, "the region holds no add", OpsInRegion("region", "aten::add"), at_least=0, at_most=0)
    misspelt = dataclasses.replace(absent, measure=OpsInRegion("region", "aten::addd"))
    (tmp_path / PAGE).write_text(f"[{absent.says}]{{.claim}}\n")

    def check(claim, vocabulary=None):
        return claims.check(dataclasses.replace(TINY, claims=(claim,)), RecordingData(TINY, folder), tmp_path,
                            vocabulary)[0]

    assert check(absent).outcome == claims.MISNAMED  # the run holds no aten::add: it could be a misspelling
    operators = claims.vocabulary_of({"aten::add"})
    assert (check(absent, operators).outcome, check(absent, operators).value) == (claims.HOLDS, 0)
    assert check(misspelt, operators).outcome == claims.MISNAMED
    wrong = check(misspelt, operators)
    assert claims.failed([wrong]) == [wrong]
    assert wrong.line().endswith('op "aten::addd" names no event of the runs it reads, of the guide\'s real traces '
                                 "or of torch's operators: a misspelling?")


def test_a_member_of_a_closed_set_must_be_one_and_a_baseline_a_run_of_the_guide(tmp_path):
    folder = tmp_path / "run"
    write_run(folder, "cpu", [cpu("MLP", 0, 10, kind="annotation")])
    (tmp_path / PAGE).write_text("[the MLP]{.claim}\n")

    def outcome(measure):
        claim = Claim(PAGE, "the MLP", measure, at_least=0, at_most=1)
        return claims.check(dataclasses.replace(TINY, claims=(claim,)), RecordingData(TINY, folder), tmp_path)[0]

    wrong = outcome(RegionShare("MLP", time="gpu"))
    assert wrong.outcome == claims.MISNAMED and 'time "gpu" is no choice (one of: cpu, device)' in wrong.line()
    assert outcome(PerStepFall("kernels", "no-such-recording")).outcome == claims.MISNAMED
    assert "is no run" in outcome(PerStepFall("kernels", "no-such-recording")).line()


def test_every_string_of_every_measure_says_what_it_names():
    """An unannotated string would never be looked up: a misspelling of it could pass for an absence."""
    from typing import get_type_hints

    from profguide.site.measures import every_kind

    for kind in every_kind():
        hints = get_type_hints(kind, include_extras=True)
        for field in dataclasses.fields(kind):
            if hints[field.name] in (str, tuple[str, ...]):
                pytest.fail(f"{kind.__name__}.{field.name} is a plain str: annotate what it names")
