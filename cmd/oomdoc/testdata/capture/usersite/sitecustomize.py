"""A user's own sitecustomize, which oomdoc's hook must still run."""
import sys

sys.stderr.write("user sitecustomize ran\n")
