"""Never imports torch: the hook must not import it either."""
import sys

print("torch in sys.modules:", "torch" in sys.modules)
