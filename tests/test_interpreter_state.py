"""The fixture that fails a test (or a docs block) which leaves global interpreter state changed."""

import re
import sys

from tests.helpers import ROOT
from tests.interpreter_state import interpreter_state

CONFTEST = f"""
import sys
from pathlib import Path
sys.path.insert(0, {str(ROOT)!r})
from tests.docs_collection import docs_sybil
from tests.interpreter_state import compiles_in_process, interpreter_left_as_found
pytest_collect_file = docs_sybil(path=Path(__file__).parent).pytest()
"""

TESTS = """
import os, sys

def test_changes_the_umask():
    os.umask(os.umask(0) ^ 0o007)

def test_changes_the_working_directory(tmp_path):
    os.chdir(tmp_path)

def test_raises_the_recursion_limit():
    sys.setrecursionlimit(sys.getrecursionlimit() + 1000)

def test_puts_back_what_it_changes(tmp_path, monkeypatch):
    os.umask(os.umask(0o077))
    monkeypatch.chdir(tmp_path)
    monkeypatch.setattr(sys, "path", [])

def test_compiles_in_process(compiles_in_process):
    sys.setrecursionlimit(sys.getrecursionlimit() + 1000)
"""

PAGE = """# A page

```python
import os
here = os.getcwd()
```

```python
assert os.getcwd() == here  # the page's scratch folder, from one block to the next
```

```python
os.umask(os.umask(0) ^ 0o007)
```

```python
os.chdir("/")
```

```python
import sys
sys.setrecursionlimit(sys.getrecursionlimit() + 1000)  # as torch.compile(model) does, the first time: put back
```

```python
sys.setrecursionlimit(sys.getrecursionlimit() + 1000)  # failed
```
"""


def test_a_test_that_leaves_the_state_changed_fails_and_the_state_is_put_back(pytester):
    before = interpreter_state()
    pytester.makeconftest(CONFTEST)
    pytester.makepyfile(test_state=TESTS)
    pytester.makefile(".md", page=PAGE)
    result = pytester.runpytest("-p", "no:cacheprovider")
    # Each test's and block's own code passes; the fixture fails, at teardown, the six that left something changed.
    result.assert_outcomes(passed=11, errors=6)
    failed = {line.split(" - ")[0].removeprefix("ERROR ") for line in result.outlines if line.startswith("ERROR ")}
    assert failed == {"test_state.py::test_changes_the_umask", "test_state.py::test_changes_the_working_directory",
                      "test_state.py::test_raises_the_recursion_limit", "page.md::line:12,column:1",
                      "page.md::line:16,column:1", "page.md::line:25,column:1"}, result.outlines
    said = dict(re.findall(r"_ ERROR at teardown of (.+?) _+\n(.+)", result.stdout.str()))
    umask = f"the umask {oct(before['the umask'])} became {oct(before['the umask'] ^ 0o007)}"
    assert umask in said["test_changes_the_umask"] and umask in said["page.md line=12 column=1"]
    assert said["test_changes_the_working_directory"].endswith("basetemp/test_changes_the_working_direc0'")
    # The page's scratch folder is where each of its blocks starts; the block that left it is the one failed.
    assert re.search(r"the working directory '.*profguide-docs-[^']+' became '/'$", said["page.md line=16 column=1"])
    limit = sys.getrecursionlimit()
    raised = f"sys.getrecursionlimit() {limit} became {limit + 1000}"
    assert said["test_raises_the_recursion_limit"].endswith(raised)
    assert said["page.md line=25 column=1"].endswith(raised)  # the block before it calls torch.compile: put back
    # What the inner run left behind (pytester itself puts the working directory back when this test ends).
    assert {**interpreter_state(), "the working directory": None} == {**before, "the working directory": None}
