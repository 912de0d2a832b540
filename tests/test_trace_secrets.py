"""No trace in the project carries a secret.

A trace from another machine can carry that machine's environment: the
TraceLens traces in docs/traces had one, with tokens in it, until it was cut
out of their metadata. This scan runs over every JSON file that git tracks or
would track under docs/ and tests/ (the real traces, the recordings and their
metadata under docs/generated, test data) and looks for three things:

- keys named like a secret (token, secret, password, API, access or private
  key, credentials) in any JSON object, except in the ``args`` of a trace's
  ordinary events, whose keys are the profiler's own and the ops' arguments;
- environment-like blocks anywhere: objects mapping more than a few
  upper-case names to strings, as ``os.environ`` does;
- values in the shape of known credentials (Hugging Face, GitHub, AWS,
  Slack, ``sk-`` API keys, PEM private keys), anywhere in the text.

It must stay fast, for the suite runs it every time: each file is
decompressed once and screened as bytes; only a file whose text holds a
secret's word, four upper-case keys of strings or a ``\\u`` escape (which could
spell either) is decoded, once, and walked.
"""

import gzip
import itertools
import json
import re
import subprocess

import msgspec

from tests.helpers import ROOT, TRACES

# Phases of events whose args are an op's or a kernel's: their key names are not checked (an op may well take a
# "token"). Metadata events (M) and anything unknown get the full check.
ORDINARY_PHASES = frozenset({"X", "B", "E", "i", "I", "C", "b", "n", "e", "s", "t", "f", "P"})
SECRET_KEY = re.compile(r"(?:^|_)(?:token|secret|passw(?:or)?d|passphrase|credentials?|(?:api|access|private)_?key)"
                        r"(?:_|$)")
# The screen's words: every key SECRET_KEY matches holds one of them, lower-cased ("key" only after these).
SECRET_WORDS = (b"token", b"secret", b"passw", b"passphrase", b"credential")
KEY_AFTER = (b"api", b"api_", b"access", b"access_", b"private", b"private_")
ENVIRONMENT_NAME = re.compile(r"[A-Z][A-Z0-9_]*")
ENVIRONMENT_ENTRY = re.compile(rb'"[A-Z][A-Z0-9_]*"\s*:\s*"')
# More than this many upper-case names mapped to strings make an object look like an environment.
ENVIRONMENT_NAMES_AT_MOST = 3
# Credentials by shape, each starting with its literal prefix (which keeps the search fast); the character before a
# match must not continue a word (BOUNDARY), so that "mask-…" holds no "sk-" key.
CREDENTIALS = {
    "Hugging Face token": re.compile(rb"hf_[A-Za-z0-9]{30,}"),
    "GitHub token": re.compile(rb"gh[pousr]_[A-Za-z0-9]{36,}"),
    "GitHub fine-grained token": re.compile(rb"github_pat_[A-Za-z0-9_]{22,}"),
    "AWS access key id": re.compile(rb"A[KS]IA[0-9A-Z]{16}(?![A-Za-z0-9])"),
    "Slack token": re.compile(rb"xox[bp]-[0-9A-Za-z-]{10,}"),
    "sk- API key": re.compile(rb"sk-[A-Za-z0-9_-]{32,}"),
    "private key": re.compile(rb"-----BEGIN [A-Z ]*PRIVATE KEY-----"),
}
BOUNDARY = frozenset(b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_-")


def project_json_files():
    """Every .json and .json.gz under docs/ and tests/ that git tracks or would track (.gitignore honoured)."""
    listed = subprocess.run(
        ["git", "ls-files", "--cached", "--others", "--exclude-standard", "-z", "--",
         "docs/*.json", "docs/*.json.gz", "tests/*.json", "tests/*.json.gz"],
        cwd=ROOT, capture_output=True, check=True).stdout.decode().split("\0")
    return sorted(path for name in listed if name and (path := ROOT / name).is_file())


def secret_key(key):
    """Whether a key is named like a secret: HF_TOKEN, api_key, authToken, AWS_SECRET_ACCESS_KEY."""
    snake = re.sub(r"([a-z0-9])([A-Z])", r"\1_\2", key).lower()
    return SECRET_KEY.search(snake) is not None


def environment_like(mapping):
    """Whether an object maps more than a few upper-case names to strings, as an environment does."""
    if len(mapping) <= ENVIRONMENT_NAMES_AT_MOST:
        return False
    names = sum(1 for key, value in mapping.items() if isinstance(value, str) and ENVIRONMENT_NAME.fullmatch(key))
    return names > ENVIRONMENT_NAMES_AT_MOST


def may_hold_secret_objects(text):
    """Whether the raw text could hold a secret-named key or an environment-like block (else no need to decode)."""
    if b"\\u" in text:  # an escape could spell a key that the byte screens below would miss
        return True
    lowered = text.lower()
    if any(word in lowered for word in SECRET_WORDS):
        return True
    if any(lowered[:at.start()].endswith(KEY_AFTER) for at in re.finditer(rb"key", lowered)):
        return True
    # Counting stops at the first entry too many: a trace full of them is screened no slower.
    entries = itertools.islice(ENVIRONMENT_ENTRY.finditer(text), ENVIRONMENT_NAMES_AT_MOST + 1)
    return sum(1 for _ in entries) > ENVIRONMENT_NAMES_AT_MOST


def object_findings(value, where, check_keys=True):
    """Secret-named keys (when ``check_keys``) and environment-like blocks in a decoded JSON value."""
    found = []
    if isinstance(value, dict):
        if environment_like(value):
            found.append(f"{where}: an environment-like block")
        for key, item in value.items():
            if check_keys and secret_key(key):
                found.append(f"{where}.{key}: a key named like a secret")
            if isinstance(item, (dict, list)):
                found += object_findings(item, f"{where}.{key}", check_keys)
    elif isinstance(value, list):
        for index, item in enumerate(value):
            if isinstance(item, (dict, list)):
                found += object_findings(item, f"{where}[{index}]", check_keys)
    return found


def event_findings(events):
    """Findings in a trace's events: the args of ordinary events are checked for environments only."""
    found = []
    for index, event in enumerate(events):
        where = f"traceEvents[{index}]"
        args = event.get("args") if isinstance(event, dict) else None
        if isinstance(args, dict) and event.get("ph") in ORDINARY_PHASES:
            found += object_findings({k: v for k, v in event.items() if k != "args"}, where)
            found += object_findings(args, f"{where}.args", check_keys=False)
        else:
            found += object_findings(event, where)
    return found


def document_findings(document):
    """Findings in a decoded JSON document: a Chrome trace's events by event_findings' rules, all else in full."""
    if isinstance(document, dict) and isinstance(document.get("traceEvents"), list):
        rest = {key: value for key, value in document.items() if key != "traceEvents"}
        return object_findings(rest, "$") + event_findings(document["traceEvents"])
    return object_findings(document, "$")


def credential_findings(text):
    """Values shaped like known credentials anywhere in the raw text; a credential's start is shown, never all."""
    return [f"{name}: {match.group(0)[:6].decode()}…"
            for name, shape in CREDENTIALS.items() for match in shape.finditer(text)
            if match.start() == 0 or text[match.start() - 1] not in BOUNDARY]


def secrets_in(path):
    """What looks secret in a .json or .json.gz file, each finding in words."""
    raw = path.read_bytes()
    text = gzip.decompress(raw) if path.name.endswith(".gz") else raw
    structure = document_findings(msgspec.json.decode(text)) if may_hold_secret_objects(text) else []
    return structure + credential_findings(text)


def test_no_trace_in_the_project_holds_anything_secret_looking():
    scanned = {str(path.relative_to(ROOT)): secrets_in(path) for path in project_json_files()}
    # The scan reached the real traces and the recordings: an empty listing would pass vacuously.
    assert {f"docs/traces/{path.name}" for path in TRACES.glob("*.json.gz")} <= set(scanned)
    assert any(name.startswith("docs/generated/") and "/trace" in name for name in scanned)
    assert {name: found for name, found in scanned.items() if found} == {}


# Made up at run time, so that this file itself holds nothing in a credential's shape.
FAKE_HF_TOKEN = "hf_" + "Ab3dE" * 7


def write_trace(path, events=(), **top_level):
    """A small Chrome trace, gzip-compressed as the project's are: a metadata event, an op, and ``events``."""
    ordinary = [
        {"ph": "M", "name": "process_name", "pid": 1, "tid": 0, "args": {"name": "python3"}},
        {"ph": "X", "cat": "cpu_op", "name": "aten::mm", "pid": 1, "tid": 1, "ts": 0, "dur": 5,
         "args": {"External id": 1, "Input Dims": [[2, 2], [2, 2]]}},
    ]
    document = {"traceEvents": [*ordinary, *events], "schemaVersion": 1, **top_level}
    path.write_bytes(gzip.compress(json.dumps(document).encode()))
    return path


def op_with_args(**args):
    return {"ph": "X", "cat": "cpu_op", "name": "aten::add", "pid": 1, "tid": 1, "ts": 5, "dur": 1, "args": args}


ENVIRONMENT = {"HOME": "/home/someone", "PATH": "/usr/bin", "USER": "someone", "SHELL": "/bin/bash"}


def test_a_clean_trace_has_no_findings(tmp_path):
    assert secrets_in(write_trace(tmp_path / "clean.json.gz", metadata={"model": "bert", "gpu": "H100"})) == []


def test_an_environment_block_holding_a_hugging_face_token_is_flagged(tmp_path):
    environment = {**ENVIRONMENT, "HF_TOKEN": FAKE_HF_TOKEN}
    found = secrets_in(write_trace(tmp_path / "leaky.json.gz", metadata={"environment": environment}))
    assert found == ["$.metadata.environment: an environment-like block",
                     "$.metadata.environment.HF_TOKEN: a key named like a secret",
                     "Hugging Face token: hf_Ab3…"]


def test_an_environment_is_flagged_even_with_no_secret_in_it_and_inside_an_ops_args(tmp_path):
    assert secrets_in(write_trace(tmp_path / "env.json.gz", metadata=ENVIRONMENT)) == [
        "$.metadata: an environment-like block"]
    assert secrets_in(write_trace(tmp_path / "args.json.gz", [op_with_args(**ENVIRONMENT)])) == [
        "traceEvents[2].args: an environment-like block"]


def test_a_secret_named_key_is_flagged_outside_an_ordinary_events_args_and_through_an_escape(tmp_path):
    metadata_event = {"ph": "M", "name": "process_labels", "pid": 1, "tid": 0, "args": {"apiKey": "x"}}
    assert secrets_in(write_trace(tmp_path / "m.json.gz", [metadata_event])) == [
        "traceEvents[2].args.apiKey: a key named like a secret"]
    escaped = tmp_path / "escaped.json"
    escaped.write_text('{"traceEvents": [], "distributedInfo": {"WANDB_API_\\u004bEY": "x"}}')
    assert secrets_in(escaped) == ["$.distributedInfo.WANDB_API_KEY: a key named like a secret"]


def test_credentials_are_found_by_shape_anywhere_even_in_an_ordinary_events_args(tmp_path):
    planted = {
        "Hugging Face token": FAKE_HF_TOKEN,
        "GitHub token": "ghp_" + "x1Y2z3" * 6,
        "GitHub fine-grained token": "github_pat_" + "11AB_cd" * 4,
        "AWS access key id": "AKIA" + "ABCD2345" * 2,
        "Slack token": "xoxb-" + "1234-5678-abcd",
        "sk- API key": "sk-" + "proj-" + "Zy9" * 12,
        "private key": "-----BEGIN " + "RSA PRIVATE KEY-----",
    }
    found = {name: secrets_in(write_trace(tmp_path / "x.json.gz", [op_with_args(note=f"set to {value} here")]))
             for name, value in planted.items()}
    assert {name: [finding.split(":")[0] for finding in findings] for name, findings in found.items()} == {
        name: [name] for name in planted}


def test_look_alikes_of_credentials_and_secret_keys_are_not_flagged(tmp_path):
    # A mask- name is no sk- key, a trace_id is no token, an op's "token" argument is the op's own, a tokenizer
    # is named, not secret, and an AWS-like run inside a longer word is no key id.
    path = write_trace(tmp_path / "lookalike.json.gz", [op_with_args(token=3)],
                       trace_id="B4826447790147448E9C459AADE9641D",
                       metadata={"tokenizer": "bert-base", "num_tokens": 512, "kernel": "mask-" + "a" * 40,
                                 "tag": "XAKIA" + "B" * 16})
    assert secrets_in(path) == []


def test_keys_named_like_secrets():
    named = ["HF_TOKEN", "api_key", "apiKey", "authToken", "AWS_SECRET_ACCESS_KEY", "WANDB_API_KEY", "password",
             "db_passwd", "credentials", "PRIVATE_KEY"]
    plain = ["tokenizer", "num_tokens", "name", "Input Dims", "keyboard", "accessed", "secretary"]
    assert [key for key in named if not secret_key(key)] == []
    assert [key for key in plain if secret_key(key)] == []


def test_a_json_file_that_is_no_trace_is_checked_in_full(tmp_path):
    path = tmp_path / "meta.json"
    path.write_text(json.dumps({"runs": [{"HF_TOKEN": "x"}]}))
    assert secrets_in(path) == ["$.runs[0].HF_TOKEN: a key named like a secret"]
