"""Global interpreter state that a test must leave as it found it, and the fixtures that see to it.

The root conftest.py uses ``interpreter_left_as_found`` for every test, and the docs' Sybil collection asks
for it for every code block (Sybil's items do not get autouse fixtures). A test that changes the recursion
limit, the working directory or the umask and does not put it back fails, and the state is put back, so
that the next test starts from where the others did: the loader once answered differently after a test
that compiled something had raised ``sys.getrecursionlimit()``.
"""

import contextlib
import os
import sys

import pytest


def umask():
    """The process's umask (os.umask sets it as it reads it: set it back at once)."""
    mask = os.umask(0o022)
    os.umask(mask)
    return mask


def working_directory():
    try:
        return os.getcwd()
    except FileNotFoundError:
        return None  # removed from under the process


def interpreter_state():
    return {"sys.getrecursionlimit()": sys.getrecursionlimit(), "the working directory": working_directory(),
            "the umask": umask()}


def restore(state):
    sys.setrecursionlimit(state["sys.getrecursionlimit()"])
    if state["the working directory"] is not None:
        os.chdir(state["the working directory"])
    os.umask(state["the umask"])


def shown(name, value):
    return oct(value) if name == "the umask" else repr(value)


def changes(before, after):
    """One line for what differs between two states; "" when nothing does."""
    return "; ".join(f"{name} {shown(name, before[name])} became {shown(name, after[name])}"
                     for name in before if after[name] != before[name])


@pytest.fixture(autouse=True)
def interpreter_left_as_found():
    """Fails a test that leaves the recursion limit, the working directory or the umask changed."""
    before = interpreter_state()
    yield
    after = interpreter_state()
    if after != before:
        restore(before)
        pytest.fail(f"the test changed global interpreter state and did not restore it: {changes(before, after)}",
                    pytrace=False)


@contextlib.contextmanager
def recursion_limit_restored():
    """For code that runs Inductor in this process: its compile_fx raises sys.getrecursionlimit() to 2000
    (torch/_inductor/compile_fx.py, "lift the maximum depth of the Python interpreter stack") and leaves it."""
    before = sys.getrecursionlimit()
    try:
        yield
    finally:
        sys.setrecursionlimit(before)


@pytest.fixture
def compiles_in_process():
    """A test that compiles with Inductor in this process asks for this fixture: the limit is put back after."""
    with recursion_limit_restored():
        yield
