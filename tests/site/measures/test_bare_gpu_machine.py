"""The parts and their measures import on a bare GPU machine: torch and the standard library, no numpy, no msgspec."""

import subprocess
import sys

from tests.helpers import ROOT

# Every process started with this first on its path finds these packages absent, as on the bare GPU machine.
BLOCKER = """import sys
for name in ("numpy", "msgspec", "mkdocs", "hypothesis", "sybil", "playwright"):
    sys.modules[name] = None
"""


def test_the_catalogue_and_every_measure_import_with_the_standard_library_alone(tmp_path):
    (tmp_path / "sitecustomize.py").write_text(BLOCKER)
    script = ("import profguide.site.catalogue as c, profguide.site.measures as m\n"
              "print(len(c.RECORDINGS), len(m.every_kind()))\n"
              "import numpy\n")
    done = subprocess.run([sys.executable, "-c", script], cwd=ROOT, capture_output=True, text=True,
                          env={"PYTHONPATH": f"{tmp_path}:{ROOT}", "PATH": ""})
    recordings, kinds = map(int, done.stdout.split())
    assert recordings > 0 and kinds > 90
    assert "import of numpy halted" in done.stderr  # the blocker works
