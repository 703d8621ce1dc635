"""Front ends: OpenCL C, CUDA and C sources → :class:`TranslationUnit` (see docs/PARSERS.md)."""
from kgraph.parsers.dialect import Builtin, Dialect, TypeInfo, get_dialect, lang_from_path
from kgraph.parsers.errors import Diagnostic, InputError, KGraphError, LimitError, SourceError, UsageError
from kgraph.parsers.entry import parse_file, parse_source
from kgraph.parsers.unit import Function, Macro, Param, Pragma, TranslationUnit

__all__ = [
    "parse_file", "parse_source", "TranslationUnit", "Function", "Param", "Macro", "Pragma",
    "Dialect", "Builtin", "TypeInfo", "get_dialect", "lang_from_path",
    "Diagnostic", "InputError", "KGraphError", "LimitError", "SourceError", "UsageError",
]
