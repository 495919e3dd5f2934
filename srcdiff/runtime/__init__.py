"""The small runtime that emitted gradient code calls (`from srcdiff import runtime`); it never
imports the transformer. Every helper takes adjoints (`g`, `bz`) and primal values and returns
a new array: adjoint arrays are never written in place, because two adjoints may share one
buffer."""
from .arrays import *  # noqa: F401,F403  (emitted code reads every helper as runtime.<name>)
from .core import *  # noqa: F401,F403
from .rearranging import *  # noqa: F401,F403
from .statistics import *  # noqa: F401,F403


def is_helper(obj):
    """Whether `obj` is one of these helpers (which need templates to be differentiated)."""
    return (getattr(obj, "__module__", None) or "").startswith(__name__ + ".")
