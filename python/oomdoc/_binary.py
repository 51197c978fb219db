"""Where the oomdoc binary bundled in this package lives."""

import os
import stat

_NAME = "oomdoc.exe" if os.name == "nt" else "oomdoc"


def binary_path():
    """Return the path of the oomdoc binary to run.

    ``OOMDOC_BINARY`` names one explicitly (a development build, a test);
    otherwise it is the one the wheel put beside this file. The path is
    returned even when the file is missing, so that the caller's error
    names it.
    """
    explicit = os.environ.get("OOMDOC_BINARY")
    if explicit:
        return explicit
    path = os.path.join(os.path.dirname(os.path.abspath(__file__)), "bin", _NAME)
    _ensure_executable(path)
    return path


def _ensure_executable(path):
    """Restore the executable bit an installer may have dropped."""
    if os.name == "nt":
        return
    try:
        mode = os.stat(path).st_mode
        if not mode & stat.S_IXUSR:
            os.chmod(path, mode | stat.S_IXUSR | stat.S_IXGRP | stat.S_IXOTH)
    except OSError:
        pass
