"""Loads 'weights', then asks for more than the stand-in device has left."""
import sys

print("torch imported before the script:", "torch" in sys.modules)
import torch  # the stand-in (testdata/capture/standin), on PYTHONPATH


def from_pretrained():
    return [torch.cuda.alloc(6 << 30) for _ in range(2)]


weights = from_pretrained()
print("stand-in events:", torch.cuda.EVENTS)
activations = torch.cuda.alloc(5 << 30)
