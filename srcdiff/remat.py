"""`nf.checkpoint(fn)`: rematerialisation. A derivative of a function that calls a checkpointed
fn keeps only fn's arguments from its forward sweep, not the values fn's own adjoint reads; its
adjoint sweep runs fn's forward sweep again, just before fn's adjoint, to have them back. Peak
memory then holds one checkpointed call's values at a time, for the cost of a second forward
pass through it (JAX's jax.checkpoint, PyTorch's torch.utils.checkpoint)."""

import functools
import inspect

from .arguments import caller
from .errors import SrcdiffError
from .python_versions import python_version


class Checkpointed:
    """fn, called as fn is; `fun` is fn. (A class, not a function: srcdiff must see the
    mark on the object a call resolves to, and must not differentiate a wrapper's source.)"""

    def __init__(self, fun):
        functools.update_wrapper(self, fun)
        self.fun = fun

    def __call__(self, *args, **kwargs):
        return self.fun(*args, **kwargs)

    def __repr__(self):
        return f"<srcdiff checkpoint of {self.fun.__qualname__}>"


def checkpoint(fun):
    """Mark `fun` (a Python function srcdiff differentiates through its source) so that a
    gradient computes its intermediate values again in the backward sweep instead of keeping
    them. Use it as a decorator, or as `block = nf.checkpoint(basic_block)` at module level,
    and call it like `fun` inside the differentiated function; the result is the same."""
    if isinstance(fun, Checkpointed):
        return fun
    if not inspect.isfunction(fun):
        raise SrcdiffError(
            f"nf.checkpoint takes a Python function, not {type(fun).__name__}",
            caller(),
            hint="checkpoint the def that calls it instead",
        )
    return Checkpointed(fun)


def unwrap(obj):
    """(the function, whether it is checkpointed) for what a call's callee resolves to (of a
    library function srcdiff follows as Python, that Python)."""
    if isinstance(obj, Checkpointed):
        return obj.fun, True
    runs = getattr(type(obj), "runs_as", None)
    if runs is not None and runs(obj) is not None:
        return runs(obj), False
    return python_version(obj) or obj, False
