"""Errors raised while transforming or calling a differentiated function."""

from dataclasses import dataclass


@dataclass(frozen=True)
class Location:
    """Where in the user's source a construct lives."""

    filename: str
    lineno: int
    line: str

    def __str__(self):
        return f"{self.filename}:{self.lineno}"


class SrcdiffError(Exception):
    """Every failure to transform or differentiate; names file:line, the line and a hint."""

    def __init__(self, message, location=None, hint=None):
        self.message = message
        self.location = location
        self.hint = hint
        super().__init__(self._format())

    def locate(self, location):
        """Say the error happens at `location` instead."""
        self.location = location
        self.args = (self._format(),)

    def _format(self):
        parts = [f"{self.location}: {self.message}" if self.location else self.message]
        if self.location is not None and self.location.line:
            parts.append(f"    {self.location.line.strip()}")
        if self.hint:
            parts.append(f"hint: {self.hint}")
        return "\n".join(parts)


class UnsupportedError(SrcdiffError):
    """A Python construct srcdiff cannot differentiate."""


class StaticArgumentNeeded(UnsupportedError):
    """A call of a parameter (or of its method): the code depends on the function (or the
    class of the object) passed, so it is made when the derivative is called."""

    def __init__(self, message, location=None, hint=None, parameter=None, kind="value"):
        self.parameter, self.kind = parameter, kind  # (kind "key": a str or int key)
        super().__init__(message, location, hint)


class NoAdjointError(SrcdiffError):
    """A differentiated value flows into a function with no registered adjoint."""


class ArgumentError(SrcdiffError):
    """Bad `wrt`, bad argument types, or a non-scalar output given to `grad`."""


class TemplateError(SrcdiffError):
    """A malformed adjoint template (caught when it is registered)."""
