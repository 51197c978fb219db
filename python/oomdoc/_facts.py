"""Live facts about the process, gathered after a failure in the forms
oomdoc's log parser already reads (parser/context.go):

* ``torch==2.5.1`` version pins, ``Python version: 3.11.9``;
* an nvidia-smi style device row and ``USED MiB / TOTAL MiB`` row, filled
  from ``torch.cuda.mem_get_info()`` and ``torch.cuda.get_device_name()``;
* the table of ``torch.cuda.memory_summary()`` as PyTorch prints it;
* ``PYTORCH_CUDA_ALLOC_CONF=…`` as set in the environment;
* the command line.

Nothing here imports a module that is not already imported: a library the
program never loaded is simply not mentioned. Every fact is gathered on
its own, and one that fails is left out.
"""

import os
import re
import shlex
import sys

# Libraries whose versions change the advice (and the spelling of fixes).
_LIBRARIES = ("torch", "transformers", "accelerate", "vllm", "peft", "bitsandbytes", "deepspeed", "diffusers", "trl", "jax", "jaxlib", "tensorflow")

_ALLOC_ENV = ("PYTORCH_CUDA_ALLOC_CONF", "PYTORCH_ALLOC_CONF", "PYTORCH_HIP_ALLOC_CONF")

_GPU_IN_MESSAGE = re.compile(r"\bGPU (\d+) has a total capacity")

HEADER = "oomdoc: facts read by oomdoc.install() from the live process after the failure"


def _mib(n):
    return int(n) // (1 << 20)


def versions():
    """``name==version`` lines for the listed libraries already imported."""
    lines = []
    for name in _LIBRARIES:
        mod = sys.modules.get(name)
        v = getattr(mod, "__version__", None) if mod is not None else None
        if isinstance(v, str) and v:
            lines.append("%s==%s" % (name, v))
    lines.append("Python version: %d.%d.%d" % sys.version_info[:3])
    return lines


def command_line():
    """The program's command line, as a shell would show it."""
    argv = list(getattr(sys, "argv", []) or [])
    if not argv:
        return []
    return ["Command line: python " + shlex.join(str(a) for a in argv)]


def allocator_settings():
    """The allocator variables as the environment sets them."""
    return ["%s=%s" % (k, os.environ[k]) for k in _ALLOC_ENV if os.environ.get(k)]


def _device_index(torch, message):
    m = _GPU_IN_MESSAGE.search(message or "")
    if m:
        return int(m.group(1))
    return int(torch.cuda.current_device())


def cuda_facts(message=""):
    """Device name, free and total memory, and the memory summary of the
    device that failed — only when torch is imported and CUDA already
    initialised (never starting a CUDA context on another device)."""
    torch = sys.modules.get("torch")
    cuda = getattr(torch, "cuda", None) if torch is not None else None
    if cuda is None:
        return []
    try:
        if not (cuda.is_available() and cuda.is_initialized()):
            return []
        index = _device_index(torch, message)
    except Exception:
        return []
    lines = []
    try:
        name = str(cuda.get_device_name(index))
    except Exception:
        name = "GPU"
    try:
        free, total = cuda.mem_get_info(index)
        lines += [
            "torch.cuda.mem_get_info(%d): free %d bytes, total %d bytes; as nvidia-smi would show it:" % (index, free, total),
            "|   %d  %s   Off |" % (index, name),
            "|  %dMiB / %dMiB |" % (_mib(total - free), _mib(total)),
            "",
        ]
    except Exception:
        pass
    try:
        summary = cuda.memory_summary(index, abbreviated=True)
        if summary:
            lines += ["torch.cuda.memory_summary(%d):" % index] + str(summary).splitlines() + [""]
    except Exception:
        pass
    return lines


def gather(message=""):
    """Every fact, one per line, under a header line; never raises."""
    lines = [HEADER]
    for part in (versions, command_line, allocator_settings):
        try:
            lines += part()
        except Exception:
            pass
    try:
        lines += [""] + cuda_facts(message)
    except Exception:
        pass
    return "\n".join(lines).rstrip("\n") + "\n"
