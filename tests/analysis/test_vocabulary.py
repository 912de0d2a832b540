"""The closed vocabularies: each ``Literal`` is the one list of its words, the tables that say what the words mean
have an entry for each and no other, and explain's JSON Schema rejects any other word."""

import copy
import json
import subprocess
import sys
from typing import get_args

import msgspec
import pytest

from profguide.analysis import host, idle, verdict
from profguide.analysis.job import trace_summary
from profguide.analysis.summary import TraceSummary, json_schema
from profguide.analysis.vocabulary import Activity, Cause, CpuActivity, JobVerdict, Verdict
from tests.analysis.gpu_traces import training_loop
from tests.helpers import ROOT


def test_each_table_of_meanings_has_every_word_of_its_vocabulary_and_no_other():
    assert tuple(idle.IDLE_CAUSES) == get_args(Cause)
    assert tuple(host.ACTIVITIES) == get_args(Activity)
    assert tuple(host.CPU_ACTIVITIES) == tuple(host.CPU_LABELS) == get_args(CpuActivity)
    assert set(verdict.ACTIVITY_VERDICTS) == set(get_args(Activity))
    assert set(verdict.HOST_ACTIVITY_VERDICTS) == set(get_args(CpuActivity))
    assert set(get_args(JobVerdict)) == {"straggler", *get_args(Verdict)}


@pytest.fixture(scope="module")
def summary():
    """explain --json of a small training loop, as a script reads it."""
    return json.loads(json.dumps(trace_summary(training_loop(python_us=300), "loop.json")))


def spoiled(summary, path, word):
    """A copy of ``summary`` with ``word`` at ``path``: the value under its keys, or where its last step is
    ("key", old), the dict's key ``old``."""
    changed = copy.deepcopy(summary)
    *outer, last = path
    target = changed
    for key in outer:
        target = target[key]
    if isinstance(last, tuple):
        target[word] = target.pop(last[1])
    else:
        target[last] = word
    return changed


SPOILED = [
    ("verdict",),
    ("idle", "by_cause", ("key", "queued")),
    ("idle", "by_activity", ("key", "python")),
    ("idle", "longest_gaps", 0, "cause"),
]


@pytest.mark.parametrize("path", SPOILED, ids=lambda path: "/".join(map(str, path)))
def test_a_word_outside_its_vocabulary_fails_to_decode(summary, path):
    msgspec.convert(summary, TraceSummary)  # the words it has are the vocabulary's
    with pytest.raises(msgspec.ValidationError, match="Invalid enum value 'banana'"):
        msgspec.convert(spoiled(summary, path, "banana"), TraceSummary)


def test_a_finding_of_a_rule_that_does_not_exist_fails_to_decode(summary):
    found = {"rule": "tiny-launches", "source": "this guide", "measured": 1.0, "evidence": "", "at_us": None,
             "change": "", "guide": ""}
    msgspec.convert({**summary, "findings": [found]}, TraceSummary)
    for key in ("rule", "source"):
        with pytest.raises(msgspec.ValidationError, match="Invalid enum value 'banana'"):
            msgspec.convert({**summary, "findings": [{**found, key: "banana"}]}, TraceSummary)


@pytest.mark.parametrize("path", SPOILED, ids=lambda path: "/".join(map(str, path)))
def test_the_json_schema_lists_the_vocabulary_and_rejects_any_other_word(summary, path):
    jsonschema = pytest.importorskip("jsonschema", reason="jsonschema comes with nbformat, of the test extra")
    validator = jsonschema.Draft202012Validator(json_schema())
    assert validator.is_valid(summary) and not validator.is_valid(spoiled(summary, path, "banana"))


def test_the_schema_lists_each_vocabulary_as_an_enum():
    definitions = json_schema()["$defs"]  # msgspec sorts an enum's words
    assert definitions["TraceSummary"]["properties"]["verdict"]["enum"] == sorted(get_args(Verdict))
    assert definitions["IdleBreakdown"]["properties"]["by_cause"]["propertyNames"]["enum"] == sorted(get_args(Cause))
    assert definitions["FolderJob"]["properties"]["verdict"]["enum"] == sorted(get_args(JobVerdict))


def test_the_vocabularies_import_with_the_standard_library_alone():
    # The recordings' declarations, imported on a bare GPU machine (torch, no numpy or msgspec), may name them.
    code = ("import sys, profguide.analysis.vocabulary; "
            "print(sorted(name for name in sys.modules if name.split('.')[0] in {'numpy', 'msgspec', 'torch'}))")
    found = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, check=True)
    assert found.stdout == "[]\n"
