"""What an emitted module holds besides its source, kept beside it in its cache entry."""

import linecache
from dataclasses import dataclass, fields, replace

from .errors import Location


@dataclass(frozen=True)
class CalleeUse:
    """A call the emitted code makes to the derivative of a user function."""

    path: str  # how f's source names the function: g, helpers.g, self.g
    wrt: tuple  # its parameters differentiated
    names: tuple  # its emitted functions: jvp_g, or fwd_g and bwd_g
    outputs: tuple  # which of its outputs carry a derivative (None: its one output does)
    statics: tuple  # its static arguments, as provenance describes them
    suffixed: tuple  # the functions its module names by what they differentiate (naming.py)
    # in a recursion through the caller: its derivative calls the caller's back, so the two
    # modules are linked as they run, not made one inside the other (transform.py)
    cyclic: bool = False


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
    first_line: int  # f.__code__.co_firstlineno when it was made
    suffixed: tuple  # the functions named by what they differentiate in the module (naming.py)

    def relocated(self, filename, first_line):
        """This metadata for f's source now at `first_line` of `filename`: a cache entry is
        found by the source, which may have moved since (lines above it edited) or stand in
        another file, and its locations must name where f is now."""
        shift = first_line - self.first_line
        if shift == 0 and filename == self.defined.filename:
            return self

        def moved(location):
            lineno = location.lineno + shift
            return Location(
                filename, lineno, linecache.getline(filename, lineno).rstrip() or location.line
            )

        return replace(
            self,
            defined=moved(self.defined),
            returned=moved(self.returned),
            lines=tuple((row, line + shift) for row, line in self.lines),
            first_line=first_line,
        )

    def to_json(self):
        """asdict(self) without its deep copy of each value (json.dumps reads them once; a
        copy of each of the thousands of line pairs of a long function, of each callee's
        statics, cost a transform more than writing its cache entry)."""
        record = _fields(self)
        record["defined"], record["returned"] = _fields(self.defined), _fields(self.returned)
        record["callees"] = [_fields(callee) for callee in self.callees]
        return record

    @classmethod
    def from_json(cls, record):
        """The Meta a cache entry holds (TypeError, KeyError or ValueError: not one)."""
        fields = dict(record)
        fields["defined"], fields["returned"] = (
            Location(**fields[k]) for k in ("defined", "returned")
        )
        fields["callees"] = tuple(CalleeUse(**callee) for callee in fields["callees"])
        for k in ("names", "params", "lines", "suffixed"):
            fields[k] = tuple(tuple(v) if isinstance(v, list) else v for v in fields[k])
        return cls(**fields)


def _fields(record):
    return {field.name: getattr(record, field.name) for field in fields(record)}
