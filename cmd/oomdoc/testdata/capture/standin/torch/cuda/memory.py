"""STAND-IN for torch.cuda.memory: history recording and snapshot dumps."""

import pickle

RECORDING = None  # max_entries once _record_memory_history was called
BLOCKS = []
TRACE = []


def _record_memory_history(enabled="all", context="all", stacks="all", max_entries=None, **kwargs):
    from . import EVENTS, is_initialized

    global RECORDING
    if not is_initialized():
        raise RuntimeError("stand-in: history must be enabled after CUDA init in this test")
    RECORDING = max_entries
    EVENTS.append("record_memory_history max_entries=%s" % max_entries)


def trace(entry):
    if RECORDING:
        TRACE.append(entry)
        del TRACE[:-RECORDING]


def _snapshot():
    """The structure torch/cuda/memory.py documents: one segment per block."""
    segments = []
    for b in BLOCKS:
        segments.append({
            "device": 0, "address": b["address"], "total_size": b["size"], "allocated_size": b["size"],
            "active_size": b["size"], "requested_size": b["requested_size"], "stream": 0,
            "segment_type": "large", "segment_pool_id": (0, 0), "is_expandable": False,
            "frames": b["frames"], "blocks": [dict(b)],
        })
    return {"segments": segments, "device_traces": [list(TRACE)], "allocator_settings": {}}


def _dump_snapshot(filename="dump_snapshot.pickle"):
    with open(filename, "wb") as f:
        pickle.dump(_snapshot(), f)
