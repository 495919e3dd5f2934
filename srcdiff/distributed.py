"""Data-parallel training over MPI (mpi4py): each rank differentiates its shard of every global
batch and the gradients are averaged with one Allreduce, so every rank takes the same step.

`Single` is the one-process world the trainer runs in without --distributed; `MPIWorld` has the
same methods over MPI.COMM_WORLD. Run as
    mpiexec -n 4 python -m srcdiff train --distributed ...
"""

import zlib

import numpy as np

from .errors import SrcdiffError
from .tree import ravel, unravel


class DistributedError(SrcdiffError):
    """MPI is missing, or the ranks disagree."""


class Single:
    """One process: every method is the identity, or nearly."""

    rank, size, is_root, local_size = 0, 1, True, 1

    def shard(self, items):
        return items

    def mean_gradient(self, grads, count):
        return grads

    def sum(self, values):
        return np.asarray(values, dtype=np.float64)

    def mean_tree(self, tree):
        return tree

    def broadcast(self, value):
        return value

    def gather(self, value):
        return [value]

    def check_same(self, tree, what):
        pass

    def abort(self):
        pass


class MPIWorld:
    """MPI.COMM_WORLD: rank 0 is the root, which alone reads and writes files."""

    def __init__(self):
        try:
            from mpi4py import MPI
        except ImportError:
            raise DistributedError(
                "--distributed needs mpi4py and an MPI library",
                hint="pip install 'srcdiff[distributed]' (mpi4py and the "
                "mpich wheel), then run under mpiexec -n N",
            ) from None
        self.MPI = MPI
        self.comm = MPI.COMM_WORLD
        self.rank, self.size = self.comm.Get_rank(), self.comm.Get_size()
        self.is_root = self.rank == 0
        # ranks sharing this machine's cores, for the BLAS thread count
        self.local_size = self.comm.Split_type(MPI.COMM_TYPE_SHARED).Get_size()

    def shard(self, items):
        """This rank's contiguous part of a global batch (parts differ in size by at most one)."""
        return np.array_split(items, self.size)[self.rank]

    def mean_gradient(self, grads, count):
        """The gradient of the global batch's mean loss, from each rank's gradient of its own
        shard's mean (weighted by the shard's size, which may differ by one, or be 0)."""
        local = ravel(grads)
        total = np.empty_like(local)
        self.comm.Allreduce(local * local.dtype.type(count), total, op=self.MPI.SUM)
        images = self.comm.allreduce(count, op=self.MPI.SUM)
        return unravel(total / total.dtype.type(images), grads)

    def sum(self, values):
        local = np.asarray(values, dtype=np.float64)
        total = np.empty_like(local)
        self.comm.Allreduce(local, total, op=self.MPI.SUM)
        return total

    def mean_tree(self, tree):
        """Every rank's tree averaged (the batch-norm running statistics, with --sync-bn)."""
        local = ravel(tree)
        total = np.empty_like(local)
        self.comm.Allreduce(local, total, op=self.MPI.SUM)
        return unravel(total / total.dtype.type(self.size), tree)

    def broadcast(self, value):
        return self.comm.bcast(value, root=0)

    def gather(self, value):
        return self.comm.gather(value, root=0)

    def check_same(self, tree, what):
        """Raise on every rank if the ranks' copies of `tree` differ (they never should)."""
        digests = self.comm.allgather(zlib.crc32(ravel(tree).tobytes()))
        if len(set(digests)) > 1:
            raise DistributedError(
                f"the ranks' {what} differ after an Allreduce step",
                hint="every rank must run the same srcdiff, numpy and options",
            )

    def abort(self):
        self.comm.Abort(1)


def world(distributed):
    return MPIWorld() if distributed else Single()
