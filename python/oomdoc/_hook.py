"""The uncaught-exception hook: print the usual traceback, then, for an
out-of-memory failure only, oomdoc's report on it."""

import atexit
import os
import re
import shutil
import subprocess
import sys
import tempfile
import traceback

from oomdoc import _facts
from oomdoc._binary import binary_path

# RuntimeError texts that are device out-of-memory failures (PyTorch's CUDA,
# HIP, MPS and XPU allocators; the CUDA runtime; cuBLAS).
_OOM_TEXT = re.compile(
    r"(?:CUDA|HIP|XPU) out of memory|MPS backend out of memory|"
    r"(?:CUDA|HIP) error: out of memory|hipErrorOutOfMemory|CUBLAS_STATUS_ALLOC_FAILED|CUDNN_STATUS_ALLOC_FAILED|"
    r"RESOURCE_EXHAUSTED|DefaultCPUAllocator: can't allocate memory|"
    r"CUDNN_STATUS_NOT_ENOUGH_WORKSPACE|NCCL.*out of memory",
    re.S,
)

# vLLM's memory-budget failures at engine start, raised as ValueError
# (vllm/worker/worker.py, vllm/v1/core/kv_cache_utils.py, gpu_worker.py).
_SERVING_TEXT = re.compile(
    r"No available memory for the cache blocks|"
    r"larger than the maximum number of tokens that can be stored in KV cache|"
    r"KV cache is needed, which is larger than the available KV cache memory|"
    r"on startup is less than desired GPU memory utilization"
)

# Exception class names that are out-of-memory failures wherever they come
# from: torch.OutOfMemoryError and torch.cuda.OutOfMemoryError (the same
# class since 2.1), TensorFlow's ResourceExhaustedError, NumPy's
# _ArrayMemoryError (a MemoryError).
_OOM_NAMES = frozenset(("OutOfMemoryError", "ResourceExhaustedError"))

_TIMEOUT_S = 60


def is_oom(exc):
    """Whether exc (or an exception it was raised from or during) is an
    out-of-memory failure."""
    seen = 0
    while exc is not None and seen < 8:
        if isinstance(exc, MemoryError):
            return True
        names = {c.__name__ for c in type(exc).__mro__}
        if names & _OOM_NAMES:
            return True
        runtime = isinstance(exc, RuntimeError) or "XlaRuntimeError" in names or "JaxRuntimeError" in names
        if runtime or isinstance(exc, ValueError):
            try:
                text = str(exc)[:20000]
                if runtime and _OOM_TEXT.search(text) or isinstance(exc, ValueError) and _SERVING_TEXT.search(text):
                    return True
            except Exception:
                pass
        exc = exc.__cause__ or exc.__context__
        seen += 1
    return False


def failure_text(etype, value, tb):
    """The input oomdoc reads: the live facts, then the traceback as Python
    printed it."""
    trace = "".join(traceback.format_exception(etype, value, tb))
    try:
        message = str(value)
    except Exception:
        message = ""
    return _facts.gather(message) + "\n" + trace


def snapshot_path():
    """The memory snapshot oomdoc._capture dumped at the failure, if
    capture is on and it wrote one."""
    capture = sys.modules.get("oomdoc._capture")
    if capture is None:
        return None
    try:
        path = capture.snapshot_path()
    except Exception:
        return None
    if path and os.path.isfile(path):
        return path
    return None


def run_oomdoc(text, args=(), stdout=None):
    """Run the binary on text (as standard input) with args; the report goes
    to stdout (a file descriptor), or is returned when stdout is None.
    Returns (exit status, report or None, the binary's stderr)."""
    cmd = [binary_path()] + list(args) + ["-"]
    snap = snapshot_path()
    if snap:
        cmd.append(snap)
    proc = subprocess.run(
        cmd,
        input=text.encode("utf-8", "replace"),
        stdout=stdout if stdout is not None else subprocess.PIPE,
        stderr=subprocess.PIPE,
        timeout=_TIMEOUT_S,
        check=False,
    )
    out = None if stdout is not None else proc.stdout.decode("utf-8", "replace")
    return proc.returncode, out, proc.stderr.decode("utf-8", "replace")


def _stream_fd(stream):
    """The descriptor behind stream when it is the process's own stderr, so
    that the binary sees the terminal and picks colour and width itself."""
    try:
        if stream is sys.__stderr__:
            return stream.fileno()
    except Exception:
        pass
    return None


def report(etype, value, tb, stream=None):
    """Write oomdoc's report on this failure to stream (sys.stderr)."""
    stream = stream if stream is not None else sys.stderr
    text = failure_text(etype, value, tb)
    fd = _stream_fd(stream)
    stream.write("\n")
    stream.flush()
    code, out, err = run_oomdoc(text, stdout=fd)
    if out:
        stream.write(out)
    if err.strip():
        stream.write(err if err.endswith("\n") else err + "\n")
    if code not in (0, 3):
        raise RuntimeError("oomdoc exited with status %d" % code)
    stream.flush()


def _one_line(err):
    text = " ".join(("%s: %s" % (type(err).__name__, err)).split())
    return text[:300]


def report_safely(etype, value, tb, stream=None):
    """report, but a failure of its own is one line, never an exception."""
    try:
        if is_oom(value):
            report(etype, value, tb, stream)
    except BaseException as err:  # noqa: B902 - the hook must never raise
        try:
            (stream or sys.stderr).write("oomdoc: could not explain this failure (%s)\n" % _one_line(err))
        except Exception:
            pass


def make_excepthook(previous):
    """An excepthook that runs previous (which prints the traceback), then
    explains an out-of-memory failure."""

    def oomdoc_excepthook(etype, value, tb):
        try:
            previous(etype, value, tb)
        except Exception:
            sys.__excepthook__(etype, value, tb)
        report_safely(etype, value, tb)

    oomdoc_excepthook.oomdoc_previous = previous
    return oomdoc_excepthook


def make_thread_excepthook(previous):
    """The same for threading.excepthook: a worker thread that dies of an
    out-of-memory error gets its traceback, then the report."""

    def oomdoc_thread_excepthook(args):
        try:
            previous(args)
        except Exception:
            traceback.print_exception(args.exc_type, args.exc_value, args.exc_traceback)
        if args.exc_value is not None:
            report_safely(args.exc_type, args.exc_value, args.exc_traceback)

    oomdoc_thread_excepthook.oomdoc_previous = previous
    return oomdoc_thread_excepthook


def enable_capture():
    """Turn on oomdoc._capture (shipped in the wheel when `oomdoc run
    --capture` is built) so that the report can read a memory snapshot.
    Returns whether capture is on. The snapshot's directory is removed at
    exit unless a snapshot was written there (the report names it)."""
    try:
        from oomdoc import _capture  # noqa: F401 - optional module
    except Exception:
        return False
    try:
        dump_dir = tempfile.mkdtemp(prefix="oomdoc-capture-")
        atexit.register(_remove_unused, dump_dir)
        return bool(_capture.enable(dump_dir))
    except Exception:
        return False


def _remove_unused(dump_dir):
    """Remove the capture directory when it holds no snapshot."""
    if snapshot_path() is None:
        shutil.rmtree(dump_dir, ignore_errors=True)
