"""STAND-IN for torch.cuda (see torch/__init__.py here): fixed figures of
a made-up 24 GiB device. Not PyTorch."""

import os

from torch import OutOfMemoryError  # noqa: F401  (torch.cuda.OutOfMemoryError is torch's)

GiB = 1 << 30
FREE = int(1.25 * GiB)
TOTAL = 24 * GiB - 300 * (1 << 20)

SUMMARY = """|===========================================================================|
|                  PyTorch CUDA memory summary, device ID 0                 |
|---------------------------------------------------------------------------|
|            CUDA OOMs: 1            |        cudaMalloc retries: 1         |
|===========================================================================|
|        Metric         | Cur Usage  | Peak Usage | Tot Alloc  | Tot Freed  |
|---------------------------------------------------------------------------|
| Allocated memory      |  21504 MiB |  22016 MiB |  40960 MiB |  19456 MiB |
|---------------------------------------------------------------------------|
| Reserved memory       |  22016 MiB |  22016 MiB |  22016 MiB |      0 B   |
|===========================================================================|"""


def is_available():
    return True


def is_initialized():
    return os.environ.get("STANDIN_CUDA_INITIALIZED", "1") == "1"


def current_device():
    return 0


def get_device_name(device=None):
    return "Stand-in GPU 24GB"


def mem_get_info(device=None):
    if os.environ.get("STANDIN_MEM_GET_INFO_RAISES"):
        raise RuntimeError("CUDA error: an illegal memory access was encountered")
    return FREE, TOTAL


def memory_summary(device=None, abbreviated=False):
    return SUMMARY
