"""oomdoc explains out-of-memory crashes: what ran out, what holds the
memory, why, and which change fixes it.

    import oomdoc
    oomdoc.install()   # an uncaught out-of-memory error now ends with a report

In a notebook: ``%load_ext oomdoc``. From the command line: ``oomdoc
crash.log``, ``python -m oomdoc crash.log``, ``oomdoc run -- python
train.py``.
"""

import sys
import threading

from oomdoc._hook import enable_capture, is_oom, make_excepthook, make_thread_excepthook, report

try:
    from oomdoc._version import __version__
except ImportError:  # a source tree, not an installed wheel
    __version__ = "0+unknown"

__all__ = ["install", "uninstall", "is_oom", "report", "load_ipython_extension", "unload_ipython_extension", "__version__"]


def install(capture=False):
    """Install the hook on sys.excepthook and threading.excepthook (once;
    calling again changes nothing). On an uncaught out-of-memory exception the usual traceback is
    printed first, then oomdoc's report; the exit status stays Python's.
    Other exceptions are left as they were.

    capture=True also records PyTorch's memory history so that the report
    can say which allocations held the memory (when the wheel ships
    oomdoc._capture; otherwise it is ignored). Returns whether capture is
    on.
    """
    if not getattr(sys.excepthook, "oomdoc_previous", None):
        sys.excepthook = make_excepthook(sys.excepthook)
    if not getattr(threading.excepthook, "oomdoc_previous", None):
        threading.excepthook = make_thread_excepthook(threading.excepthook)
    return enable_capture() if capture else False


def uninstall():
    """Put back the excepthooks install() replaced."""
    previous = getattr(sys.excepthook, "oomdoc_previous", None)
    if previous is not None:
        sys.excepthook = previous
    previous = getattr(threading.excepthook, "oomdoc_previous", None)
    if previous is not None:
        threading.excepthook = previous


def load_ipython_extension(ipython):
    """``%load_ext oomdoc``: explain out-of-memory errors raised in cells."""
    from oomdoc._ipython import load

    load(ipython)


def unload_ipython_extension(ipython):
    """``%unload_ext oomdoc``."""
    from oomdoc._ipython import unload

    unload(ipython)
