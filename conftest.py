# Sybil runs the Python blocks of every page under docs/ (see tests/docs_collection.py).
from tests.docs_collection import docs_sybil

pytest_collect_file = docs_sybil().pytest()
