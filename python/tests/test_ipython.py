"""%load_ext oomdoc, with a stand-in IPython shell (IPython is not
installed here): the handler shows the traceback as IPython would, then
the report — Markdown in a Jupyter kernel, text in a terminal shell."""

import io
import os
import sys
import types
import unittest
from contextlib import redirect_stderr, redirect_stdout

import support

sys.path[:0] = [support.SOURCE, support.STANDIN]

import oomdoc  # noqa: E402
import torch  # noqa: E402  (the stand-in)


class StandInShell:
    """STAND-IN for IPython's InteractiveShell: the two methods oomdoc uses."""

    def __init__(self):
        self.custom = None
        self.shown = []

    def set_custom_exc(self, exc_tuple, handler):
        self.custom = (exc_tuple, handler)

    def showtraceback(self, exc_tuple=None, tb_offset=None):
        self.shown.append(exc_tuple)
        print("TRACEBACK %s" % exc_tuple[0].__name__)

    def raise_in_cell(self, exc):
        """What IPython's run_code does with a registered exception type."""
        types_, handler = self.custom
        try:
            raise exc
        except types_:
            etype, value, tb = sys.exc_info()
            return handler(self, etype, value, tb, tb_offset=None)


class ZMQInteractiveShell(StandInShell):
    """STAND-IN for ipykernel's shell (the class name marks Jupyter)."""


def standin_display():
    """STAND-IN for IPython.display: records what would be rendered."""
    shown = []
    pkg = types.ModuleType("IPython")
    disp = types.ModuleType("IPython.display")

    class Markdown:
        def __init__(self, data):
            self.data = data

    disp.Markdown = Markdown
    disp.display = lambda obj: shown.append(obj)
    pkg.display = disp
    return {"IPython": pkg, "IPython.display": disp}, shown


class Notebook(unittest.TestCase):
    def setUp(self):
        self.env = dict(os.environ)
        os.environ["OOMDOC_BINARY"] = support.binary()

    def tearDown(self):
        os.environ.clear()
        os.environ.update(self.env)

    def run_cell(self, shell, exc):
        out, err = io.StringIO(), io.StringIO()
        with redirect_stdout(out), redirect_stderr(err):
            oomdoc.load_ipython_extension(shell)
            ret = shell.raise_in_cell(exc)
        self.assertIsNone(ret)
        return out.getvalue(), err.getvalue()

    def test_terminal_ipython_prints_text(self):
        shell = StandInShell()
        out, err = self.run_cell(shell, torch.OutOfMemoryError(support.REAL_OOM_MESSAGE))
        self.assertTrue(out.startswith("TRACEBACK OutOfMemoryError\n"), out[:100])
        self.assertIn("other-process", out)
        self.assertNotIn("\x1b[", out)
        self.assertEqual(err, "")

    def test_jupyter_renders_markdown(self):
        mods, shown = standin_display()
        saved = {k: sys.modules.get(k) for k in mods}
        sys.modules.update(mods)
        try:
            out, err = self.run_cell(ZMQInteractiveShell(), torch.OutOfMemoryError(support.REAL_OOM_MESSAGE))
        finally:
            for k, v in saved.items():
                if v is None:
                    sys.modules.pop(k, None)
                else:
                    sys.modules[k] = v
        self.assertEqual(out, "TRACEBACK OutOfMemoryError\n")
        self.assertEqual(len(shown), 1, err)
        self.assertIn("other-process", shown[0].data)
        self.assertTrue(shown[0].data.lstrip().startswith("#"), shown[0].data[:80])

    def test_other_exceptions_only_the_traceback(self):
        out, err = self.run_cell(StandInShell(), KeyError("x"))
        self.assertEqual((out, err), ("TRACEBACK KeyError\n", ""))

    def test_failure_inside_is_one_line(self):
        os.environ["OOMDOC_BINARY"] = "/no/such/oomdoc"
        out, err = self.run_cell(StandInShell(), torch.OutOfMemoryError(support.REAL_OOM_MESSAGE))
        self.assertEqual(out, "TRACEBACK OutOfMemoryError\n")
        self.assertEqual(err.count("\n"), 1)
        self.assertTrue(err.startswith("oomdoc: could not explain this failure ("), err)

    def test_unload(self):
        shell = StandInShell()
        oomdoc.load_ipython_extension(shell)
        self.assertEqual(shell.custom[0], (Exception,))
        oomdoc.unload_ipython_extension(shell)
        self.assertEqual(shell.custom, ((), None))


if __name__ == "__main__":
    unittest.main()
