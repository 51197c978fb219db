"""Runs out of stand-in memory, catches it and carries on."""
import torch  # the stand-in (testdata/capture/standin)

torch.cuda.alloc(12 << 30)
try:
    torch.cuda.alloc(8 << 30)
except torch.OutOfMemoryError:
    print("caught; smaller batch")
torch.cuda.alloc(1 << 30)
