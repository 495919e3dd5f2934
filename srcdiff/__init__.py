"""srcdiff: source-to-source automatic differentiation for Python + NumPy."""

__version__ = "0.1.0"  # the one place the version is written (pyproject.toml reads it)

# the built-in primitives register themselves as their modules are imported
from .primitives import (
    constants,
    elementwise,
    helpers,
    helpers_products,
    helpers_containers,
    helpers_reductions,
    indexing,
    linalg,
    optional,
    reductions,
    shape,
    trigonometric,
)
from .primitives import decompositions, fft, linalg_helpers
from .primitives import (
    array_api,
    arrays,
    helpers_arrays,
    helpers_statistics,
    numerics,
    order_statistics,
    products,
    python_math,
    selecting,
    statistics,
)
from .api import Derivative, config, grad, jvp
from .composed import (
    elementwise_grad,
    hessian,
    hvp,
    jacfwd,
    jacobian,
    jacrev,
    value_and_grad,
    vjp,
)
from .check import check_grads
from .errors import (
    ArgumentError,
    NoAdjointError,
    SrcdiffError,
    StaticArgumentNeeded,
    TemplateError,
    UnsupportedError,
)
from .primitives.registry import adjoint, nondifferentiable, shape_safe, tangent
from .remat import checkpoint
from .runtime import register_pytree_node, stop_gradient
from .tree import ravel, tree_flatten, tree_leaves, tree_map, tree_unflatten, unravel
from . import optim

__all__ = [
    "grad",
    "value_and_grad",
    "vjp",
    "jvp",
    "hvp",
    "hessian",
    "jacobian",
    "jacrev",
    "jacfwd",
    "elementwise_grad",
    "check_grads",
    "config",
    "adjoint",
    "tangent",
    "nondifferentiable",
    "shape_safe",
    "Derivative",
    "SrcdiffError",
    "UnsupportedError",
    "NoAdjointError",
    "ArgumentError",
    "TemplateError",
    "StaticArgumentNeeded",
    "register_pytree_node",
    "stop_gradient",
    "checkpoint",
]
__all__ += [
    "tree_map",
    "tree_flatten",
    "tree_unflatten",
    "tree_leaves",
    "ravel",
    "unravel",
    "optim",
]
