"""The project's own exception types (shared by every package of kgraph).

Every entry point catches :class:`KGraphError` and prints its message; no traceback
ever reaches a user for bad input.
"""
from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Diagnostic:
    """One message about a source file, printed as ``file:line:col: severity: message``.

    ``line`` and ``col`` are 1-based, as compilers print them.
    """

    file: str
    line: int
    col: int
    severity: str  # "error" | "warning" | "note"
    message: str

    def __str__(self) -> str:
        return f"{self.file}:{self.line}:{self.col}: {self.severity}: {self.message}"


class KGraphError(Exception):
    """Base class of every error kgraph raises on purpose."""


class InputError(KGraphError):
    """The input cannot be read as a kernel source (empty, binary, not UTF-8, too large, missing)."""


class SourceError(KGraphError):
    """The source has syntax errors; ``diagnostics`` holds one entry per error."""

    def __init__(self, diagnostics: list[Diagnostic]):
        self.diagnostics = list(diagnostics)
        super().__init__("\n".join(str(d) for d in self.diagnostics))


class LimitError(SourceError):
    """The source exceeds one of the front end's documented limits (``kgraph.parsers.limits``: nesting
    depth, statement count, syntax-tree size, constant magnitude); ``diagnostics`` holds one entry with
    the position of the first construct past the limit."""


class UsageError(KGraphError):
    """A command-line option is missing or wrong; the message names the option and why."""


class MeasurementError(KGraphError):
    """A kernel could not be built, launched or checked on a device."""


class ModelError(KGraphError):
    """A model or checkpoint cannot be loaded or does not fit the data it is given."""
