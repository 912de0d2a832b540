"""profguide claims: the guide's claims counted, and a refresh compared with the counts before it."""

import json

import pytest

from profguide import cli


@pytest.fixture(scope="module")
def counted():
    """What ``profguide claims --json`` prints for the committed recordings."""
    with pytest.MonkeyPatch.context() as patch:
        printed = []
        patch.setattr("sys.stdout.write", printed.append)
        assert cli.main(["claims", "--json"]) == 0
    return json.loads("".join(printed))


def test_the_counts_add_up_and_the_committed_guide_fails_no_claim(counted):
    outcomes = [entry["outcome"] for entry in counted["outcomes"].values()]
    assert counted["claims"] == len(outcomes) == counted["holding"] + counted["waiting"]
    assert (counted["failing"], counted["checked"]) == (0, outcomes.count("holds"))
    assert counted["waiting"] == outcomes.count("waits")


def test_a_refresh_that_checks_fewer_claims_is_refused_naming_them(counted, tmp_path, capsys):
    waiting = next(anchor for anchor, entry in counted["outcomes"].items() if entry["outcome"] == "waits")
    before = {**counted, "checked": counted["checked"] + 1, "waiting": counted["waiting"] - 1,
              "outcomes": {**counted["outcomes"], waiting: {**counted["outcomes"][waiting], "outcome": "holds"}}}
    path = tmp_path / "before.json"
    path.write_text(json.dumps(before))
    assert cli.main(["claims", "--since", str(path)]) == 1
    printed = capsys.readouterr().out
    entry = counted["outcomes"][waiting]
    assert f"the refresh checks fewer claims than before: {before['checked']} → {counted['checked']}" in printed
    assert f'{entry["page"]}: "{entry["says"]}" was checked and is now waits' in printed
    assert f"| checked against their runs | {before['checked']} | {counted['checked']} |" in printed


def test_the_same_counts_since_themselves_are_taken(counted, tmp_path, capsys):
    path = tmp_path / "before.json"
    path.write_text(json.dumps(counted))
    assert cli.main(["claims", "--since", str(path)]) == 0
    assert "refused" not in capsys.readouterr().out


def test_counts_that_are_not_the_claims_are_one_line_and_exit_2(tmp_path, capsys):
    path = tmp_path / "before.json"
    path.write_text('{"checked": "many"}')
    assert cli.main(["claims", "--since", str(path)]) == 2
    assert capsys.readouterr().err == (f"profguide: {path}: not the claims' counts that `profguide claims --json` "
                                       "writes\n")
