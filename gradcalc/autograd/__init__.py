"""The autograd engine and gradcalc's tensor API. Importing the package installs Tensor's
methods, which ops/ generates from its declarations."""
import gc

# The import makes thousands of long-lived objects (declarations, generated functions): garbage
# collections in the middle of it would only walk them again and again, at start-up's expense.
_collecting = gc.isenabled()
gc.disable()
try:
    from . import ops  # noqa: F401
finally:
    if _collecting:
        gc.enable()
