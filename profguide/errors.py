"""The errors profguide reports in one line. Standard library only: the recorder imports them on a bare GPU box."""


class TraceError(ValueError):
    """The file is not a trace profguide can read; the message is one line."""


class RecordingError(Exception):
    """A recording could not be made or would overwrite a better one."""


class ProjectError(Exception):
    """The guide's source checkout is not where the command needs it."""


class OutputError(Exception):
    """A file to write is not one profguide may replace (a device, a link, a folder, the input itself)."""
