"""The shared gradient check: srcdiff against central finite differences, in float64."""
import numpy as np

import srcdiff as nf


def numerical_grad(f, args, wrt, eps=1e-6):
    args = list(args)
    x = args[wrt]
    scalar = isinstance(x, float)
    x = np.array(x, dtype=np.float64)
    grad = np.zeros_like(x)
    for index in np.ndindex(x.shape):
        for sign in (1.0, -1.0):
            shifted = x.copy()
            shifted[index] += sign * eps
            args[wrt] = float(shifted) if scalar else shifted
            grad[index] += sign * float(f(*args)) / (2 * eps)
    return float(grad) if scalar else grad


def check_grad(f, *args, wrt=None, rtol=1e-5, atol=1e-7, **options):
    """Assert srcdiff's gradient of f w.r.t. each float argument (or `wrt`) matches finite
    differences; returns the gradients."""
    if wrt is None:
        wrt = tuple(i for i, a in enumerate(args)
                    if isinstance(a, float) or (isinstance(a, np.ndarray) and a.dtype.kind == "f"))
    wrt = (wrt,) if isinstance(wrt, int) else tuple(wrt)
    grads = nf.grad(f, wrt=wrt, **options)(*args)
    for i, g in zip(wrt, grads):
        expected = numerical_grad(f, args, i)
        assert np.shape(g) == np.shape(args[i]), (i, np.shape(g), np.shape(args[i]))
        np.testing.assert_allclose(g, expected, rtol=rtol, atol=atol,
                                   err_msg=f"gradient w.r.t. argument {i} of {f.__name__}")
    return grads
