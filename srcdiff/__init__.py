"""srcdiff: source-to-source automatic differentiation for Python + NumPy."""
__version__ = "0.1.0"  # the one place the version is written (pyproject.toml reads it)

from . import adjoints as _adjoints  # noqa: F401  (registers the built-in templates)
from . import tangents as _tangents  # noqa: F401
from .api import (Derivative, config, elementwise_grad, grad, hessian, hvp, jacfwd, jacobian,
                  jacrev, jvp, value_and_grad, vjp)
from .check import check_grads
from .errors import (ArgumentError, NoAdjointError, SrcdiffError, TemplateError,
                     UnsupportedError)
from .template import adjoint, nondifferentiable, tangent

__all__ = ["grad", "value_and_grad", "vjp", "jvp", "hvp", "hessian", "jacobian", "jacrev",
           "jacfwd", "elementwise_grad", "check_grads", "config", "adjoint", "tangent",
           "nondifferentiable",
           "Derivative", "SrcdiffError", "UnsupportedError", "NoAdjointError", "ArgumentError",
           "TemplateError"]
