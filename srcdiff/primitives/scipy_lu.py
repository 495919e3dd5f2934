"""SciPy's LU factorisation (scipy.linalg.lu_factor) and the solve with it (lu_solve),
declared once the program imports scipy.linalg (optional.py). Their templates call
runtime/lu.py, plain numpy that srcdiff differentiates through its source (lu_solve's adjoint
in b too, which solves with a^T: its derivatives are np.linalg.solve's). lu_factor's
(lu, piv): lu is differentiable, the pivots piv (integers) are not; lu_solve with trans=0
(another trans is an error at the user's line)."""

import scipy.linalg

from .. import runtime
from .registry import EVALUATE, Sample, constants, primitive
from .samples import constant, real, well_conditioned


@primitive(
    scipy.linalg.lu_factor,
    shape=EVALUATE,
    fresh=True,
    inert_keywords=("check_finite",),
    samples=[
        Sample("scipy.linalg.lu_factor(a)[0]", a=real(3, 3)),
        Sample("lu * piv", setup="lu, piv = scipy.linalg.lu_factor(a)", a=well_conditioned(4)),
    ],
)
class lu_factor:  # z = (lu, piv)
    def adjoint(bz, z, a, overwrite_a=False):
        ba = runtime.lu_factor_vjp(runtime.unpack_adjoint(bz, z)[0], z[0], z[1])

    def tangent(dz, z, a, overwrite_a=False):  # (and a zero for piv, which lu * piv reads)
        dz = runtime.factor_adjoint(runtime.lu_factor_jvp(da, z[0], z[1]))


@primitive(
    scipy.linalg.lu_solve,
    shape=EVALUATE,
    fresh=True,
    inert_keywords=("check_finite",),
    samples=[
        Sample(
            "scipy.linalg.lu_solve(scipy.linalg.lu_factor(a), b)",
            a=well_conditioned(3),
            b=real(3),
        ),
        Sample(
            "scipy.linalg.lu_solve((lu, piv), b)",
            setup="lu, piv = scipy.linalg.lu_factor(a)",
            a=well_conditioned(3),
            b=real(3, 2),
        ),
    ],
)
class lu_solve:  # z = a^-1 b
    def adjoint(bz, z, lu_and_piv, b, overwrite_b=False):
        blu_and_piv = runtime.factor_adjoint(
            runtime.lu_solve_vjp(bz, z, lu_and_piv[0], lu_and_piv[1], b)
        )
        bb = runtime.lu_solve_transposed(lu_and_piv[0], lu_and_piv[1], bz)

    def tangent(dz, z, lu_and_piv, b, overwrite_b=False):
        dz = runtime.lu_solve_jvp(dlu_and_piv[0], z, lu_and_piv[0], lu_and_piv[1], b)
        dz = scipy.linalg.lu_solve(lu_and_piv, db)


constants(
    runtime.lu_permutation,
    samples=[Sample("x[runtime.lu_permutation(piv)]", x=real(3), piv=constant([2, 2, 2]))],
)


def _through_source(function, call, setup, **args):
    """A derivative of runtime/lu.py: its record tells its result's shape; its sample checks
    its gradient through its source."""
    sample = Sample(call, setup=setup, **args)
    record = primitive(function, shape=EVALUATE, fresh=True, samples=[sample])
    record(type(function.__name__, (), {}))


_FACTORED = "lu, piv = scipy.linalg.lu_factor(a)"
_through_source(
    runtime.lu_factor_vjp,
    "runtime.lu_factor_vjp(g, lu, piv)",
    setup=_FACTORED,
    g=real(3, 3),
    a=real(3, 3),
)
_through_source(
    runtime.lu_factor_jvp,
    "runtime.lu_factor_jvp(d, lu, piv)",
    setup=_FACTORED,
    d=real(3, 3),
    a=real(3, 3),
)
_through_source(
    runtime.lu_solve_vjp,
    "runtime.lu_solve_vjp(g, np.linalg.solve(a, b), lu, piv, b)",
    setup=_FACTORED,
    g=real(3),
    a=well_conditioned(3),
    b=real(3),
)
_through_source(
    runtime.lu_solve_transposed,
    "runtime.lu_solve_transposed(lu, piv, g)",
    setup=_FACTORED,
    a=well_conditioned(3),
    g=real(3, 2),
)
_through_source(
    runtime.lu_solve_jvp,
    "runtime.lu_solve_jvp(d, np.linalg.solve(a, b), lu, piv, b)",
    setup=_FACTORED,
    d=real(3, 3),
    a=well_conditioned(3),
    b=real(3, 2),
)
