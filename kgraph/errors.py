"""Re-export of the project's exception types (defined once in :mod:`kgraph.parsers.errors`)."""
from kgraph.parsers.errors import (  # noqa: F401
    Diagnostic,
    InputError,
    KGraphError,
    LimitError,
    MeasurementError,
    ModelError,
    SourceError,
    UsageError,
    module_main,
    run_guarded,
)
