"""What the reverse transform tells the optimisation passes about a statement it emitted,
declared here and set and read only through mark and is_marked."""

import enum


class Mark(enum.Enum):
    ACCUMULATION = "srcdiff_accumulation"  # `bx = bx + e`: passes/in_place.py may make it +=
    FRESH = "srcdiff_fresh"  # it makes a new buffer: passes/in_place.py may add into it


def mark(stmt, what):
    setattr(stmt, what.value, True)
    return stmt


def is_marked(stmt, what):
    return getattr(stmt, what.value, False)
