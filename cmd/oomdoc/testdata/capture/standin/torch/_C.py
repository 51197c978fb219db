"""STAND-IN for torch._C: the out-of-memory observer hook only."""

OBSERVERS = []


def _cuda_attach_out_of_memory_observer(fn):
    from . import cuda

    cuda.EVENTS.append("attach_out_of_memory_observer")
    OBSERVERS.append(fn)
