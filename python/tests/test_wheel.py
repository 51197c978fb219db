"""build_wheel.py: a wheel pip accepts (PEP 427 layout, RECORD hashes,
tags, an executable binary), versions mapped to PEP 440."""

import base64
import hashlib
import importlib.util
import os
import stat
import tempfile
import unittest
import zipfile

import support

spec = importlib.util.spec_from_file_location("build_wheel", os.path.join(support.SOURCE, "build_wheel.py"))
build_wheel = importlib.util.module_from_spec(spec)
spec.loader.exec_module(build_wheel)


class Versions(unittest.TestCase):
    def test_wheel_version(self):
        for tag, want in [
            ("v1.2.3", "1.2.3"),
            ("1.2.3", "1.2.3"),
            ("v0.4.0-rc.1", "0.4.0rc1"),
            ("ce2ca50", "0.0.0.dev0+gce2ca50"),
            ("ce2ca50-dirty", "0.0.0.dev0+gce2ca50.dirty"),
            ("v1.2.3-4-gce2ca50", "0.0.0.dev0+gv1.2.3.4.gce2ca50"),
        ]:
            self.assertEqual(build_wheel.wheel_version(tag), want, tag)


class Build(unittest.TestCase):
    def build(self, target="linux/amd64", capture=None):
        tmp = tempfile.mkdtemp()
        binary = os.path.join(tmp, "oomdoc-binary")
        with open(binary, "wb") as f:
            f.write(b"\x7fELF stand-in binary bytes")
        saved = build_wheel.CAPTURE
        build_wheel.CAPTURE = capture or os.path.join(tmp, "absent.py")
        try:
            return build_wheel.build_wheel(target, binary, "1.2.3", os.path.join(tmp, "dist"))
        finally:
            build_wheel.CAPTURE = saved

    def test_layout_and_record(self):
        path = self.build()
        self.assertTrue(os.path.basename(path).startswith("oomdoc-1.2.3-py3-none-manylinux_2_17_x86_64."), path)
        with zipfile.ZipFile(path) as z:
            names = z.namelist()
            for want in ["oomdoc/__init__.py", "oomdoc/__main__.py", "oomdoc/_hook.py", "oomdoc/_version.py", "oomdoc/bin/oomdoc",
                         "oomdoc-1.2.3.dist-info/METADATA", "oomdoc-1.2.3.dist-info/WHEEL", "oomdoc-1.2.3.dist-info/entry_points.txt",
                         "oomdoc-1.2.3.dist-info/LICENSE", "oomdoc-1.2.3.dist-info/RECORD"]:
                self.assertIn(want, names)
            self.assertNotIn("oomdoc/_capture.py", names)
            mode = z.getinfo("oomdoc/bin/oomdoc").external_attr >> 16
            self.assertTrue(mode & stat.S_IXUSR, oct(mode))
            record = z.read("oomdoc-1.2.3.dist-info/RECORD").decode().splitlines()
            listed = {}
            for line in record:
                name, digest, size = line.rsplit(",", 2)
                listed[name] = (digest, size)
            self.assertEqual(sorted(listed), sorted(names))
            for name in names:
                if name.endswith("RECORD"):
                    continue
                data = z.read(name)
                want = "sha256=" + base64.urlsafe_b64encode(hashlib.sha256(data).digest()).rstrip(b"=").decode()
                self.assertEqual(listed[name], (want, str(len(data))), name)
            wheel = z.read("oomdoc-1.2.3.dist-info/WHEEL").decode()
            self.assertIn("Root-Is-Purelib: false", wheel)
            self.assertIn("Tag: py3-none-manylinux_2_17_x86_64", wheel)
            self.assertIn("Tag: py3-none-musllinux_1_1_x86_64", wheel)
            meta = z.read("oomdoc-1.2.3.dist-info/METADATA").decode()
            self.assertIn("Name: oomdoc\n", meta)
            self.assertIn("Version: 1.2.3\n", meta)
            self.assertIn("oomdoc = oomdoc.__main__:main", z.read("oomdoc-1.2.3.dist-info/entry_points.txt").decode())
            self.assertIn("__version__ = '1.2.3'", z.read("oomdoc/_version.py").decode())

    def test_reproducible(self):
        a, b = self.build(), self.build()
        with open(a, "rb") as fa, open(b, "rb") as fb:
            self.assertEqual(fa.read(), fb.read())

    def test_windows_binary_name(self):
        with zipfile.ZipFile(self.build("windows/amd64")) as z:
            self.assertIn("oomdoc/bin/oomdoc.exe", z.namelist())

    def test_capture_module_is_shipped_when_present(self):
        tmp = tempfile.mkdtemp()
        cap = os.path.join(tmp, "oomdoc_capture.py")
        with open(cap, "w") as f:
            f.write("def enable(dump_dir, max_entries=100000):\n    return False\n\ndef snapshot_path():\n    return None\n")
        with zipfile.ZipFile(self.build(capture=cap)) as z:
            self.assertIn(b"def snapshot_path", z.read("oomdoc/_capture.py"))

    def test_every_target_has_a_tag(self):
        self.assertEqual(sorted(build_wheel.PLATFORMS), ["darwin/amd64", "darwin/arm64", "linux/amd64", "linux/arm64", "windows/amd64"])


if __name__ == "__main__":
    unittest.main()
