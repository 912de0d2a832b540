"""Every kind of measure has a known answer: a row in one of the tables of this package."""

import importlib
import pkgutil

import tests.site.measures
from profguide.site.measures import every_kind


def answered_kinds():
    """The kinds of measure of every row of every table (``ANSWERS``) in this package's test modules."""
    kinds = set()
    for module in pkgutil.iter_modules(tests.site.measures.__path__):
        table = getattr(importlib.import_module(f"{tests.site.measures.__name__}.{module.name}"), "ANSWERS", [])
        kinds |= {type(row.measure) for row in table}
    return kinds


def test_every_kind_of_measure_has_a_row():
    unanswered = sorted(kind.__qualname__ for kind in set(every_kind()) - answered_kinds())
    assert unanswered == [], f"kinds of measure without a known-answer row in tests/site/measures: {unanswered}"


def test_each_table_holds_the_kinds_of_its_own_module():
    """A table named after a measures module (test_host.py for host.py) holds that module's kinds alone."""
    for module in pkgutil.iter_modules(tests.site.measures.__path__):
        table = getattr(importlib.import_module(f"{tests.site.measures.__name__}.{module.name}"), "ANSWERS", [])
        topic = module.name.removeprefix("test_")
        assert {type(row.measure).__module__ for row in table} <= {f"profguide.site.measures.{topic}"}, module.name
