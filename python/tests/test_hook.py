"""oomdoc.install() in a child Python, as a user's script runs it: the
traceback first, then the report, Python's exit status; nothing for other
exceptions; a failure inside the hook never hides the traceback."""

import os
import stat
import sys
import tempfile
import unittest

import support

OOM_SCRIPT = """
import oomdoc
oomdoc.install()
import torch  # the stand-in (tests/standin), not PyTorch

MESSAGE = %r

def training_step(batch):
    raise torch.OutOfMemoryError(MESSAGE)

training_step(1)
""" % support.REAL_OOM_MESSAGE


def fake_binary(tmp, body):
    """A test double for the binary: a shell script (POSIX only)."""
    path = os.path.join(tmp, "fake-oomdoc")
    with open(path, "w") as f:
        f.write("#!/bin/sh\n" + body + "\n")
    os.chmod(path, os.stat(path).st_mode | stat.S_IXUSR)
    return path


class Hook(unittest.TestCase):
    def test_oom_prints_traceback_then_report(self):
        r = support.run_python(OOM_SCRIPT)
        self.assertEqual(r.returncode, 1, "Python's status for an uncaught exception")
        err = r.stderr
        tb = err.find("Traceback (most recent call last):")
        last = err.find("torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 2.00 GiB")
        report = err.find("\n✗ ")
        self.assertTrue(tb >= 0 and last > tb, err)
        self.assertGreater(report, last, "the report comes after the traceback:\n" + err)
        self.assertIn("in training_step", err[:report])
        self.assertIn("other-process", err[report:])
        self.assertIn("\nFailure e1\n", err[report:])
        self.assertEqual(r.stdout, "")

    def test_memory_error(self):
        r = support.run_python("import oomdoc\noomdoc.install()\nraise MemoryError()\n")
        self.assertEqual(r.returncode, 1)
        self.assertIn("MemoryError", r.stderr)
        self.assertNotIn("oomdoc: could not", r.stderr)

    def test_other_exceptions_get_no_report(self):
        with tempfile.TemporaryDirectory() as tmp:
            marker = os.path.join(tmp, "ran")
            env = support.child_env(OOMDOC_BINARY=fake_binary(tmp, "touch %s" % marker)) if os.name == "posix" else None
            r = support.run_python("import oomdoc\noomdoc.install()\nraise ValueError('bad shape (3, 4)')\n", env=env)
            self.assertEqual(r.returncode, 1)
            self.assertTrue(r.stderr.startswith("Traceback (most recent call last):"), r.stderr)
            self.assertTrue(r.stderr.rstrip().endswith("ValueError: bad shape (3, 4)"), r.stderr)
            self.assertNotIn("oomdoc", r.stderr.replace("import oomdoc", "").replace("oomdoc.install()", ""))
            self.assertFalse(os.path.exists(marker), "the binary ran for a non-OOM exception")

    def test_sys_exit_is_untouched(self):
        r = support.run_python("import oomdoc, sys\noomdoc.install()\nsys.exit(7)\n")
        self.assertEqual((r.returncode, r.stderr), (7, ""))

    def test_missing_binary_one_line_after_the_traceback(self):
        env = support.child_env(OOMDOC_BINARY=os.path.join(tempfile.gettempdir(), "no-such-oomdoc"))
        r = support.run_python(OOM_SCRIPT, env=env)
        self.assertEqual(r.returncode, 1)
        lines = r.stderr.rstrip("\n").split("\n")
        self.assertTrue(lines[-1].startswith("oomdoc: could not explain this failure ("), lines[-1])
        self.assertIn("torch.OutOfMemoryError: CUDA out of memory", r.stderr)
        self.assertLess(r.stderr.index("Traceback"), r.stderr.index("oomdoc: could not"))
        self.assertEqual(sum(l.startswith("oomdoc:") for l in lines), 1)

    def test_exception_inside_the_hook(self):
        """The hook's own code raises: the traceback still shows, then one
        line; the status is still 1."""
        code = "import oomdoc._hook as h\nh.failure_text = lambda *a: 1 / 0\n" + OOM_SCRIPT
        r = support.run_python(code)
        self.assertEqual(r.returncode, 1)
        self.assertIn("Traceback (most recent call last):", r.stderr)
        self.assertIn("torch.OutOfMemoryError: CUDA out of memory", r.stderr)
        self.assertTrue(r.stderr.rstrip().endswith("oomdoc: could not explain this failure (ZeroDivisionError: division by zero)"), r.stderr[-300:])
        self.assertNotIn("Error in sys.excepthook", r.stderr)

    def test_a_crashing_binary(self):
        if os.name != "posix":
            self.skipTest("the fake binary is a shell script")
        with tempfile.TemporaryDirectory() as tmp:
            env = support.child_env(OOMDOC_BINARY=fake_binary(tmp, "echo boom >&2; exit 9"))
            r = support.run_python(OOM_SCRIPT, env=env)
        self.assertEqual(r.returncode, 1)
        self.assertIn("torch.OutOfMemoryError", r.stderr)
        self.assertIn("boom", r.stderr)
        self.assertIn("oomdoc: could not explain this failure (RuntimeError: oomdoc exited with status 9)", r.stderr)

    def test_previous_hook_still_runs(self):
        code = "import sys\ndef mine(t, v, tb):\n    sys.stderr.write('MINE %s\\n' % t.__name__)\nsys.excepthook = mine\n" + OOM_SCRIPT
        r = support.run_python(code)
        self.assertTrue(r.stderr.startswith("MINE OutOfMemoryError\n"), r.stderr[:200])
        self.assertIn("other-process", r.stderr)

    def test_a_thread_that_dies_of_oom(self):
        code = OOM_SCRIPT.replace("training_step(1)", "import threading\nt = threading.Thread(target=training_step, args=(1,))\nt.start(); t.join()\nprint('main goes on')")
        r = support.run_python(code)
        self.assertEqual(r.returncode, 0, "a thread's exception does not end the process")
        self.assertEqual(r.stdout, "main goes on\n")
        self.assertIn("Exception in thread", r.stderr)
        self.assertLess(r.stderr.index("torch.OutOfMemoryError"), r.stderr.index("other-process"))

    def test_uninstall(self):
        r = support.run_python("import oomdoc, sys, threading\nh, t = sys.excepthook, threading.excepthook\noomdoc.install()\n"
                               "assert sys.excepthook is not h\noomdoc.uninstall()\nassert (sys.excepthook, threading.excepthook) == (h, t)\n")
        self.assertEqual(r.returncode, 0, r.stderr)

    def test_install_twice_reports_once(self):
        r = support.run_python(OOM_SCRIPT.replace("oomdoc.install()", "oomdoc.install(); oomdoc.install()"))
        self.assertEqual(r.stderr.count("\nFailure e1\n"), 1)

    def test_capture_without_the_capture_module(self):
        r = support.run_python("import oomdoc, sys\nprint(oomdoc.install(capture=True))\n")
        has_capture = "oomdoc._capture" in r.stderr  # never: a missing module is no error
        self.assertFalse(has_capture)
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertIn(r.stdout.strip(), ("True", "False"))

    def test_capture_passes_the_snapshot(self):
        """A stand-in oomdoc._capture (the interface `oomdoc run --capture`
        ships): enable() is called with a directory and the snapshot it
        names goes to the binary as a second input."""
        if os.name != "posix":
            self.skipTest("the fake binary is a shell script")
        with tempfile.TemporaryDirectory() as tmp:
            args = os.path.join(tmp, "args")
            standin = os.path.join(tmp, "capture_standin")
            os.makedirs(os.path.join(standin, "oomdoc_capture_standin"))
            with open(os.path.join(standin, "oomdoc_capture_standin", "__init__.py"), "w") as f:
                f.write(
                    "import os\nSTATE = {}\n"
                    "def enable(dump_dir, max_entries=100000):\n"
                    "    STATE['path'] = os.path.join(dump_dir, 'snapshot.pickle')\n"
                    "    open(STATE['path'], 'wb').write(b'stand-in snapshot')\n    return True\n"
                    "def snapshot_path():\n    return STATE.get('path')\n"
                )
            env = support.child_env(OOMDOC_BINARY=fake_binary(tmp, 'for a in "$@"; do echo "$a"; done > %s; cat >/dev/null' % args), TMPDIR=tmp)
            env["PYTHONPATH"] += os.pathsep + standin
            code = "import sys, oomdoc_capture_standin\nsys.modules['oomdoc._capture'] = oomdoc_capture_standin\n" + OOM_SCRIPT.replace(
                "oomdoc.install()", "assert oomdoc.install(capture=True) is True"
            )
            r = support.run_python(code, env=env)
            self.assertEqual(r.returncode, 1, r.stderr)
            with open(args) as f:
                got = f.read().split("\n")
            self.assertEqual(got[0], "-")
            self.assertTrue(got[1].endswith("snapshot.pickle"), got)
            self.assertTrue(got[1].startswith(tmp), got)
            self.assertTrue(os.path.isfile(got[1]), "a written snapshot is kept for the user")

    def test_capture_directory_without_snapshot_is_removed(self):
        with tempfile.TemporaryDirectory() as tmp:
            standin = os.path.join(tmp, "capture_standin")
            os.makedirs(standin)
            with open(os.path.join(standin, "cap_nosnap.py"), "w") as f:
                f.write("def enable(dump_dir, max_entries=100000):\n    return True\ndef snapshot_path():\n    return None\n")
            env = support.child_env(TMPDIR=tmp)
            env["PYTHONPATH"] += os.pathsep + standin
            r = support.run_python("import sys, cap_nosnap\nsys.modules['oomdoc._capture'] = cap_nosnap\nimport oomdoc\nassert oomdoc.install(capture=True)\n", env=env)
            self.assertEqual(r.returncode, 0, r.stderr)
            self.assertEqual([d for d in os.listdir(tmp) if d.startswith("oomdoc-capture-")], [])


if __name__ == "__main__":
    unittest.main()
