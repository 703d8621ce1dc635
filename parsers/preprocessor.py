"""The preprocessing real kernels need, read from the tree (nothing is textually expanded).

- Conditionals (``#if``, ``#ifdef``, ``#ifndef``, ``#elif``, ``#else``, ``#endif``) are evaluated as a C
  preprocessor does (:func:`inactive_spans`): in order, with the caller's macros (``-D``), the dialect's
  predefined ones (:data:`PREDEFINED`) and the ``#define``/``#undef`` lines met so far; ``defined X`` /
  ``defined(X)``, macros expanded, identifiers left over are 0, the expression folded by
  :mod:`kgraph.parsers.constexpr`. The directive lines and every line of an inactive group are blanked
  to spaces (newlines kept) before tree-sitter parses (:func:`visible_source`, called by
  :mod:`kgraph.parsers.entry`), so byte offsets and ``file:line:col`` stay exact and the tree holds
  only the code a compiler would see; ``unit.text`` keeps the original. An expression that does not fold is
  taken as false with a warning; an unbalanced ``#else``/``#endif`` or an unterminated ``#if`` is a
  warning; an active ``#error`` is an error diagnostic.
- ``#define`` (object-like and function-like) → :class:`Macro`, with ``value`` when the body folds
  to a constant through other macros; the first active definition of a name wins, macros given by the
  caller (``-D``) override the source.
- ``#include`` → ``unit.includes``; a quoted header that does not exist next to the source is a
  warning (never fatal, never read).
- ``#pragma unroll [N]`` (also ``GCC unroll N``, ``nounroll``) → :class:`Pragma` attached to the loop
  that follows (``unit.pragmas`` keyed by the loop's start byte); ``#pragma OPENCL EXTENSION e : s``
  → ``unit.extensions[e] = s``.
"""
from __future__ import annotations

import os
import re

import tree_sitter as ts

from kgraph.parsers.constexpr import expand, fold
from kgraph.parsers.diagnostics import position
from kgraph.parsers.errors import Diagnostic
from kgraph.parsers.tokens import Token, tokenize
from kgraph.parsers.unit import Macro, Pragma, TranslationUnit

#: Macros the compilers define, seen by ``#if``/``#ifdef`` (not added to ``unit.macros``). OpenCL: an
#: OpenCL 1.2 device with the common extensions (fp64, 32/64-bit atomics); CUDA: the device pass of nvcc
#: for compute capability 8.0; C: C11.
PREDEFINED: dict[str, dict[str, str]] = {
    "opencl": {"__OPENCL_VERSION__": "120", "__OPENCL_C_VERSION__": "120", "CL_VERSION_1_0": "100",
               "CL_VERSION_1_1": "110", "CL_VERSION_1_2": "120", "CL_VERSION_2_0": "200", "CL_VERSION_3_0": "300",
               "__ENDIAN_LITTLE__": "1", "__IMAGE_SUPPORT__": "1", "cl_khr_fp64": "1",
               "cl_khr_global_int32_base_atomics": "1", "cl_khr_global_int32_extended_atomics": "1",
               "cl_khr_local_int32_base_atomics": "1", "cl_khr_local_int32_extended_atomics": "1",
               "cl_khr_int64_base_atomics": "1", "cl_khr_byte_addressable_store": "1"},
    "cuda": {"__CUDACC__": "1", "__NVCC__": "1", "__CUDA_ARCH__": "800", "__CUDACC_VER_MAJOR__": "12"},
    "c": {"__STDC__": "1", "__STDC_VERSION__": "201112L"},
}
_CONDITIONALS = ("if", "ifdef", "ifndef", "elif", "elifdef", "elifndef", "else", "endif")
_SKIPPED = re.compile(rb"//[^\n]*|/\*.*?(?:\*/|\Z)|\"(?:\\.|[^\"\\\n])*\"?|'(?:\\.|[^'\\\n])*'?", re.DOTALL)
_DIRECTIVE = re.compile(r"^[ \t]*#[ \t]*([A-Za-z_]+)?(.*)$", re.DOTALL)
_DEFINE = re.compile(r"^([A-Za-z_]\w*)(\([^)]*\))?(.*)$", re.DOTALL)
_IDENT = re.compile(r"^[A-Za-z_]\w*$")

_COMMENT = re.compile(r"//[^\n]*|/\*.*?\*/", re.DOTALL)
_LOOPS = ("for_statement", "while_statement", "do_statement")
_SKIP = ("comment", "preproc_call")


def _clean(text: str) -> str:
    return " ".join(_COMMENT.sub(" ", text.replace("\\\r\n", " ").replace("\\\n", " ")).split())


def _following_loop(node: ts.Node) -> ts.Node | None:
    sib = node.next_named_sibling
    while sib is not None and sib.type in _SKIP:
        sib = sib.next_named_sibling
    if sib is not None and sib.type in _LOOPS:
        return sib
    return None


def _blank(data: bytes, spans: list[tuple[int, int]]) -> bytes:
    """``data`` with every byte of ``spans`` but newlines (and carriage returns) replaced by spaces."""
    if not spans:
        return data
    buf = bytearray(data)
    for a, b in spans:
        buf[a:b] = bytes(c if c in (10, 13) else 32 for c in buf[a:b])
    return bytes(buf)


def _logical_lines(code: bytes):
    """``(start, end, text)`` of each logical line (backslash-newline joined) of comment-free ``code``."""
    start, n = 0, len(code)
    while start < n:
        end = start
        while True:
            nl = code.find(b"\n", end)
            if nl < 0:
                end = n
                break
            if code[start:nl].rstrip(b"\r").endswith(b"\\"):
                end = nl + 1
                continue
            end = nl
            break
        text = code[start:end].decode("utf-8", "replace").replace("\\\r\n", " ").replace("\\\n", " ")
        yield start, end, text
        start = end + 1


def _if_value(expr: str, table: dict[str, Macro]) -> bool | None:
    """The truth of an ``#if`` expression under the macros ``table``; None when it does not fold."""
    try:
        toks = tokenize(expr.encode("utf-8"))
        out: list[Token] = []
        i = 0
        while i < len(toks):
            t = toks[i]
            if t.kind == "id" and t.text == "defined":
                if i + 3 < len(toks) and toks[i + 1].text == "(" and toks[i + 3].text == ")":
                    name, i = toks[i + 2].text, i + 4
                elif i + 1 < len(toks) and toks[i + 1].kind == "id":
                    name, i = toks[i + 1].text, i + 2
                else:
                    return None
                out.append(Token("num", "1" if name in table else "0", 0, 0))
                continue
            out.append(t)
            i += 1
        texts = ["0" if _IDENT.match(x) and x != "sizeof" else x for x in expand(out, table)]
        value = fold(" ".join(texts)) if texts else None
    except Exception:  # noqa: BLE001 - anything the folder cannot take is "does not fold"
        return None
    return None if value is None else bool(value)


def inactive_spans(source: bytes, lang: str, defines: dict[str, str] | None = None
                   ) -> tuple[list[tuple[int, int]], list[tuple[int, str, str]], bool]:
    """Evaluate the conditional directives of ``source``.

    Returns:
        (byte spans to blank: conditional directive lines and the lines of inactive groups, in order;
        problems as ``(byte offset, severity, message)``; whether there was any conditional).
    """
    if source.startswith(b"\xef\xbb\xbf"):
        source = b"   " + source[3:]
    code = _SKIPPED.sub(lambda m: m.group() if m.group()[:1] in (b'"', b"'") else
                        bytes(c if c in (10, 13) else 32 for c in m.group()), source)
    table: dict[str, Macro] = {k: Macro(k, None, v) for k, v in PREDEFINED.get(lang, {}).items()}
    table.update({k: Macro(k, None, str(v)) for k, v in (defines or {}).items()})
    caller = set(defines or {})
    stack: list[list[bool]] = []  # per open #if: [enclosing group active, a branch taken, this branch active]
    spans: list[tuple[int, int]] = []
    problems: list[tuple[int, str, str]] = []
    seen = False
    for start, end, text in _logical_lines(code):
        active = not stack or stack[-1][2]
        m = _DIRECTIVE.match(text) if "#" in text[:64] else None
        name = (m.group(1) or "") if m else None
        rest = m.group(2).strip() if m else ""
        if name in _CONDITIONALS:
            seen = True
            spans.append((start, end))
            if name in ("if", "ifdef", "ifndef"):
                if not active:
                    stack.append([False, True, False])
                    continue
                if name == "if":
                    value = _if_value(rest, table)
                    if value is None:
                        problems.append((start, "warning", f"cannot evaluate '#if {rest}': taken as false"))
                        value = False
                else:
                    word = rest.split()[0] if rest.split() else ""
                    value = (word in table) == (name == "ifdef")
                stack.append([True, value, value])
            elif name in ("elif", "elifdef", "elifndef", "else"):
                if not stack:
                    problems.append((start, "warning", f"#{name} without #if"))
                    continue
                frame = stack[-1]
                if not frame[0] or frame[1]:
                    frame[2] = False
                    continue
                if name == "else":
                    value = True
                elif name == "elif":
                    value = _if_value(rest, table)
                    if value is None:
                        problems.append((start, "warning", f"cannot evaluate '#elif {rest}': taken as false"))
                        value = False
                else:
                    word = rest.split()[0] if rest.split() else ""
                    value = (word in table) == (name == "elifdef")
                frame[1], frame[2] = value, value
            else:  # endif
                if not stack:
                    problems.append((start, "warning", "#endif without #if"))
                    continue
                stack.pop()
            continue
        if not active:
            spans.append((start, end))
            continue
        if name == "define":
            d = _DEFINE.match(rest)
            if d and d.group(1) not in caller:
                params = None
                if d.group(2) is not None:
                    params = tuple(p.strip() if p.strip() != "..." else "__VA_ARGS__"
                                   for p in d.group(2)[1:-1].split(",") if p.strip())
                table[d.group(1)] = Macro(d.group(1), params, " ".join(d.group(3).split()))
        elif name == "undef":
            word = rest.split()[0] if rest.split() else ""
            table.pop(word, None)
            caller.discard(word)
        elif name == "error":
            problems.append((start, "error", f"#error {rest}".rstrip()))
    for _ in stack:
        problems.append((len(source), "warning", "unterminated #if (missing #endif)"))
    return spans, problems, seen


def visible_source(text: str, lang: str | None, defines: dict[str, str] | None = None
                   ) -> tuple[str, list[tuple[int, str, str]], bool]:
    """``text`` as the compiler sees it: conditional directive lines and inactive groups blanked to
    spaces (newlines kept, so byte offsets and line:col are unchanged), the problems met
    (``(byte offset, severity, message)``) and whether there was any conditional."""
    data = text.encode("utf-8")
    spans, problems, seen = inactive_spans(data, lang or "c", defines)
    return (_blank(data, spans).decode("utf-8") if spans else text), problems, seen


def collect(unit: TranslationUnit, defines: dict[str, str] | None = None) -> None:
    """Fill ``unit.macros, includes, pragmas, extensions`` and add include warnings to diagnostics."""
    original = unit.text.encode("utf-8")
    text_of = lambda n: original[n.start_byte:n.end_byte].decode("utf-8", "replace")  # noqa: E731
    macros: dict[str, Macro] = {}
    for name, body in (defines or {}).items():
        macros[name] = Macro(name, None, str(body), None, 0)
    pragma_nodes = []
    for caps in unit.dialect.matches("preprocessor", unit.tree.root_node):
        if "define" in caps:
            node = caps["define"][0]
            name = text_of(caps["name"][0])
            if name in macros:
                continue
            value = node.child_by_field_name("value")
            params = None
            if "params" in caps:
                params = tuple(text_of(p) if p.type == "identifier" else "__VA_ARGS__"
                               for p in caps["params"][0].named_children if p.type != "comment")
            line, _ = position(original, node.start_byte, node.start_point.row)
            macros[name] = Macro(name, params, _clean(text_of(value)) if value is not None else "", None, line)
        elif "include" in caps:
            path_node = caps["path"][0]
            raw = text_of(path_node).strip()
            header = raw[1:-1] if len(raw) >= 2 else raw
            found = None
            if unit.filename and not unit.filename.startswith("<"):
                candidate = os.path.join(os.path.dirname(unit.filename) or ".", header)
                found = candidate if os.path.isfile(candidate) else None
            unit.includes.append((header, found))
            if found is None and path_node.type != "system_lib_string":
                line, col = position(original, path_node.start_byte, path_node.start_point.row)
                unit.diagnostics.append(Diagnostic(unit.filename, line, col, "warning",
                                                   f"cannot find include file '{header}' next to the source; "
                                                   f"its declarations and macros are unknown"))
        elif "call" in caps and text_of(caps["directive"][0]).replace(" ", "") == "#pragma":
            pragma_nodes.append(caps["call"][0])
    unit.macros = macros
    for name, m in list(macros.items()):
        if m.params is None:
            macros[name] = Macro(m.name, None, m.body, unit.fold(m.body), m.line)
    for node in pragma_nodes:
        _pragma(unit, node, original)


def _pragma(unit: TranslationUnit, node: ts.Node, original: bytes) -> None:
    arg = node.child_by_field_name("argument")
    text = _clean(original[arg.start_byte:arg.end_byte].decode("utf-8", "replace")) if arg is not None else ""
    words = text.split()
    if not words:
        return
    line, _ = position(original, node.start_byte, node.start_point.row)
    if words[0] == "OPENCL" and len(words) >= 2 and words[1] == "EXTENSION":
        rest = " ".join(words[2:]).split(":")
        if len(rest) == 2:
            unit.extensions[rest[0].strip()] = rest[1].strip()
        return
    if words[0] == "GCC" and len(words) > 1:
        words = words[1:]
    name = words[0]
    if name not in ("unroll", "nounroll"):
        return
    value = unit.fold(" ".join(words[1:])) if len(words) > 1 else None
    value = 1 if name == "nounroll" else (int(value) if isinstance(value, (int, float)) else None)
    loop = _following_loop(node)
    pragma = Pragma("unroll", text, value, node.start_byte, line, loop.start_byte if loop is not None else None)
    if loop is not None:
        unit.pragmas[loop.start_byte] = pragma
