"""oomdoc run --capture: arm the memory-snapshot hook in this Python.

oomdoc puts the directory holding this file first on PYTHONPATH for the
command it runs. Python imports it at start-up in place of any other
sitecustomize, so it first runs the one Python would have found without it
(searching the rest of sys.path), then calls oomdoc_capture.enable() with
the directory oomdoc reads the snapshot from. Nothing here imports torch.
"""

import os
import sys


def _chain():
    """Run the sitecustomize that this one shadows, if there is one."""
    import importlib.machinery
    import importlib.util

    here = os.path.dirname(os.path.abspath(__file__))
    rest = []
    for entry in sys.path:
        try:
            if os.path.abspath(entry or os.curdir) == here:
                continue
        except (TypeError, ValueError):
            continue
        rest.append(entry)
    spec = importlib.machinery.PathFinder.find_spec("sitecustomize", rest)
    if spec is None or spec.loader is None:
        return
    module = importlib.util.module_from_spec(spec)
    sys.modules["_oomdoc_chained_sitecustomize"] = module
    spec.loader.exec_module(module)


try:
    _chain()
except Exception as e:  # the user's sitecustomize failed: say so, as Python would
    sys.stderr.write("Error in sitecustomize; set PYTHONVERBOSE for traceback:\n%s: %s\n" % (type(e).__name__, e))

_dir = os.environ.get("OOMDOC_CAPTURE_DIR")
if _dir:
    try:
        import oomdoc_capture

        oomdoc_capture.enable(_dir, int(os.environ.get("OOMDOC_CAPTURE_MAX_ENTRIES") or 100000))
    except Exception as e:
        sys.stderr.write("oomdoc capture: %s\n" % e)
