"""SciPy's pairwise distances (scipy.spatial.distance.cdist, pdist and squareform), as a
Gaussian process's kernel reads them (scikit-learn's RBF: squareform(pdist(X / l,
'sqeuclidean'))), declared once the program imports scipy.spatial.distance (optional.py).
The metrics 'euclidean' and 'sqeuclidean' are differentiated; another is refused as the
gradient runs (runtime.distance_weights)."""

import scipy.spatial.distance

from .. import runtime
from .registry import EVALUATE, Sample, primitive
from .samples import constant, real

_CDIST, _PDIST = "scipy.spatial.distance.cdist", "scipy.spatial.distance.pdist"
_SQUAREFORM = "scipy.spatial.distance.squareform"


@primitive(
    scipy.spatial.distance.cdist,
    constant=("metric",),
    shape=EVALUATE,
    fresh=True,
    samples=[
        Sample(f"{_CDIST}(a, b)", a=real(4, 3), b=real(2, 3)),
        Sample(f"{_CDIST}(a, b, 'sqeuclidean')", a=real(4, 3), b=real(2, 3)),
        Sample(f"{_CDIST}(a, b, metric='euclidean')", a=real(3, 2), b=real(3, 2)),
    ],
)
class cdist:
    def adjoint(bz, z, XA, XB, metric="euclidean"):
        bXA = runtime.cdist_vjp(bz, z, XA, XB, metric)
        bXB = runtime.cdist_vjp(bz.T, z.T, XB, XA, metric)

    def tangent(dz, z, XA, XB, metric="euclidean"):
        dz = runtime.cdist_jvp(dXA, z, XA, XB, metric)
        dz = runtime.cdist_jvp(dXB, z.T, XB, XA, metric).T


@primitive(
    scipy.spatial.distance.pdist,
    constant=("metric",),
    shape=EVALUATE,
    fresh=True,
    samples=[
        Sample(f"{_PDIST}(a)", a=real(4, 3)),
        Sample(f"{_PDIST}(a, 'sqeuclidean')", a=real(4, 3)),
        Sample(f"{_SQUAREFORM}(np.exp(-0.5 * {_PDIST}(a, metric='sqeuclidean')))", a=real(3, 2)),
    ],
)
class pdist:
    def adjoint(bz, z, X, metric="euclidean"):
        bX = runtime.pdist_vjp(bz, z, X, metric)

    def tangent(dz, z, X, metric="euclidean"):
        dz = runtime.pdist_jvp(dX, z, X, metric)


@primitive(
    scipy.spatial.distance.squareform,
    constant=("force", "checks"),
    shape=EVALUATE,
    fresh=True,
    samples=[
        Sample(f"{_SQUAREFORM}(v)", v=real(6)),
        Sample(f"{_SQUAREFORM}(m + m.T - 2 * np.diag(np.diag(m)))", m=real(4, 4)),
        Sample(f"{_SQUAREFORM}(m, checks=c)", m=real(3, 3), c=constant(False)),
    ],
)
class squareform:
    def adjoint(bz, z, X, force="no", checks=True):
        bX = runtime.squareform_vjp(bz, X)

    def tangent(dz, z, X, force="no", checks=True):
        dz = scipy.spatial.distance.squareform(dX, force=force, checks=False)
