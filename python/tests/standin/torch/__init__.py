"""STAND-IN for PyTorch, used only by oomdoc's tests. It is NOT torch: it
mimics the few names oomdoc touches (OutOfMemoryError, __version__ and
torch.cuda's is_available, is_initialized, current_device,
get_device_name, mem_get_info, memory_summary) with fixed, made-up
figures. Tests put this directory on sys.path to stand in for a real
install."""

__version__ = "2.5.1+standin"


class OutOfMemoryError(RuntimeError):
    """Stand-in for torch.OutOfMemoryError (a RuntimeError, as in torch)."""


from torch import cuda  # noqa: E402  (the stand-in's submodule)
