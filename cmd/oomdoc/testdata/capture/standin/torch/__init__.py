"""STAND-IN for PyTorch (oomdoc's --capture test only; see ../../README.md).

Not torch: it exposes only the hook points oomdoc's capture hook uses.
"""

from . import _C, cuda  # noqa: F401


class OutOfMemoryError(RuntimeError):
    """As torch.OutOfMemoryError (printed as torch.OutOfMemoryError)."""


OutOfMemoryError.__module__ = "torch"
cuda.EVENTS.append("import torch")
