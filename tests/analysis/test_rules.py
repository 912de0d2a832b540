"""Every rule fires on the run of the guide it names as showing it, and on none of the one it names as clean;
the rule table is well formed and its findings say where to look."""

import re
from typing import get_args

import pytest

from profguide.analysis import rules_device, rules_guide, rules_program
from profguide.analysis.rule import SOURCES, page_url
from profguide.analysis.rules import JOB_RULES, RULES
from profguide.analysis.vocabulary import FindingSource, RuleId, RuleSource
from profguide.site.data import run_data
from tests.helpers import ROOT

EVERY = (*RULES, *JOB_RULES)


def rule_ids(found):
    return [row["rule"] for row in found]


@pytest.mark.parametrize("rule", [rule for rule in RULES if rule.shown_by], ids=lambda rule: rule.id)
def test_a_rule_fires_on_the_run_that_shows_it(rule):
    summary = run_data(rule.shown_by, ROOT).summary
    assert rule.id in rule_ids(summary["findings"]), f"{rule.id} did not fire on {rule.shown_by}"


@pytest.mark.parametrize("rule", RULES, ids=lambda rule: rule.id)
def test_a_rule_is_quiet_on_the_run_it_names_clean(rule):
    summary = run_data(rule.clean_on, ROOT).summary
    assert rule.id not in rule_ids(summary["findings"]), f"{rule.id} fired on {rule.clean_on}"


@pytest.mark.parametrize("rule", JOB_RULES, ids=lambda rule: rule.id)
def test_a_job_rule_fires_on_the_job_that_shows_it_and_not_on_the_clean_one(rule):
    assert rule.id in rule_ids(run_data(rule.shown_by, ROOT).job["findings"])
    assert rule.id not in rule_ids(run_data(rule.clean_on, ROOT).job["findings"])


def test_the_rule_table_is_well_formed():
    ids = [rule.id for rule in EVERY]
    assert len(ids) == len(set(ids)), "two rules share an id"
    for rule in EVERY:
        assert re.fullmatch(r"[a-z0-9]+(-[a-z0-9]+)*", rule.id), rule.id
        assert rule.source in SOURCES
        assert rule.shown_by != rule.clean_on and rule.clean_on
        page, _, anchor = rule.page.partition("#")
        assert (ROOT / "docs" / page).is_file(), f"{rule.id}: no page {page}"
        assert anchor, f"{rule.id}: its page link names no section"


def test_a_page_link_is_the_built_sites_address():
    assert page_url("reading-output/input-pipeline.md#workers") == "reading-output/input-pipeline/#workers"
    assert page_url("reading-output/index.md#x") == "reading-output/#x"
    assert page_url("index.md") == ""


def test_the_rules_are_every_rule_modules_in_order_and_their_ids_the_vocabulary():
    assert RULES == (*rules_program.RULES, *rules_device.RULES, *rules_guide.RULES)
    assert JOB_RULES == rules_guide.JOB_RULES
    assert sorted(rule.id for rule in EVERY) == sorted(get_args(RuleId))


def test_the_sources_are_the_vocabularys_in_both_forms():
    assert tuple(SOURCES) == get_args(RuleSource)
    assert tuple(SOURCES.values()) == get_args(FindingSource)
