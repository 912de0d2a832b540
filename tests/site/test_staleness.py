"""profguide.site.staleness: what a recording's key covers, and the state a committed recording is in."""

import dataclasses

import pytest

from profguide.site import launch
from profguide.site.staleness import cache_key, recording_state, snippet_modules
from tests.helpers import TINY


def with_module(project, name, source):
    path = project / "snippets" / "basics" / f"{name}.py"
    path.write_text(source)
    return path


def test_the_key_changes_with_the_snippet_source(project):
    before = cache_key(TINY, project)
    path = project / TINY.snippet
    path.write_text(path.read_text() + "\n# a comment is a change too\n")
    assert cache_key(TINY, project) != before


def test_the_key_covers_every_snippet_module_imported_directly_or_not(project):
    with_module(project, "shapes", "SIZE = 8\n")
    with_module(project, "helpers", "from .shapes import SIZE\n")
    with_module(project, "user", "from snippets.basics import helpers\n\ndef run(on_trace_ready=None):\n    pass\n")
    user = dataclasses.replace(TINY, module="snippets.basics.user", function="run")
    assert set(snippet_modules(project, user.module)) == {
        "snippets", "snippets.basics", "snippets.basics.user", "snippets.basics.helpers", "snippets.basics.shapes",
    }
    before = cache_key(user, project)
    with_module(project, "shapes", "SIZE = 9\n")
    assert cache_key(user, project) != before
    before = cache_key(user, project)
    (project / "snippets" / "basics" / "__init__.py").write_text('"""changed"""\n')
    assert cache_key(user, project) != before


def test_the_key_ignores_snippet_modules_not_imported(project):
    before = cache_key(TINY, project)
    with_module(project, "unrelated", "X = 1\n")
    (project / "snippets" / "basics" / "steps.py").write_text("# changed\n")
    assert cache_key(TINY, project) == before


def test_the_key_covers_the_spec(project):
    base = cache_key(TINY, project)
    changes = [{"params": {"size": 9}}, {"function": "report"}, {"cpu_params": {"size": 4}}, {"ranks": 2},
               {"device": "cpu"}]
    keys = {cache_key(dataclasses.replace(TINY, **change), project) for change in changes}
    assert len(keys) == len(changes) and base not in keys


def test_the_key_ignores_the_id_title_figure_and_claims(project):
    renamed = dataclasses.replace(TINY, id="other", title="other", claims=())
    assert cache_key(renamed, project) == cache_key(TINY, project)


@pytest.mark.slow
def test_states_missing_fresh_stale(project):
    generated = project / "docs" / "generated"
    assert recording_state(TINY, project, generated)[0] == "missing"
    launch.record(TINY, "cpu", project, generated)
    assert recording_state(TINY, project, generated)[0] == "fresh"
    path = project / TINY.snippet
    path.write_text(path.read_text() + "\n# edited\n")
    assert recording_state(TINY, project, generated)[0] == "stale"
