"""SciPy's linear algebra (scipy.linalg: solve_triangular, cho_factor, cho_solve, sqrtm and
solve_sylvester, which sqrtm's derivatives solve), declared once the program imports
scipy.linalg (optional.py), and the runtime helpers their templates call. Real matrices.

A triangular solve reads one triangle of its matrix, so that triangle alone gets a gradient
(runtime.triangle). cho_factor returns (c, lower), c holding L (a = L L^T) or L^T in one
triangle and arbitrary values in the other, which get no gradient; its adjoint is Murray's
(2016): bA = sym(L^-T Phi(L^T bL) L^-1), Phi the lower triangle with a halved diagonal. a is
symmetric, so its gradient is too: the average of what each triangle would get (SciPy reads
one)."""

import gast
import numpy as np
import scipy.linalg

from .. import ir, runtime
from ..shapes import Const, Items, evaluate
from .registry import EVALUATE, Sample, primitive
from .rewriting import shape
from .samples import real, well_conditioned


def _solve(function, **facts):
    return primitive(function, shape=EVALUATE, fresh=True, **facts)


@_solve(
    scipy.linalg.solve_triangular,
    samples=[
        Sample("scipy.linalg.solve_triangular(a, b, lower=True)", a=well_conditioned(3), b=real(3)),
        Sample("scipy.linalg.solve_triangular(a, b)", a=well_conditioned(3), b=real(3, 2)),
        Sample(
            "scipy.linalg.solve_triangular(a, b, trans='T', lower=True, unit_diagonal=True)",
            a=well_conditioned(3),
            b=real(3, 2),
        ),
        Sample("scipy.linalg.solve_triangular(a, b, trans=1)", a=well_conditioned(3), b=real(3)),
    ],
)
class solve_triangular:  # op(a) z = b, op(a) being a or a^T
    def adjoint(
        bz, z, a, b, trans=0, lower=False, unit_diagonal=False, overwrite_b=False, check_finite=True
    ):
        ba = -runtime.triangle(
            runtime.solve_outer(
                scipy.linalg.solve_triangular(
                    a, bz, trans=runtime.transposed(trans), lower=lower, unit_diagonal=unit_diagonal
                ),
                z,
            ),
            lower=lower,
            unit_diagonal=unit_diagonal,
            trans=trans,
        )
        bb = scipy.linalg.solve_triangular(
            a, bz, trans=runtime.transposed(trans), lower=lower, unit_diagonal=unit_diagonal
        )

    def tangent(
        dz, z, a, b, trans=0, lower=False, unit_diagonal=False, overwrite_b=False, check_finite=True
    ):
        dz = -scipy.linalg.solve_triangular(
            a,
            runtime.untriangle(da, lower=lower, unit_diagonal=unit_diagonal, trans=trans) @ z,
            trans=trans,
            lower=lower,
            unit_diagonal=unit_diagonal,
        )
        dz = scipy.linalg.solve_triangular(
            a, db, trans=trans, lower=lower, unit_diagonal=unit_diagonal
        )


_SPD = "a @ a.T + 3 * np.eye(3)"  # symmetric positive definite, and kept so by differences


def _factor_and_flag(args, kwargs):
    """cho_factor's (c, lower): c's type and shape from the call on stand-ins, and the flag
    as it was passed, a constant where it is one (so that specialised code knows which
    triangle of c holds the factor, and reads it with np.tril or np.triu)."""
    out = evaluate(scipy.linalg.cho_factor, args, kwargs, fresh=True)
    lower = kwargs.get("lower", args[1] if len(args) > 1 else Const(False))
    if not isinstance(out, Items) or len(out.items) != 2 or not isinstance(lower, Const):
        return out
    return Items(tuple, (out.items[0], lower))


@primitive(
    scipy.linalg.cho_factor,
    shape=_factor_and_flag,
    fresh=True,
    samples=[
        Sample(
            f"scipy.linalg.cho_solve(scipy.linalg.cho_factor({_SPD}), b)", a=real(3, 3), b=real(3)
        ),
        Sample(
            f"np.log(scipy.linalg.cho_factor({_SPD}, lower=True)[0][[0, 1, 2], [0, 1, 2]])",
            a=real(3, 3),
        ),
    ],
)
class cho_factor:  # z = (c, lower)
    def adjoint(bz, z, a, lower=False, overwrite_a=False, check_finite=True):
        ba = runtime.symmetrize(
            scipy.linalg.solve_triangular(
                runtime.lower_factor(z[0], lower),
                scipy.linalg.solve_triangular(
                    runtime.lower_factor(z[0], lower),
                    runtime.lower_half(
                        runtime.lower_factor(z[0], lower).mT
                        @ runtime.lower_factor(runtime.unpack_adjoint(bz, z)[0], lower)
                    ),
                    trans=1,
                    lower=True,
                ).mT,
                trans=1,
                lower=True,
            )
        )

    def tangent(dz, z, a, lower=False, overwrite_a=False, check_finite=True):  # L Phi(L^-1 da L^-T)
        dz = (
            runtime.factor_part(
                runtime.lower_factor(z[0], lower)
                @ runtime.lower_half(
                    scipy.linalg.solve_triangular(
                        runtime.lower_factor(z[0], lower),
                        scipy.linalg.solve_triangular(
                            runtime.lower_factor(z[0], lower), da, lower=True
                        ).mT,
                        lower=True,
                    ).mT
                ),
                lower,
            ),
            None,
        )


@_solve(
    scipy.linalg.cho_solve,
    samples=[
        Sample(
            "scipy.linalg.cho_solve((c, low), b)",
            a=real(3, 3),
            b=real(3, 2),
            setup=f"c, low = scipy.linalg.cho_factor({_SPD}, lower=True)",
        ),
        Sample(
            "scipy.linalg.cho_solve(factor, b)",
            a=real(3, 3),
            b=real(3),
            setup=f"factor = scipy.linalg.cho_factor({_SPD})",
        ),
    ],
)
class cho_solve:  # z = a^-1 b, a = L L^T: ba = -sym(bb z^T), bL = 2 ba L
    def adjoint(bz, z, c_and_lower, b, overwrite_b=False, check_finite=True):
        bc_and_lower = runtime.factor_adjoint(
            runtime.factor_part(
                -2
                * runtime.symmetrize(
                    runtime.solve_outer(scipy.linalg.cho_solve(c_and_lower, bz), z)
                )
                @ runtime.lower_factor(c_and_lower[0], c_and_lower[1]),
                c_and_lower[1],
            )
        )
        bb = scipy.linalg.cho_solve(c_and_lower, bz)

    def tangent(dz, z, c_and_lower, b, overwrite_b=False, check_finite=True):
        dz = -scipy.linalg.cho_solve(
            c_and_lower,
            runtime.lower_factor(dc_and_lower[0], c_and_lower[1])
            @ runtime.lower_factor(c_and_lower[0], c_and_lower[1]).mT
            @ z
            + runtime.lower_factor(c_and_lower[0], c_and_lower[1])
            @ runtime.lower_factor(dc_and_lower[0], c_and_lower[1]).mT
            @ z,
        )
        dz = scipy.linalg.cho_solve(c_and_lower, db)


# --- the square root, through Sylvester's equation a z + z b = q -------------------------------


@_solve(
    scipy.linalg.sqrtm,
    samples=[
        Sample("scipy.linalg.sqrtm(a @ a.T + np.eye(3))", a=real(3, 3)),
        Sample("scipy.linalg.sqrtm(a)", a=well_conditioned(3)),
    ],
)
class sqrtm:  # z z = A: z dz + dz z = dA
    def adjoint(bz, z, A):
        bA = scipy.linalg.solve_sylvester(z.T, z.T, bz)

    def tangent(dz, z, A):
        dz = scipy.linalg.solve_sylvester(z, z, dA)


@_solve(
    scipy.linalg.solve_sylvester,
    samples=[
        Sample(
            "scipy.linalg.solve_sylvester(a, b, q)",
            a=well_conditioned(3),
            b=well_conditioned(2),
            q=real(3, 2),
        )
    ],
)
class solve_sylvester:
    def adjoint(bz, z, a, b, q):
        ba = -scipy.linalg.solve_sylvester(a.T, b.T, bz) @ z.T
        bb = -z.T @ scipy.linalg.solve_sylvester(a.T, b.T, bz)
        bq = scipy.linalg.solve_sylvester(a.T, b.T, bz)

    def tangent(dz, z, a, b, q):
        dz = scipy.linalg.solve_sylvester(a, b, -da @ z)
        dz = scipy.linalg.solve_sylvester(a, b, -z @ db)
        dz = scipy.linalg.solve_sylvester(a, b, dq)


# --- the runtime helpers: linear maps, each with its adjoint ----------------------------------


@primitive(
    runtime.transposed,
    differentiable=False,
    shape=EVALUATE,
    samples=[Sample("x * runtime.transposed(0)", x=real(3))],
)
class transposed:
    def fold(value):  # trans=0 left out: the adjoint solves with trans=1
        return gast.Constant(value=runtime.transposed(value), kind=None)


@primitive(
    runtime.triangle,
    shape=EVALUATE,
    fresh=True,
    samples=[
        Sample("runtime.triangle(m, lower=True)", m=real(3, 3)),
        Sample("runtime.triangle(m, unit_diagonal=True, trans='T')", m=real(2, 3, 3)),
    ],
)
class triangle:
    def adjoint(bz, z, m, lower=False, unit_diagonal=False, trans=0):
        bm = runtime.untriangle(bz, lower=lower, unit_diagonal=unit_diagonal, trans=trans)

    def tangent(dz, z, m, lower=False, unit_diagonal=False, trans=0):
        dz = runtime.triangle(dm, lower=lower, unit_diagonal=unit_diagonal, trans=trans)

    def rewrite(node, m, lower=Const(False), unit_diagonal=Const(False), trans=Const(0)):
        flags = (lower, unit_diagonal, trans)
        if not all(isinstance(f, Const) for f in flags) or shape(m) is None or len(shape(m)) < 2:
            return None
        m_node = node.args[0]
        if runtime.transposes(trans.value):
            m_node = ir.attr(m_node, "T") if len(shape(m)) == 2 else ir.attr(m_node, "mT")
        k = int(unit_diagonal.value)
        part = ir.call("np.tril" if lower.value else "np.triu", m_node)
        if k:
            part.args.append(ir.const(-k if lower.value else k))
        return part


@primitive(
    runtime.untriangle,
    shape=EVALUATE,
    fresh=True,
    samples=[Sample("runtime.untriangle(h, lower=True, trans=1)", h=real(3, 3))],
)
class untriangle:
    def adjoint(bz, z, h, lower=False, unit_diagonal=False, trans=0):
        bh = runtime.triangle(bz, lower=lower, unit_diagonal=unit_diagonal, trans=trans)

    def tangent(dz, z, h, lower=False, unit_diagonal=False, trans=0):
        dz = runtime.untriangle(dh, lower=lower, unit_diagonal=unit_diagonal, trans=trans)


@primitive(
    runtime.lower_factor,
    constant=("lower",),
    shape=EVALUATE,
    samples=[Sample("runtime.lower_factor(c, True) + runtime.lower_factor(c)", c=real(3, 3))],
)
class lower_factor:
    def adjoint(bz, z, c, lower=False):
        bc = runtime.factor_part(bz, lower)

    def tangent(dz, z, c, lower=False):
        dz = runtime.lower_factor(dc, lower)

    def rewrite(node, c, lower=Const(False)):  # np.tril(c), or np.triu(c).T
        return _flagged_triangle(node, c, lower, transposed_after=True)


def _flagged_triangle(node, m, lower, transposed_after):
    """np.tril(m) for lower=True, else np.triu of m (transposed after, or before), for a
    constant flag: what lower_factor and factor_part compute."""
    if not isinstance(lower, Const) or shape(m) is None or len(shape(m)) < 2:
        return None
    m_node = node.args[0]
    if lower.value:
        return ir.call("np.tril", m_node)
    transpose = "T" if len(shape(m)) == 2 else "mT"
    if transposed_after:
        return ir.attr(ir.call("np.triu", m_node), transpose)
    return ir.call("np.triu", ir.attr(m_node, transpose))


@primitive(
    runtime.factor_part,
    constant=("lower",),
    shape=EVALUATE,
    samples=[Sample("runtime.factor_part(g, True) + runtime.factor_part(g)", g=real(3, 3))],
)
class factor_part:
    def adjoint(bz, z, g, lower=False):
        bg = runtime.lower_factor(bz, lower)

    def tangent(dz, z, g, lower=False):
        dz = runtime.factor_part(dg, lower)

    def rewrite(node, g, lower=Const(False)):  # np.tril(g), or np.triu(g.T)
        return _flagged_triangle(node, g, lower, transposed_after=False)


@primitive(
    runtime.factor_adjoint,
    shape=EVALUATE,
    samples=[Sample("runtime.factor_adjoint(g)[0]", g=real(3, 3))],
)
class factor_adjoint:
    def adjoint(bz, z, g):
        bg = bz[0]

    def tangent(dz, z, g):
        dz = runtime.factor_adjoint(dg)


@primitive(
    runtime.solve_outer,
    shape=EVALUATE,
    fresh=True,
    samples=[
        Sample("runtime.solve_outer(s, x)", s=real(3), x=real(4)),
        Sample("runtime.solve_outer(s, x)", s=real(2, 3, 2), x=real(2, 4, 2)),
    ],
)
class solve_outer:  # s x^T
    def adjoint(bz, z, s, x):
        bs = bz @ x
        bx = np.swapaxes(bz, -1, -2) @ s

    def tangent(dz, z, s, x):
        dz = runtime.solve_outer(ds, x)
        dz = runtime.solve_outer(s, dx)

    def rewrite(node, s, x):
        s_shape, x_shape = shape(s), shape(x)
        if s_shape is None or x_shape is None:
            return None
        if len(s_shape) == 1:
            return ir.call("np.outer", *node.args)
        if len(x_shape) == 2:  # (x.T is np.swapaxes(x, -1, -2) for a matrix)
            return gast.BinOp(
                left=node.args[0], op=gast.MatMult(), right=ir.attr(node.args[1], "T")
            )
        return None


@primitive(
    runtime.lower_half,
    shape=EVALUATE,
    fresh=True,
    samples=[Sample("runtime.lower_half(x)", x=real(3, 3))],
)
class lower_half:
    def adjoint(bz, z, x):
        bx = runtime.lower_half(bz)

    def tangent(dz, z, x):
        dz = runtime.lower_half(dx)
