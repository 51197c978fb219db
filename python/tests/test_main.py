"""`python -m oomdoc` and the `oomdoc` command run the binary with the same
arguments, standard input and exit status."""

import os
import subprocess
import sys
import unittest

import support

LOG = os.path.join(support.FIXTURES, "reference", "ovis2.5-2b-visual-softmax.log")


def run(cmd, stdin=None):
    env = support.child_env()
    return subprocess.run(cmd, input=stdin, capture_output=True, env=env, timeout=60)


def commands():
    """Every way under test to start oomdoc from Python."""
    cmds = [support.oomdoc_command()]
    py = support.installed_python()
    if py:
        scripts = os.path.dirname(py)
        cmds.append([os.path.join(scripts, "oomdoc.exe" if os.name == "nt" else "oomdoc")])
    return cmds


class Main(unittest.TestCase):
    def test_same_report_as_the_binary(self):
        for args in (["--color=never", LOG], ["--format=json", LOG], ["--format=markdown", LOG]):
            want = subprocess.run([support.binary()] + args, capture_output=True, check=True)
            for cmd in commands():
                with self.subTest(cmd=cmd[-1], args=args[0]):
                    got = run(cmd + args)
                    self.assertEqual(got.returncode, 0, got.stderr)
                    self.assertEqual(got.stdout, want.stdout)
                    self.assertIn(b"visual-tokens", got.stdout)

    def test_standard_input(self):
        with open(LOG, "rb") as f:
            data = f.read()
        want = subprocess.run([support.binary(), "--format=json"], input=data, capture_output=True, check=True)
        for cmd in commands():
            got = run(cmd + ["--format=json"], stdin=data)
            self.assertEqual(got.stdout, want.stdout)

    def test_exit_status(self):
        for cmd in commands():
            self.assertEqual(run(cmd + ["/no/such/file.log"]).returncode, 3)
            self.assertEqual(run(cmd + ["--frobnicate"]).returncode, 2)
            self.assertEqual(run(cmd + ["run", "--", sys.executable, "-c", "raise SystemExit(5)"]).returncode, 5)

    def test_version(self):
        for cmd in commands():
            got = run(cmd + ["--version"])
            self.assertEqual(got.returncode, 0)
            self.assertTrue(got.stdout.startswith(b"oomdoc "), got.stdout)
            if support.installed_python():
                self.assertNotEqual(got.stdout.strip(), b"oomdoc dev")


if __name__ == "__main__":
    unittest.main()
