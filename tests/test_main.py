"""``python -m profguide`` and the console script: Ctrl-C at any moment is one line and status 130."""

import os
import re
import subprocess
import sys

from tests.helpers import ROOT

# Run in a child: a finder that raises KeyboardInterrupt when profguide.cli is imported, as Ctrl-C during
# start-up does (the import is most of start-up), then the entry point ENTRY names.
INTERRUPTED_IMPORT = """
import runpy, sys

class Interrupts:
    def find_spec(self, name, path=None, target=None):
        if name == "profguide.cli":
            raise KeyboardInterrupt

sys.meta_path.insert(0, Interrupts())
{entry}
"""
AS_MODULE = 'sys.argv = ["profguide", "list"]; runpy.run_module("profguide", run_name="__main__")'
AS_SCRIPT = 'from profguide.__main__ import run; sys.exit(run())'


def interrupted(entry):
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    return subprocess.run([sys.executable, "-c", INTERRUPTED_IMPORT.format(entry=entry)], env=env,
                          capture_output=True, text=True, timeout=60)


def test_ctrl_c_while_python_m_profguide_starts_is_one_line_and_130():
    finished = interrupted(AS_MODULE)
    assert (finished.returncode, finished.stderr, finished.stdout) == (130, "profguide: interrupted\n", "")


def test_ctrl_c_while_the_console_scripts_entry_starts_is_one_line_and_130():
    finished = interrupted(AS_SCRIPT)
    assert (finished.returncode, finished.stderr) == (130, "profguide: interrupted\n")


def test_the_console_script_enters_where_start_up_is_guarded():
    # The script pip writes imports its target module first: a target in profguide.cli could not catch
    # Ctrl-C during that import.
    [entry] = re.findall(r'^profguide = "(.*)"$', (ROOT / "pyproject.toml").read_text(), re.MULTILINE)
    assert entry == "profguide.__main__:run"
