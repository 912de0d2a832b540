"""The errors profguide reports in one line. Standard library only: the recorder imports them on a bare GPU box.

``profguide``'s command prints a ``ProfguideError`` as one line and exits 2; anything else is a bug and keeps
its traceback.
"""


class ProfguideError(Exception):
    """Something the person running profguide can fix: the message is one line that says what."""


class TraceError(ProfguideError, ValueError):
    """The file is not a trace profguide can read."""


class UsageError(ProfguideError):
    """A request that cannot be met as asked: an unknown step or recording, a window outside the trace."""


class OutputError(ProfguideError):
    """A file to write is not one profguide may replace (a device, a link, a folder, the input itself)."""


class RecordingError(ProfguideError):
    """A recording could not be made or would overwrite a better one."""


class ProjectError(ProfguideError):
    """The guide's source checkout is not where the command needs it."""
