"""Capture a PyTorch CUDA memory snapshot at the moment memory runs out.

This module is oomdoc's capture hook. `oomdoc run --capture -- CMD` puts it
on PYTHONPATH with a sitecustomize that calls enable(); the Python package
ships it as oomdoc/_capture.py, and oomdoc.install(capture=True) calls the
same enable().

enable() never imports torch. If the program has imported torch it arms
now, otherwise an import hook arms it when the program imports torch. Arming
does not initialise CUDA either: memory history is switched on when CUDA
initialises (torch.cuda._lazy_call), so CUDA_VISIBLE_DEVICES set after
`import torch` still counts and nothing changes for a program that never
uses the GPU.

Once armed, torch.cuda.memory._record_memory_history(max_entries=N) records
the stack of every allocation and the last N allocator events, and an
observer attached with torch._C._cuda_attach_out_of_memory_observer dumps
torch.cuda.memory._dump_snapshot() into the dump directory when the
allocator fails, with the observer's figures beside it as JSON.

Overhead: recording stacks slows every CUDA allocation (PyTorch documents
about 2 us per Python trace, more with C++ frames) and keeps up to N trace
entries in host memory (several KB each with deep stacks); the dump at the
failure can take seconds and, with large N, hundreds of MB of disk. It is
off unless asked for.

Standard library only; every failure is reported in one line on stderr and
never stops the program.
"""

import importlib.abc
import json
import os
import sys
import threading

_lock = threading.Lock()
_state = {"dir": None, "max_entries": 100000, "armed": False, "path": None, "hooked": False}


def _say(msg):
    try:
        sys.stderr.write("oomdoc capture: %s\n" % msg)
    except Exception:
        pass


def enable(dump_dir, max_entries=100000):
    """Capture a snapshot into dump_dir when CUDA memory runs out.

    Returns True when capture is set up — now, if torch is imported, or at
    its import — and False when it cannot be (dump_dir unusable, or a torch
    without the memory-history hooks).
    """
    try:
        os.makedirs(dump_dir, exist_ok=True)
    except OSError as e:
        _say("cannot use %s: %s" % (dump_dir, e))
        return False
    with _lock:
        _state["dir"] = os.path.abspath(dump_dir)
        _state["max_entries"] = int(max_entries)
    torch = sys.modules.get("torch")
    if torch is not None and hasattr(torch, "cuda"):
        return _arm(torch)
    _hook_import()
    return True


def snapshot_path():
    """The snapshot dumped at the last out-of-memory failure, or None."""
    return _state["path"]


def _arm(torch):
    with _lock:
        if _state["armed"]:
            return True
        _state["armed"] = True
    try:
        cuda = torch.cuda
        record = cuda.memory._record_memory_history
        attach = torch._C._cuda_attach_out_of_memory_observer
    except AttributeError as e:
        _say("this torch has no memory history hooks (%s); no snapshot will be taken" % e)
        return False

    def start():
        try:
            record(max_entries=_state["max_entries"])
            attach(_observer)
        except Exception as e:  # a CPU-only build, an old torch
            _say("could not record memory history: %s" % e)

    lazy = getattr(cuda, "_lazy_call", None)
    initialized = getattr(cuda, "is_initialized", lambda: False)
    if initialized() or lazy is None:
        start()
    else:
        lazy(start)
    return True


def _observer(device, alloc, device_total, device_free):
    """Called by the allocator as it fails: dump the snapshot and the figures."""
    torch = sys.modules.get("torch")
    d = _state["dir"]
    if torch is None or d is None:
        return
    path = os.path.join(d, "snapshot-%d.pickle" % os.getpid())
    tmp = path + ".tmp"
    try:
        torch.cuda.memory._dump_snapshot(tmp)
        with open(path + ".json.tmp", "w") as f:
            json.dump({"device": device, "alloc": alloc, "device_total": device_total, "device_free": device_free}, f)
        os.replace(path + ".json.tmp", path + ".json")
        os.replace(tmp, path)
        _state["path"] = path
    except Exception as e:
        _say("could not write the memory snapshot: %s" % e)


class _TorchFinder(importlib.abc.MetaPathFinder):
    """Arms capture once `import torch` has finished."""

    def find_spec(self, name, path=None, target=None):
        if name != "torch":
            return None
        for finder in sys.meta_path:
            if finder is self or not hasattr(finder, "find_spec"):
                continue
            spec = finder.find_spec(name, path, target)
            if spec is not None:
                break
        else:
            return None
        if spec.loader is None or not hasattr(spec.loader, "exec_module"):
            return spec
        spec.loader = _ArmingLoader(spec.loader)
        return spec


class _ArmingLoader(importlib.abc.Loader):
    """Runs torch's own loader, then arms capture."""

    def __init__(self, inner):
        self.inner = inner

    def create_module(self, spec):
        return self.inner.create_module(spec)

    def exec_module(self, module):
        self.inner.exec_module(module)
        _unhook_import()
        try:
            _arm(module)
        except Exception as e:
            _say("could not arm: %s" % e)

    def __getattr__(self, name):  # get_resource_reader, is_package, …
        return getattr(self.inner, name)


_finder = _TorchFinder()


def _hook_import():
    with _lock:
        if _state["hooked"]:
            return
        _state["hooked"] = True
    sys.meta_path.insert(0, _finder)


def _unhook_import():
    try:
        sys.meta_path.remove(_finder)
    except ValueError:
        pass
