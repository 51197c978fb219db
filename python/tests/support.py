"""Shared test helpers: where the binary, the package and the stand-in
torch are, and how to run a child Python like a user's script."""

import os
import subprocess
import sys
import tempfile
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
SOURCE = os.path.join(ROOT, "python")
STANDIN = os.path.join(HERE, "standin")  # the stand-in torch, NOT PyTorch
FIXTURES = os.path.join(ROOT, "fixtures")

# What PyTorch 2.x prints for a CUDA OOM (its exact wording, figures of a
# 24 GiB card shared with another process).
REAL_OOM_MESSAGE = (
    "CUDA out of memory. Tried to allocate 2.00 GiB. GPU 0 has a total capacity of 23.65 GiB of which 1.25 GiB is free. "
    "Process 4162 has 12.00 GiB memory in use. Including non-PyTorch memory, this process has 10.38 GiB memory in use. "
    "Of the allocated memory 9.50 GiB is allocated by PyTorch, and 400.00 MiB is reserved by PyTorch but unallocated. "
    "If reserved but unallocated memory is large try setting PYTORCH_CUDA_ALLOC_CONF=expandable_segments:True to avoid fragmentation.  "
    "See documentation for Memory Management  (https://pytorch.org/docs/stable/notes/cuda.html#environment-variables)"
)

_built = {}


def installed_python():
    """The interpreter of an environment where the wheel is installed
    (OOMDOC_TEST_PYTHON), or None to test the source tree."""
    return os.environ.get("OOMDOC_TEST_PYTHON") or None


def binary():
    """An oomdoc binary: OOMDOC_BINARY, else one built from this checkout."""
    if os.environ.get("OOMDOC_BINARY"):
        return os.environ["OOMDOC_BINARY"]
    if "path" not in _built:
        out = os.path.join(tempfile.mkdtemp(prefix="oomdoc-test-"), "oomdoc")
        try:
            subprocess.run(["go", "build", "-o", out, "./cmd/oomdoc"], cwd=ROOT, check=True, env=dict(os.environ, CGO_ENABLED="0"))
        except (OSError, subprocess.CalledProcessError) as err:
            raise unittest.SkipTest("no oomdoc binary: set OOMDOC_BINARY or install Go (%s)" % err)
        _built["path"] = out
    return _built["path"]


def child_env(**extra):
    """The environment of a child Python: the stand-in torch on its path;
    the source package and a binary unless an installed wheel is tested."""
    env = dict(os.environ)
    env.pop("PYTHONPATH", None)
    paths = [STANDIN]
    if installed_python() is None:
        paths.append(SOURCE)
        env["OOMDOC_BINARY"] = binary()
    else:
        env.pop("OOMDOC_BINARY", None)  # the wheel's own binary
    env["PYTHONPATH"] = os.pathsep.join(paths)
    env.update(extra)
    return env


def run_python(code, env=None, args=(), stdin=None, timeout=120):
    """Run code as a user's script in a child Python; returns the
    CompletedProcess with text stdout and stderr."""
    exe = installed_python() or sys.executable
    with tempfile.TemporaryDirectory() as tmp:
        script = os.path.join(tmp, "train.py")
        with open(script, "w", encoding="utf-8") as f:
            f.write(code)
        return subprocess.run([exe, script] + list(args), env=env or child_env(), input=stdin, capture_output=True, text=True, timeout=timeout, cwd=tmp)


def oomdoc_command(*args):
    """The command line that runs `python -m oomdoc ARGS` under test."""
    return [installed_python() or sys.executable, "-m", "oomdoc"] + list(args)
