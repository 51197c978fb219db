"""Which exceptions count as out-of-memory failures."""

import sys
import unittest

import support

sys.path[:0] = [support.SOURCE, support.STANDIN]

import oomdoc  # noqa: E402
import torch  # noqa: E402  (the stand-in, see standin/torch)


def named(name, base=Exception, module="somewhere"):
    """A class called name, as a library would define it."""
    return type(name, (base,), {"__module__": module})


class IsOOM(unittest.TestCase):
    def test_out_of_memory_failures(self):
        xla = named("XlaRuntimeError", RuntimeError, "jaxlib.xla_extension")
        tf = named("ResourceExhaustedError", named("OpError"), "tensorflow.python.framework.errors_impl")
        cases = [
            torch.OutOfMemoryError(support.REAL_OOM_MESSAGE),
            torch.cuda.OutOfMemoryError("CUDA out of memory."),
            RuntimeError("CUDA out of memory. Tried to allocate 20.00 MiB (GPU 0; 7.79 GiB total capacity; 6.55 GiB already allocated)"),
            RuntimeError("HIP out of memory. Tried to allocate 2.00 GiB"),
            RuntimeError("MPS backend out of memory (MPS allocated: 17.29 GB, other allocations: 1.03 GB, max allowed: 18.13 GB)."),
            RuntimeError("XPU out of memory. Tried to allocate 4.00 GiB"),
            RuntimeError("CUDA error: out of memory\nCUDA kernel errors might be asynchronously reported"),
            RuntimeError("[enforce fail at alloc_cpu.cpp:83] DefaultCPUAllocator: can't allocate memory: you tried to allocate 64597662208 bytes."),
            MemoryError(),
            named("_ArrayMemoryError", MemoryError, "numpy.core._exceptions")("Unable to allocate 8.00 GiB"),
            xla("RESOURCE_EXHAUSTED: Out of memory while trying to allocate 17179869184 bytes."),
            tf("OOM when allocating tensor with shape[8192,8192] and type float"),
            RuntimeError("HIP error: out of memory"),
            ValueError("No available memory for the cache blocks. Try increasing `gpu_memory_utilization` when initializing the engine."),
            ValueError("The model's max seq len (32768) is larger than the maximum number of tokens that can be stored in KV cache (17856). Try increasing `gpu_memory_utilization` or decreasing `max_model_len` when initializing the engine."),
            ValueError("To serve at least one request with the models's max seq len (131072), (16.00 GiB KV cache is needed, which is larger than the available KV cache memory (9.71 GiB)."),
            ValueError("Free memory on device [cuda:0 ](13.91/79.33 GiB) on startup is less than desired GPU memory utilization (0.95, 75.36 GiB)."),
        ]
        for exc in cases:
            with self.subTest(exc=repr(exc)[:80]):
                self.assertTrue(oomdoc.is_oom(exc))

    def test_other_failures(self):
        cases = [
            ValueError("CUDA out of memory"),  # not a RuntimeError: a message quoted in another error
            RuntimeError("CUDA error: device-side assert triggered"),
            RuntimeError("Expected all tensors to be on the same device"),
            KeyboardInterrupt(),
            SystemExit(1),
            KeyError("memory"),
            RuntimeError("No available memory for the cache blocks"),  # vLLM raises these as ValueError only
            ValueError("max_model_len must be positive"),
        ]
        for exc in cases:
            with self.subTest(exc=repr(exc)[:80]):
                self.assertFalse(oomdoc.is_oom(exc))

    def test_chained(self):
        try:
            try:
                raise torch.OutOfMemoryError("CUDA out of memory.")
            except RuntimeError as inner:
                raise ValueError("batch failed") from inner
        except ValueError as outer:
            self.assertTrue(oomdoc.is_oom(outer))

    def test_a_str_that_raises(self):
        class Odd(RuntimeError):
            def __str__(self):
                raise TypeError("no")

        self.assertFalse(oomdoc.is_oom(Odd()))


if __name__ == "__main__":
    unittest.main()
