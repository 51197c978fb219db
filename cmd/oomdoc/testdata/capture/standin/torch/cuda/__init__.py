"""STAND-IN for torch.cuda: lazy initialisation and a toy 16 GiB device."""

import os
import traceback

from . import memory  # noqa: F401

EVENTS = []  # what happened, in order: the test checks history starts at CUDA init
CAPACITY = 16 << 30
_initialized = False
_queued = []
_HERE = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def is_initialized():
    return _initialized


def _lazy_call(fn, **kwargs):
    if _initialized:
        fn()
    else:
        _queued.append(fn)


def _lazy_init():
    global _initialized
    if _initialized:
        return
    EVENTS.append("cuda init")
    _initialized = True
    for fn in _queued:
        fn()


def _stack():
    """The caller's Python frames, innermost first, without the stand-in's own."""
    frames = [f for f in traceback.extract_stack() if not os.path.abspath(f.filename).startswith(_HERE)]
    return [{"filename": f.filename, "line": f.lineno, "name": f.name} for f in reversed(frames)]


def alloc(nbytes):
    """Allocate nbytes on the toy device (rounded to 2 MiB, as large segments are)."""
    from .. import OutOfMemoryError, _C

    _lazy_init()
    size = -(-nbytes // (2 << 20)) * (2 << 20)
    used = sum(b["size"] for b in memory.BLOCKS)
    frames = _stack() if memory.RECORDING else []
    if used + size > CAPACITY:
        free = CAPACITY - used
        memory.trace({"action": "oom", "device_free": free, "size": size, "stream": 0, "frames": frames})
        for obs in _C.OBSERVERS:
            obs(0, size, CAPACITY, free)
        gib = 1 << 30
        raise OutOfMemoryError(
            "CUDA out of memory. Tried to allocate %.2f GiB. GPU 0 has a total capacity of %.2f GiB of which %.2f GiB is free. "
            "Including non-PyTorch memory, this process has %.2f GiB memory in use. Of the allocated memory %.2f GiB is allocated "
            "by PyTorch, and 0 bytes is reserved by PyTorch but unallocated. If reserved but unallocated memory is large try setting "
            "PYTORCH_CUDA_ALLOC_CONF=expandable_segments:True to avoid fragmentation.  See documentation for Memory Management  "
            "(https://pytorch.org/docs/stable/notes/cuda.html#environment-variables)"
            % (size / gib, CAPACITY / gib, free / gib, used / gib, used / gib))
    addr = 0x7F0000000000 + used
    memory.BLOCKS.append({"address": addr, "size": size, "requested_size": nbytes, "state": "active_allocated", "frames": frames})
    memory.trace({"action": "alloc", "addr": addr, "size": size, "stream": 0, "frames": frames})
    return addr
