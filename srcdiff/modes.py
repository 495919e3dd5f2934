"""The derivatives a function is transformed into, and what each is called."""

import enum


class Mode(str, enum.Enum):
    """A str, so a mode is written into cache keys and metadata as its value ("grad")."""

    GRAD = "grad"  # the gradient of a scalar output: d<f>(args)
    VJP = "vjp"  # a vector-Jacobian product, the output's cotangent first: vjp_<f>(b, args)
    SPLIT = "split"  # the sweeps apart: fwd_<f>(args) -> (out, saved); bwd_<f>(b_out, saved)
    JVP = "jvp"  # forward mode: jvp_<f>(tangents, args) -> (out, tangent)

    __str__ = str.__str__
    __format__ = str.__format__

    @property
    def prefix(self):
        """The emitted function's name is this followed by f's."""
        return {Mode.GRAD: "d", Mode.VJP: "vjp_", Mode.SPLIT: "fwd_", Mode.JVP: "jvp_"}[self]

    def function_names(self, name):
        """The emitted functions' names for a function `name`: d<f>, or fwd_<f> and bwd_<f>."""
        return [self.prefix + name] + ([f"bwd_{name}"] if self is Mode.SPLIT else [])

    @property
    def title(self):
        """What the emitted module's docstring says it is."""
        return {
            Mode.GRAD: "Gradient",
            Mode.VJP: "Vector-Jacobian product",
            Mode.SPLIT: "Forward and backward sweeps",
            Mode.JVP: "Jacobian-vector product",
        }[self]

    @property
    def for_callees(self):
        """The mode a differentiated function's calls to user functions are transformed in."""
        return Mode.JVP if self is Mode.JVP else Mode.SPLIT
