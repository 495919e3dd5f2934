"""The shared gradient check: srcdiff against central finite differences, in float64."""

import numpy as np

import srcdiff as nf
from srcdiff.check import numerical_grad  # noqa: F401  (re-exported for the tests)


def check_grad(f, *args, wrt=None, rtol=1e-5, atol=1e-7, **options):
    """Assert srcdiff's gradient of f w.r.t. each float argument (or `wrt`) matches finite
    differences; returns the gradients."""
    if wrt is None:
        wrt = tuple(
            i
            for i, a in enumerate(args)
            if isinstance(a, float) or (isinstance(a, np.ndarray) and a.dtype.kind == "f")
        )
    wrt = (wrt,) if isinstance(wrt, int) else tuple(wrt)
    grads = nf.grad(f, wrt=wrt, **options)(*args)
    for i, g in zip(wrt, grads):
        expected = numerical_grad(f, args, i)
        assert np.shape(g) == np.shape(args[i]), (i, np.shape(g), np.shape(args[i]))
        np.testing.assert_allclose(
            g,
            expected,
            rtol=rtol,
            atol=atol,
            err_msg=f"gradient w.r.t. argument {i} of {f.__name__}",
        )
    return grads
