"""The public ``parse_source``/``parse_file``: preprocessor conditionals first, then the front end.

:func:`kgraph.parsers.preprocessor.visible_source` blanks the conditional directives and the inactive
groups (same byte length, newlines kept) and :func:`kgraph.parsers.frontend.parse_source` parses what
is left, once; the unit then gets the original text back (``unit.text``: what a compiler is given,
directives included, e.g. for the instrumentation rewrite), and the conditionals' diagnostics
(``#error``, expressions that do not fold, unbalanced directives). Sources without conditionals go
straight to the front end.
"""
from __future__ import annotations

import os

from kgraph.parsers import frontend, preprocessor
from kgraph.parsers.diagnostics import position
from kgraph.parsers.dialect import lang_from_path
from kgraph.parsers.errors import Diagnostic
from kgraph.parsers.source_input import DEFAULT_MAX_BYTES, check_text, read_source
from kgraph.parsers.unit import TranslationUnit


def parse_source(text: str, lang: str | None = None, filename: str = "<string>", *,
                 defines: dict[str, str] | None = None, max_bytes: int = DEFAULT_MAX_BYTES,
                 check_calls: bool = True) -> TranslationUnit:
    """Parse a kernel source text (see :func:`kgraph.parsers.frontend.parse_source`), with its
    ``#if``/``#ifdef``/``#elif``/``#else`` evaluated under ``defines`` (``-D`` macros)."""
    text = check_text(text, filename, max_bytes)
    if "#" not in text:
        return frontend.parse_source(text, lang, filename, defines=defines, max_bytes=max_bytes,
                                     check_calls=check_calls)
    visible, problems, seen = preprocessor.visible_source(text, lang or lang_from_path(filename), defines)
    if not seen and not problems:
        return frontend.parse_source(text, lang, filename, defines=defines, max_bytes=max_bytes,
                                     check_calls=check_calls)
    unit = frontend.parse_source(visible if visible.strip() else text, lang, filename, defines=defines,
                                 max_bytes=max_bytes, check_calls=check_calls)
    unit.text = text
    original = text.encode("utf-8")
    for offset, severity, message in problems:
        line, col = position(original, min(offset, len(original)))
        unit.diagnostics.append(Diagnostic(filename, line, col, severity, message))
    unit.diagnostics.sort(key=lambda d: (d.line, d.col))
    return unit


def parse_file(path: str | os.PathLike, lang: str | None = None, *, defines: dict[str, str] | None = None,
               max_bytes: int = DEFAULT_MAX_BYTES) -> TranslationUnit:
    """Parse the source file at ``path`` (language from the extension unless ``lang`` is given)."""
    path = os.fspath(path)
    text = read_source(path, max_bytes)
    return parse_source(text, lang, path, defines=defines, max_bytes=max_bytes)
