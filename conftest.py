# Sybil runs the Python blocks of every page under docs/ (see tests/docs_collection.py).
# Every test, and every block of the docs, leaves the recursion limit, the working directory and the umask
# as it found them (tests/interpreter_state.py); pytester tests that fixture.
from tests.docs_collection import docs_sybil
from tests.interpreter_state import compiles_in_process, interpreter_left_as_found

pytest_plugins = ["pytester"]
pytest_collect_file = docs_sybil().pytest()

__all__ = ["compiles_in_process", "interpreter_left_as_found", "pytest_collect_file"]
