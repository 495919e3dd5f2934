"""What an emitted module holds besides its source, kept beside it in its cache entry."""
from dataclasses import asdict, dataclass

from .errors import Location


@dataclass(frozen=True)
class CalleeUse:
    """A call the emitted code makes to the derivative of a user function."""

    path: str  # how f's source names the function: g, helpers.g, self.g
    wrt: tuple  # its parameters differentiated
    names: tuple  # its emitted functions: jvp_g, or fwd_g and bwd_g
    outputs: tuple  # which of its outputs carry a derivative (None: its one output does)
    statics: tuple  # its static arguments, as provenance describes them


@dataclass(frozen=True)
class Meta:
    names: tuple  # the emitted functions, f's derivative first (fwd_f then bwd_f when split)
    defined: Location  # f's def
    returned: Location  # f's return
    params: tuple  # f's parameters differentiated
    preserve_result: bool
    has_aux: bool
    callees: tuple  # CalleeUse, one per user function (variant) called
    lines: tuple  # (row of the emitted source, the line of f it comes from)

    def to_json(self):
        return asdict(self)

    @classmethod
    def from_json(cls, record):
        """The Meta a cache entry holds (TypeError, KeyError or ValueError: not one)."""
        fields = dict(record)
        fields["defined"], fields["returned"] = (Location(**fields[k])
                                                 for k in ("defined", "returned"))
        fields["callees"] = tuple(CalleeUse(**callee) for callee in fields["callees"])
        for k in ("names", "params", "lines"):
            fields[k] = tuple(tuple(v) if isinstance(v, list) else v for v in fields[k])
        return cls(**fields)
