"""snippets/serving_a_model/kv_cache.py: the decoder generates under the memory profiler; with the dynamic cache, each
decode step's concatenations allocate one token's keys and values more than the step's before, and the step keeps
them; with the static cache, the decode steps keep nothing and the in-place writes allocate nothing; either way the
profile holds what the memory timeline needs."""

import warnings

import pytest

from profguide import trace
from profguide.analysis.memory import kv_bytes_per_token, memory_in_calls
from snippets.serving_a_model.kv_cache import profile_cache
from tests.helpers import ROOT, run_script

SCRIPT = ROOT / "snippets" / "serving_a_model" / "kv_cache.py"
TINY = {"new_tokens": 5, "vocabulary": 64, "layers": 2, "width": 16, "heads": 2, "hidden": 32, "batch": 3,
        "prompt_tokens": 6, "dtype": "float32", "device": "cpu"}
DECODE = f"decode bs={TINY['batch']} toks={TINY['batch']}"
TOKEN = kv_bytes_per_token(TINY["layers"], TINY["width"], TINY["batch"], 4)
CPU = 0  # c10's DeviceType


def recorded(tmp_path, cache):
    path = tmp_path / f"{cache}.json"
    prof = profile_cache(cache, **TINY, on_trace_ready=lambda p: p.export_chrome_trace(str(path)))
    return prof, trace.load(path)


def test_the_dynamic_caches_concatenations_allocate_one_token_more_each_step(tmp_path):
    _, loaded = recorded(tmp_path, "dynamic")
    by_cat = [done for done, _ in memory_in_calls(loaded, DECODE, CPU, "aten::cat")]
    assert len(by_cat) == TINY["new_tokens"] - 1
    assert [later - earlier for earlier, later in zip(by_cat, by_cat[1:], strict=False)] == [TOKEN] * (len(by_cat) - 1)


def test_a_dynamic_decode_step_keeps_one_tokens_keys_and_values_and_the_token_it_chose(tmp_path):
    _, loaded = recorded(tmp_path, "dynamic")
    held = [done - undone for done, undone in memory_in_calls(loaded, DECODE, CPU)]
    chosen = TINY["batch"] * 8  # one int64 token a sequence
    assert held[1:] == [TOKEN + chosen] * (len(held) - 1)
    assert held[0] < 0  # the first frees the prefill's qkv output, which its keys and values were views of


def test_a_static_decode_step_keeps_only_the_token_and_its_writes_allocate_nothing(tmp_path):
    _, loaded = recorded(tmp_path, "static")
    held = [done - undone for done, undone in memory_in_calls(loaded, DECODE, CPU)]
    assert held == [TINY["batch"] * 8] * (TINY["new_tokens"] - 1)
    assert all(done == 0 for done, _ in memory_in_calls(loaded, DECODE, CPU, "aten::index_copy_"))


@pytest.mark.parametrize("cache", ["dynamic", "static"])
def test_the_profile_can_export_its_memory_timeline(tmp_path, cache):
    prof, _ = recorded(tmp_path, cache)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", FutureWarning)  # deprecated in favour of CUDA memory snapshots
        prof.export_memory_timeline(str(tmp_path / "timeline.json"), device="cpu")
    assert (tmp_path / "timeline.json").stat().st_size > 0


def test_the_script_prints_the_ops_that_allocated_the_most_for_each_cache(tmp_path):
    finished = run_script(SCRIPT, tmp_path)
    assert finished.returncode == 0, finished.stderr
    assert finished.stdout.count("Self CPU Mem") == 2
    assert "aten::cat" in finished.stdout
