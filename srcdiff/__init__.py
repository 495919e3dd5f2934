"""srcdiff: source-to-source automatic differentiation for Python + NumPy."""
from . import adjoints as _adjoints  # noqa: F401  (registers the built-in templates)
from .api import Derivative, config, grad, value_and_grad, vjp
from .errors import (ArgumentError, NoAdjointError, SrcdiffError, TemplateError,
                     UnsupportedError)
from .template import adjoint, nondifferentiable
from .transform import VERSION as __version__

__all__ = ["grad", "value_and_grad", "vjp", "config", "adjoint", "nondifferentiable",
           "Derivative", "SrcdiffError", "UnsupportedError", "NoAdjointError", "ArgumentError",
           "TemplateError"]
