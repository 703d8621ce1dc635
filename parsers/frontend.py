"""The one front-end code path: check input → find/mask qualifiers → tree-sitter → records.

Everything language-specific comes from the :class:`~kgraph.parsers.dialect.Dialect` data.
"""
from __future__ import annotations

import bisect
import os
import threading

import tree_sitter as ts

from kgraph.parsers import calls, casts, limits, preprocessor
from kgraph.parsers.constexpr import literal_fits
from kgraph.parsers.declarations import return_type, to_param
from kgraph.parsers.diagnostics import position, syntax_diagnostics
from kgraph.parsers.dialect import LANGS, Dialect, get_dialect, lang_from_path
from kgraph.parsers.errors import Diagnostic, SourceError, UsageError
from kgraph.parsers.masking import blank_empty_macros, find_qualifiers, mask, respell
from kgraph.parsers.source_input import DEFAULT_MAX_BYTES, check_text, read_source
from kgraph.parsers.unit import Function, TranslationUnit

_BOM = "\ufeff".encode()
_local = threading.local()


def _parser(dialect: Dialect) -> ts.Parser:
    cache = getattr(_local, "parsers", None)
    if cache is None:
        cache = _local.parsers = {}
    if dialect.name not in cache:
        cache[dialect.name] = ts.Parser(dialect.language)
    return cache[dialect.name]


def _check_lang(lang: str | None, filename: str) -> str:
    if lang is None:
        found = lang_from_path(filename)
        if found is None:
            raise UsageError(f"{filename}: cannot tell the language from the extension "
                             f"'{os.path.splitext(filename)[1]}'; pass lang= one of {', '.join(LANGS)} "
                             f"(.cl → opencl, .cu/.cuh → cuda, .c/.h → c)")
        return found
    if lang not in LANGS:
        raise UsageError(f"unknown language '{lang}': choose one of {', '.join(LANGS)}")
    return lang


def parse_source(text: str, lang: str | None = None, filename: str = "<string>", *,
                 defines: dict[str, str] | None = None, max_bytes: int = DEFAULT_MAX_BYTES,
                 check_calls: bool = True) -> TranslationUnit:
    """Parse a kernel source text.

    Args:
        text: the source (str, or UTF-8 bytes).
        lang: ``opencl`` | ``cuda`` | ``c``; ``None`` picks it from ``filename``'s extension.
        filename: shown in diagnostics; quoted ``#include``s are looked up next to it.
        defines: macros given on the compiler's command line (``-DTILE=16`` → ``{"TILE": "16"}``).
        max_bytes: inputs larger than this raise :class:`InputError`.
        check_calls: report calls of undefined functions and recursion (:mod:`kgraph.parsers.calls`);
            False for a snippet whose names are defined elsewhere (an expanded macro body).

    Syntax errors do not raise: they are in ``unit.diagnostics``. Bad input raises InputError; an
    unknown language UsageError.
    """
    lang = _check_lang(lang, filename)
    text = check_text(text, filename, max_bytes)
    dialect = get_dialect(lang)
    original = text.encode("utf-8")
    # nesting, statements, literals: refused before any work grows with them
    limits.check_source(original, filename, literal_fits=literal_fits)
    spans = find_qualifiers(original, dialect.qualifiers)
    source = respell(blank_empty_macros(mask(original, spans)), dialect.spellings)
    if source.startswith(_BOM):
        source = b"   " + source[3:]
    tree = _parser(dialect).parse(source)
    for _ in range(casts.MAX_PASSES):  # `(gi * (K)) + q` read as a cast: blank the inner parentheses, again
        parens = casts.expression_parens(dialect, tree.root_node)
        if not parens:
            break
        source = casts.blank(source, parens)
        tree = _parser(dialect).parse(source)
    root = tree.root_node
    limits.check_tree(root, filename, original)  # syntax depth and size: before any query walks the tree
    unit = TranslationUnit(filename=filename, lang=lang, dialect=dialect, text=text, source=source, tree=tree)
    quals: dict[int, set[str]] = {}
    for s in spans:
        node = root.descendant_for_byte_range(s.next_start, s.next_start)
        decl = unit.declaration_of(node) if node is not None else None
        if decl is None:
            continue
        quals.setdefault(decl.start_byte, set()).add(s.canonical)
        if s.address_space is not None:
            unit.address_spaces[decl.start_byte] = s.address_space
    unit.qualifiers = {k: frozenset(v) for k, v in quals.items()}
    unit.diagnostics.extend(syntax_diagnostics(tree, original, filename, dialect))
    preprocessor.collect(unit, defines)
    pragmas = sorted(unit.pragmas.values(), key=lambda p: p.start)
    starts = [p.start for p in pragmas]
    found = dialect.matches("functions", root)
    limits.check_functions([caps["function"][0] for caps in found], filename, original)
    unit.functions = [_function(unit, caps, original, pragmas, starts) for caps in found]
    _check_array_sizes(unit, original)
    if check_calls and not unit.errors:  # calls of functions defined nowhere, recursion: code that parsed
        unit.diagnostics.extend(calls.check_calls(unit))
    unit.diagnostics.sort(key=lambda d: (d.line, d.col))
    return unit


_ARRAY_SIZES: dict[str, ts.Query] = {}


def _check_array_sizes(unit: TranslationUnit, original: bytes) -> None:
    """Refuse an array size whose value leaves the range of ``limits.MAX_CONSTANT_BITS`` (``a[1 << 99]``)."""
    if b"[" not in unit.source:
        return
    query = _ARRAY_SIZES.get(unit.dialect.name)
    if query is None:
        query = _ARRAY_SIZES[unit.dialect.name] = ts.Query(unit.dialect.language, "(array_declarator size: (_) @size)")
    for node in ts.QueryCursor(query).captures(unit.tree.root_node).get("size", []):
        if node.type in ("number_literal", "identifier"):
            continue  # literals are checked on the bytes; a name is a macro, folded (bounded) where used
        text = unit.node_text(node)
        if unit.fold_checked(text)[1] == "range":
            raise limits.constant_error(unit.filename, original, node.start_byte, "array size", text)


def _function(unit: TranslationUnit, caps: dict, original: bytes, pragmas: list, starts: list[int]) -> Function:
    node, name_node, body = caps["function"][0], caps["name"][0], caps["body"][0]
    scope = ""
    if name_node.type == "qualified_identifier":  # C++ `void Aig::build(...)`: named by its last component
        scope = unit.node_text(name_node)
        while name_node.type == "qualified_identifier" and name_node.child_by_field_name("name") is not None:
            name_node = name_node.child_by_field_name("name")
    params = []
    for p in unit.dialect.captures("params", caps["params"][0]).get("param", []):
        if p.child_by_field_name("declarator") is None and p.child_by_field_name("type") is not None \
                and p.child_by_field_name("type").text == b"void":
            continue
        params.append(to_param(p, unit))
    params.sort(key=lambda p: p.node.start_byte)
    quals = set(unit.qualifiers_at(node))
    for child in node.children:  # storage classes the grammar knows (static, inline, __device__, ...)
        if child.type == "storage_class_specifier":
            quals.add(child.text.decode())
    rule_kernel = bool(quals & unit.dialect.kernel_qualifiers)
    is_kernel = rule_kernel or (unit.dialect.any_non_static_is_kernel and "static" not in quals)
    line, col = position(original, name_node.start_byte, name_node.start_point.row)
    fn = Function(name=name_node.text.decode(), is_kernel=is_kernel, params=params, return_type=return_type(node),
                  node=node, body=body, qualifiers=quals, line=line, col=col, qualified_name=scope or None)
    _attributes(unit, fn)
    fn.attributes["pragmas"] = pragmas[bisect.bisect_left(starts, body.start_byte):
                                       bisect.bisect_left(starts, body.end_byte)] if pragmas else []
    return fn


def _attributes(unit: TranslationUnit, fn: Function) -> None:
    for caps in unit.dialect.matches("attributes", fn.node):
        attr = caps["attribute"][0]
        if attr.parent is None or attr.parent.id != fn.node.id:
            continue
        name = caps["name"][0].text.decode().strip("_")
        args_node = caps.get("args", [None])[0]
        if args_node is None and attr.type == "launch_bounds":
            args = [c for c in attr.named_children if c.type != "comment"]
        else:
            args = [c for c in args_node.named_children if c.type != "comment"] if args_node is not None else []
        values = []
        for a in args:
            text = unit.node_text(a)
            v, why = unit.fold_checked(text)
            if why == "range":
                raise limits.constant_error(unit.filename, unit.text.encode("utf-8"), a.start_byte,
                                            f"{name} argument", text)
            values.append(int(v) if isinstance(v, (int, float)) and v == int(v) else text)
        fn.attributes[name] = tuple(values)


def parse_file(path: str | os.PathLike, lang: str | None = None, *, defines: dict[str, str] | None = None,
               max_bytes: int = DEFAULT_MAX_BYTES) -> TranslationUnit:
    """Parse the source file at ``path`` (language from the extension unless ``lang`` is given)."""
    path = os.fspath(path)
    text = read_source(path, max_bytes)
    return parse_source(text, _check_lang(lang, path), path, defines=defines, max_bytes=max_bytes)


def kernel_sources(paths) -> dict[str, tuple[str, str]]:
    """Kernel name -> (source text, language) for every kernel in the files ``paths``.

    Raises:
        InputError: a missing, unreadable or binary file. UsageError: an unknown extension.
        SourceError: syntax errors (``file:line:col``) or a file that defines no kernel.
    """
    out: dict[str, tuple[str, str]] = {}
    for path in map(os.fspath, paths):
        unit = parse_file(path)
        unit.raise_on_errors()
        if not unit.kernels:
            raise SourceError([Diagnostic(path, 1, 1, "error", f"no kernel in {path}")])
        for fn in unit.kernels:
            out[fn.name] = (unit.text, unit.lang)
    return out
