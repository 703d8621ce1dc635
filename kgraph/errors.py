"""Re-export of the project's exception types (defined once in :mod:`parsers.errors`)."""
from parsers.errors import (  # noqa: F401
    Diagnostic,
    InputError,
    KGraphError,
    MeasurementError,
    ModelError,
    SourceError,
    UsageError,
)
