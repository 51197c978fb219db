"""The live facts: their forms, their safety, and that oomdoc reads them."""

import json
import subprocess
import unittest

import support

PROBE = r"""
import json, os, sys
import oomdoc
from oomdoc import _facts
if os.environ.get("IMPORT_TORCH"):
    import torch  # the stand-in
before = set(sys.modules)
text = _facts.gather(os.environ.get("MESSAGE", ""))
print(json.dumps({"text": text, "new_modules": sorted(set(sys.modules) - before)}))
"""


def probe(**env):
    r = support.run_python(PROBE, env=support.child_env(**env), args=["--model_name_or_path", "org/model", "--lr=3e-4"])
    if r.returncode != 0:
        raise AssertionError(r.stderr)
    return json.loads(r.stdout)


class Facts(unittest.TestCase):
    def test_without_torch_nothing_is_imported(self):
        got = probe()
        self.assertEqual(got["new_modules"], [])
        self.assertNotIn("torch", got["text"])
        self.assertIn("Python version: 3.", got["text"])
        self.assertIn("Command line: python ", got["text"])
        self.assertIn("--model_name_or_path org/model", got["text"])

    def test_with_torch_in_the_forms_the_parser_reads(self):
        got = probe(IMPORT_TORCH="1", PYTORCH_CUDA_ALLOC_CONF="expandable_segments:True")
        self.assertEqual(got["new_modules"], [])
        text = got["text"]
        for want in [
            "torch==2.5.1+standin",
            "PYTORCH_CUDA_ALLOC_CONF=expandable_segments:True",
            "|   0  Stand-in GPU 24GB   Off |",
            "|  22996MiB / 24276MiB |",  # total 24276 MiB, 1280 MiB free
            "PyTorch CUDA memory summary, device ID 0",
        ]:
            self.assertIn(want, text)
        # the device table comes before the memory summary, and a line that
        # is not a table row separates them (the parser reads a summary until
        # its table ends)
        self.assertLess(text.index("Off |"), text.index("memory summary, device ID"))

    def test_the_device_named_in_the_message(self):
        got = probe(IMPORT_TORCH="1", MESSAGE="CUDA out of memory. Tried to allocate 2.00 GiB. GPU 3 has a total capacity of 23.65 GiB")
        self.assertIn("mem_get_info(3)", got["text"])
        self.assertIn("|   3  ", got["text"])

    def test_cuda_not_initialised_is_left_alone(self):
        got = probe(IMPORT_TORCH="1", STANDIN_CUDA_INITIALIZED="0")
        self.assertIn("torch==2.5.1+standin", got["text"])
        self.assertNotIn("mem_get_info", got["text"])

    def test_a_failing_fact_is_left_out(self):
        got = probe(IMPORT_TORCH="1", STANDIN_MEM_GET_INFO_RAISES="1")
        self.assertNotIn("MiB /", got["text"])
        self.assertIn("PyTorch CUDA memory summary", got["text"])

    def test_oomdoc_reads_the_facts(self):
        """A message without the device's size: the report takes it from
        the facts' device row (24276 MiB, exactly)."""
        code = r"""
import sys, torch
from oomdoc import _hook
try:
    raise RuntimeError("CUDA error: out of memory\nCUDA kernel errors might be asynchronously reported at some other API call.")
except RuntimeError as e:
    sys.stdout.write(_hook.failure_text(type(e), e, e.__traceback__))
"""
        r = support.run_python(code)
        self.assertEqual(r.returncode, 0, r.stderr)
        rep = subprocess.run([support.binary(), "--format=json", "-"], input=r.stdout, capture_output=True, text=True, check=True)
        doc = json.loads(rep.stdout)
        self.assertEqual(len(doc["events"]), 1, "the facts must not read as failures")
        caps = {d.get("quantities", {}).get("capacity_bytes") for d in doc["diagnoses"]}
        self.assertIn(24276 << 20, caps)


if __name__ == "__main__":
    unittest.main()
