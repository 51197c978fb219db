"""``python -m oomdoc`` and the ``oomdoc`` command: run the bundled binary
with the same arguments, standard streams and exit status."""

import os
import subprocess
import sys

from oomdoc._binary import binary_path


def main():
    """Replace this process with the binary (POSIX), or run it and exit with
    its status (Windows, where exec does not keep the console)."""
    exe = binary_path()
    args = [exe] + sys.argv[1:]
    if not os.path.isfile(exe):
        sys.stderr.write("oomdoc: the bundled binary is missing: %s (reinstall the wheel, or set OOMDOC_BINARY)\n" % exe)
        return 1
    if os.name == "posix":
        try:
            os.execv(exe, args)
        except OSError as err:
            sys.stderr.write("oomdoc: cannot run %s: %s\n" % (exe, err))
            return 1
    try:
        return subprocess.call(args)
    except KeyboardInterrupt:
        return 130
    except OSError as err:
        sys.stderr.write("oomdoc: cannot run %s: %s\n" % (exe, err))
        return 1


if __name__ == "__main__":
    sys.exit(main())
