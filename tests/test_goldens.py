"""``profguide explain`` on every real trace prints what its golden file holds (``make goldens`` rewrites them)."""

import pytest

from tests.goldens import FORMS, explained, golden_path, real_traces


def test_every_real_trace_has_its_goldens():
    assert real_traces(), "no real traces found in docs/traces"
    missing = [str(golden_path(t, f).name) for t in real_traces() for f in FORMS if not golden_path(t, f).is_file()]
    assert not missing, f"no golden for {missing}: run `make goldens`"


@pytest.mark.parametrize("form", sorted(FORMS))
@pytest.mark.parametrize("trace", real_traces())
def test_explain_matches_its_golden(trace, form):
    path = golden_path(trace, form)
    if not path.is_file():
        pytest.fail(f"{path.name} missing: run `make goldens`")
    assert explained(trace, form) == path.read_text(), f"{trace}: explain's {form} changed; `make goldens` if meant"
