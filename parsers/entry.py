"""The public ``parse_source``/``parse_file``: preprocessor conditionals first, then the front end.

:func:`kgraph.parsers.preprocessor.visible_source` blanks the conditional directives and the inactive
groups (same byte length, newlines kept) and :func:`kgraph.parsers.frontend.parse_source` parses what
is left, once; the unit then gets the original text back (``unit.text``: what a compiler is given,
directives included, e.g. for the instrumentation rewrite), and the conditionals' diagnostics
(``#error``, expressions that do not fold, unbalanced directives). Uses of statement macros (and of
macros given a type) are expanded in place first (:mod:`kgraph.parsers.expansion`); ``unit.text`` then
holds the expansions too (same lines), and diagnostics are mapped back to the file as written.
Sources without conditionals or such macros go straight to the front end.
"""
from __future__ import annotations

import os

from kgraph.parsers import expansion, frontend, preprocessor
from kgraph.parsers.diagnostics import position
from kgraph.parsers.dialect import get_dialect
from kgraph.parsers.errors import Diagnostic, SourceError
from kgraph.parsers.source_input import DEFAULT_MAX_BYTES, check_text, read_source
from kgraph.parsers.unit import TranslationUnit


def parse_source(text: str, lang: str | None = None, filename: str = "<string>", *,
                 defines: dict[str, str] | None = None, max_bytes: int = DEFAULT_MAX_BYTES,
                 check_calls: bool = True) -> TranslationUnit:
    """Parse a kernel source text (see :func:`kgraph.parsers.frontend.parse_source`), with its
    ``#if``/``#ifdef``/``#elif``/``#else`` evaluated under ``defines`` (``-D`` macros) and its statement
    macros expanded in place (:mod:`kgraph.parsers.expansion`)."""
    text = check_text(text, filename, max_bytes)
    if "#" not in text:
        return frontend.parse_source(text, lang, filename, defines=defines, max_bytes=max_bytes,
                                     check_calls=check_calls)
    lang = frontend._check_lang(lang, filename)
    visible, problems, seen = preprocessor.visible_source(text, lang, defines)
    dialect = get_dialect(lang)
    expanded = expansion.expand(visible, lambda word: dialect.type_info(word) is not None)
    if not seen and not problems and not expanded.edits:
        return frontend.parse_source(text, lang, filename, defines=defines, max_bytes=max_bytes,
                                     check_calls=check_calls)
    parsed = expanded.text if visible.strip() else text
    original = text.encode("utf-8")
    try:
        unit = frontend.parse_source(parsed, lang, filename, defines=defines, max_bytes=max_bytes,
                                     check_calls=check_calls)
    except SourceError as exc:  # a limit: its position in the file as written
        exc.diagnostics = [_to_original(d, parsed, expanded, original) for d in exc.diagnostics]
        exc.args = ("\n".join(str(d) for d in exc.diagnostics),)
        raise
    unit.text = expansion.apply_edits(text, expanded.edits)
    if expanded.edits:
        unit.diagnostics = [_to_original(d, parsed, expanded, original) for d in unit.diagnostics]
    for offset, severity, message in problems:
        line, col = position(original, min(offset, len(original)))
        unit.diagnostics.append(Diagnostic(filename, line, col, severity, message))
    unit.diagnostics.sort(key=lambda d: (d.line, d.col))
    return unit


def _to_original(d: Diagnostic, parsed: str, expanded: expansion.Expansion, original: bytes) -> Diagnostic:
    """``d`` (a position in the expanded text) at its position in the text as written."""
    if not expanded.edits:
        return d
    lines = parsed.split("\n")
    if not 1 <= d.line <= len(lines):
        return d
    before = "\n".join(lines[:d.line - 1])
    offset = len(before.encode("utf-8")) + (1 if d.line > 1 else 0) + len(lines[d.line - 1][:d.col - 1].encode("utf-8"))
    line, col = position(original, min(expanded.original_offset(offset), len(original)))
    return Diagnostic(d.file, line, col, d.severity, d.message)


def parse_file(path: str | os.PathLike, lang: str | None = None, *, defines: dict[str, str] | None = None,
               max_bytes: int = DEFAULT_MAX_BYTES) -> TranslationUnit:
    """Parse the source file at ``path`` (language from the extension unless ``lang`` is given)."""
    path = os.fspath(path)
    text = read_source(path, max_bytes)
    return parse_source(text, lang, path, defines=defines, max_bytes=max_bytes)
