"""profguide.progress: a bar on a terminal, nothing elsewhere."""

import io

from profguide import progress


def test_progress_bar_only_on_a_terminal():
    assert progress.bar("loading", stream=io.StringIO()) is None

    class Terminal(io.StringIO):
        def isatty(self):
            return True

    terminal = Terminal()
    update = progress.bar("loading t.json", stream=terminal, width=10)
    update(0.5)
    update(0.5)  # nothing new to draw
    assert terminal.getvalue() == "\rloading t.json [#####     ]  50%"
    update(1.0)
    assert "[##########] 100%" in terminal.getvalue() and terminal.getvalue().endswith("\r")
