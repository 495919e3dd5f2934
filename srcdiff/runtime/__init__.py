"""The small runtime that emitted gradient code calls (`from srcdiff import runtime`); it never
imports the transformer. Every helper takes adjoints (`g`, `bz`) and primal values and returns
a new array: adjoint arrays are never written in place, because two adjoints may share one
buffer."""

from .arrays import *  # noqa: F401,F403  (emitted code reads every helper as runtime.<name>)
from .containers import *  # noqa: F401,F403
from .core import *  # noqa: F401,F403
from .distances import *  # noqa: F401,F403
from .fft import *  # noqa: F401,F403
from .generalized_eigh import *  # noqa: F401,F403
from .linalg import *  # noqa: F401,F403
from .lu import *  # noqa: F401,F403
from .made_once import *  # noqa: F401,F403
from .matrix_functions import *  # noqa: F401,F403
from .numerics import *  # noqa: F401,F403
from .qr import *  # noqa: F401,F403
from .rearranging import *  # noqa: F401,F403
from .records import *  # noqa: F401,F403
from .reductions import *  # noqa: F401,F403
from .scipy_support import *  # noqa: F401,F403
from .sharing import *  # noqa: F401,F403
from .special import *  # noqa: F401,F403
from .statistics import *  # noqa: F401,F403
from .tangents import *  # noqa: F401,F403


# modules of plain differentiable numpy, which srcdiff differentiates through their source
_THROUGH_SOURCE = (
    f"{__name__}.distances",
    f"{__name__}.fft",
    f"{__name__}.generalized_eigh",
    f"{__name__}.linalg",
    f"{__name__}.lu",
    f"{__name__}.matrix_functions",
    f"{__name__}.numerics",
    f"{__name__}.qr",
)


def is_helper(obj):
    """Whether `obj` is one of these helpers (which need templates to be differentiated)."""
    module = getattr(obj, "__module__", None) or ""
    return module.startswith(__name__ + ".") and module not in _THROUGH_SOURCE
