"""``python -m tests.goldens``: write every golden anew (``make goldens``)."""

import sys

from tests.goldens import ROOT, write_all

for path in write_all():
    print(path.relative_to(ROOT), file=sys.stderr)
