"""The notebook extension: IPython's set_custom_exc handler that shows the
usual traceback, then oomdoc's report — rendered Markdown in Jupyter,
plain text in a terminal IPython."""

import sys

from oomdoc import _hook


def _in_jupyter(shell):
    """A kernel shell (Jupyter, VS Code, Colab) renders Markdown."""
    return type(shell).__name__ in ("ZMQInteractiveShell", "Shell") or hasattr(shell, "kernel")


def _show_markdown(text):
    from IPython.display import Markdown, display  # IPython is loaded: it called us

    display(Markdown(text))


def handler(shell, etype, value, tb, tb_offset=None):
    """Show the traceback as IPython would, then explain an out-of-memory
    failure. Never raises (IPython would unregister it)."""
    try:
        shell.showtraceback((etype, value, tb), tb_offset=tb_offset)
    except Exception:
        import traceback

        traceback.print_exception(etype, value, tb)
    try:
        if not _hook.is_oom(value):
            return None
        markdown = _in_jupyter(shell)
        code, out, err = _hook.run_oomdoc(_hook.failure_text(etype, value, tb), ["--format=markdown"] if markdown else ["--color=never"])
        if code not in (0, 3) or not out:
            raise RuntimeError("oomdoc exited with status %d: %s" % (code, err.strip()[:200]))
        if markdown:
            _show_markdown(out)
        else:
            sys.stdout.write("\n" + out)
    except BaseException as err:  # noqa: B902 - never raise into IPython
        try:
            sys.stderr.write("oomdoc: could not explain this failure (%s)\n" % _hook._one_line(err))
        except Exception:
            pass
    return None


def load(shell):
    """Register the handler for every Exception: it shows each traceback as
    IPython does and adds a report only to out-of-memory ones (whose
    classes — torch's, TensorFlow's, JAX's — may be imported after this)."""
    shell.set_custom_exc((Exception,), handler)


def unload(shell):
    """Remove the handler."""
    shell.set_custom_exc((), None)
