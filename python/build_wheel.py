#!/usr/bin/env python3
"""Build oomdoc's platform wheel with the standard library only.

    python3 python/build_wheel.py                      # this machine's platform
    python3 python/build_wheel.py --target linux/arm64 # cross-built by Go
    python3 python/build_wheel.py --binary dist/oomdoc-linux-amd64 --target linux/amd64

writes dist/oomdoc-VERSION-py3-none-PLATFORM.whl: the Python package
(python/oomdoc), the static oomdoc binary as oomdoc/bin/oomdoc, and the
dist-info (METADATA, WHEEL, entry_points.txt, LICENSE, RECORD) that pip
needs (PEP 427, PEP 491). The binary is built here with CGO_ENABLED=0 and
-trimpath, the version stamped, unless --binary gives one.
"""

import argparse
import base64
import hashlib
import os
import re
import shutil
import stat
import subprocess
import sys
import tempfile
import zipfile

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
PACKAGE = os.path.join(ROOT, "python", "oomdoc")
CAPTURE = os.path.join(ROOT, "cmd", "oomdoc", "capture", "oomdoc_capture.py")

# Go target -> wheel platform tags. The binary is static, so any glibc or
# musl Linux runs it; macOS 11 and Windows 10 are Go 1.26's minimums.
PLATFORMS = {
    "linux/amd64": "manylinux_2_17_x86_64.manylinux2014_x86_64.musllinux_1_1_x86_64",
    "linux/arm64": "manylinux_2_17_aarch64.manylinux2014_aarch64.musllinux_1_1_aarch64",
    "darwin/amd64": "macosx_11_0_x86_64",
    "darwin/arm64": "macosx_11_0_arm64",
    "windows/amd64": "win_amd64",
}

SUMMARY = "Explains out-of-memory crashes (PyTorch, vLLM, llama.cpp, TF, JAX, host OOM kills): what ran out, what holds the memory, why, and which change fixes it."


def git(*args):
    try:
        out = subprocess.run(["git", "-C", ROOT] + list(args), capture_output=True, text=True, check=True)
        return out.stdout.strip()
    except (OSError, subprocess.CalledProcessError):
        return ""


def go_version():
    """What the binary's --version says: the tag at HEAD, else the commit."""
    return git("describe", "--tags", "--always", "--dirty") or "dev"


def wheel_version(tag):
    """The PEP 440 version for a go_version() string: v1.2.3 -> 1.2.3; an
    untagged commit -> 0.0.0.dev0+g<commit>[.dirty]."""
    m = re.fullmatch(r"v?(\d+\.\d+\.\d+)(?:-?(a|b|rc)\.?(\d+))?", tag)
    if m:
        return m.group(1) + (m.group(2) + m.group(3) if m.group(2) else "")
    local = re.sub(r"[^A-Za-z0-9]+", ".", tag).strip(".") or "unknown"
    return "0.0.0.dev0+g" + local


def host_target():
    out = subprocess.run(["go", "env", "GOOS", "GOARCH"], capture_output=True, text=True, check=True, cwd=ROOT)
    goos, goarch = out.stdout.split()
    return goos + "/" + goarch


def build_binary(target, version, dest):
    goos, goarch = target.split("/")
    env = dict(os.environ, CGO_ENABLED="0", GOOS=goos, GOARCH=goarch)
    cmd = ["go", "build", "-trimpath", "-ldflags", "-s -w -X main.version=" + version, "-o", dest, "./cmd/oomdoc"]
    subprocess.run(cmd, check=True, cwd=ROOT, env=env)
    return dest


def record_hash(data):
    digest = base64.urlsafe_b64encode(hashlib.sha256(data).digest()).rstrip(b"=").decode()
    return "sha256=" + digest


def metadata(version):
    readme = ""
    notes = os.path.join(ROOT, "python", "README.md")
    if os.path.isfile(notes):
        with open(notes, encoding="utf-8") as f:
            readme = f.read()
    head = [
        "Metadata-Version: 2.1",
        "Name: oomdoc",
        "Version: " + version,
        "Summary: " + SUMMARY,
        "Home-page: https://github.com/oomdoc/oomdoc",
        "License: Apache-2.0",
        "Requires-Python: >=3.8",
        "Classifier: License :: OSI Approved :: Apache Software License",
        "Classifier: Programming Language :: Python :: 3",
        "Classifier: Environment :: Console",
        "Classifier: Topic :: Scientific/Engineering :: Artificial Intelligence",
        "Classifier: Framework :: Jupyter",
    ]
    if readme:
        head.append("Description-Content-Type: text/markdown")
        return "\n".join(head) + "\n\n" + readme
    return "\n".join(head) + "\n"


def wheel_file(tags):
    lines = ["Wheel-Version: 1.0", "Generator: oomdoc build_wheel.py", "Root-Is-Purelib: false"]
    for platform in tags.split("."):
        lines.append("Tag: py3-none-" + platform)
    return "\n".join(lines) + "\n"


class WheelWriter:
    """Writes entries with fixed timestamps and modes, then RECORD."""

    def __init__(self, path, dist_info):
        self.zip = zipfile.ZipFile(path, "w", compression=zipfile.ZIP_DEFLATED)
        self.dist_info = dist_info
        self.records = []
        epoch = int(os.environ.get("SOURCE_DATE_EPOCH", "315532800"))  # 1980-01-01
        self.date = tuple(__import__("time").gmtime(max(epoch, 315532800))[:6])

    def add(self, name, data, executable=False):
        info = zipfile.ZipInfo(name, date_time=self.date)
        mode = 0o755 if executable else 0o644
        info.external_attr = (stat.S_IFREG | mode) << 16
        info.compress_type = zipfile.ZIP_DEFLATED
        self.zip.writestr(info, data)
        self.records.append("%s,%s,%d" % (name, record_hash(data), len(data)))

    def close(self):
        name = self.dist_info + "/RECORD"
        self.records.append(name + ",,")
        info = zipfile.ZipInfo(name, date_time=self.date)
        info.external_attr = (stat.S_IFREG | 0o644) << 16
        info.compress_type = zipfile.ZIP_DEFLATED
        self.zip.writestr(info, "\n".join(self.records) + "\n")
        self.zip.close()


def read(path):
    with open(path, "rb") as f:
        return f.read()


def build_wheel(target, binary, version, out_dir):
    tags = PLATFORMS[target]
    # the distribution name and version as escaped in file names (PEP 427)
    name_ver = "oomdoc-" + version.replace("-", "_")
    dist_info = name_ver + ".dist-info"
    os.makedirs(out_dir, exist_ok=True)
    path = os.path.join(out_dir, "%s-py3-none-%s.whl" % (name_ver, tags))
    w = WheelWriter(path, dist_info)
    for fname in sorted(os.listdir(PACKAGE)):
        if fname.endswith(".py") and fname != "_version.py":
            w.add("oomdoc/" + fname, read(os.path.join(PACKAGE, fname)))
    w.add("oomdoc/_version.py", ('"""Set by build_wheel.py."""\n\n__version__ = %r\n' % version).encode())
    if os.path.isfile(CAPTURE):
        w.add("oomdoc/_capture.py", read(CAPTURE))
    w.add("oomdoc/report.schema.json", read(os.path.join(ROOT, "render", "report.schema.json")))
    exe = "oomdoc.exe" if target.startswith("windows/") else "oomdoc"
    w.add("oomdoc/bin/" + exe, read(binary), executable=True)
    w.add(dist_info + "/METADATA", metadata(version).encode("utf-8"))
    w.add(dist_info + "/WHEEL", wheel_file(tags).encode())
    w.add(dist_info + "/entry_points.txt", b"[console_scripts]\noomdoc = oomdoc.__main__:main\n")
    w.add(dist_info + "/LICENSE", read(os.path.join(ROOT, "LICENSE")))
    w.close()
    return path


def main(argv=None):
    ap = argparse.ArgumentParser(description="Build oomdoc's platform wheel (standard library only).")
    ap.add_argument("--target", help="GOOS/GOARCH: " + ", ".join(sorted(PLATFORMS)) + " (default: this machine)")
    ap.add_argument("--binary", help="use this oomdoc binary instead of building one")
    ap.add_argument("--version", help="the version to stamp (default: git describe; v1.2.3 -> 1.2.3)")
    ap.add_argument("--out", default=os.path.join(ROOT, "dist"), help="output directory (default: dist/)")
    args = ap.parse_args(argv)
    target = args.target or host_target()
    if target not in PLATFORMS:
        ap.error("unknown target %s; known: %s" % (target, ", ".join(sorted(PLATFORMS))))
    tag = args.version or go_version()
    version = wheel_version(tag)
    tmp = tempfile.mkdtemp(prefix="oomdoc-wheel-")
    try:
        binary = args.binary or build_binary(target, tag, os.path.join(tmp, "oomdoc"))
        print(build_wheel(target, binary, version, args.out))
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
